/**
 * The inbox under kill -9: a listener in a process of its own takes a stream of signed deliveries and is killed
 * while more are in flight. The deliveries it answered last are in the inbox afterwards (a delivery is answered
 * only once its record is written), across rotations of the file, and a listener started after it appends cleanly
 * (the lock the dead one held is taken over, a line it left cut short does not swallow the next).
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {createInterface} from 'node:readline'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {signPayload} from '../../src/domain/signature.js'
import {Inbox} from '../../src/webhooks/inbox.js'
import {makeEvent, send, tempDir} from '../helpers/webhooks.js'

const SECRET = 'whsec_kill_test'
const SRC = join(import.meta.dirname, '..', '..', 'src', 'webhooks')

/** A listener (no receiver: it answers 200 once recorded) with an inbox at `path`, in a child process. */
async function listenerProcess(path: string, maxRecords: number): Promise<{url: string; child: ChildProcess}> {
  const script = `
    const {startListener} = await import(${JSON.stringify(pathToFileURL(join(SRC, 'listener.ts')).href)})
    const {Inbox} = await import(${JSON.stringify(pathToFileURL(join(SRC, 'inbox.ts')).href)})
    const l = await startListener({inbox: new Inbox({path: ${JSON.stringify(path)}, maxRecords: ${maxRecords}}), secrets: ${JSON.stringify(SECRET)}})
    process.stdout.write(l.localUrl + '\\n')
  `
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {stdio: ['ignore', 'pipe', 'inherit']})
  const first = await createInterface({input: child.stdout})[Symbol.asyncIterator]().next()
  return {child, url: String(first.value)}
}

describe('webhook inbox: kill -9 of the listener', () => {
  let dir: ReturnType<typeof tempDir>
  const children: ChildProcess[] = []
  beforeEach(() => {
    dir = tempDir()
  })
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    dir.remove()
  })

  it('loses no answered delivery, across rotations, and the next listener appends after it', async () => {
    const path = join(dir.path, 'inbox.jsonl')
    // Rotated at 100 records: the file has rotated twice by the time 300 are answered.
    const maxRecords = 100
    const first = await listenerProcess(path, maxRecords)
    children.push(first.child)
    const answered: string[] = []
    const exited = new Promise((resolve) => first.child.once('exit', resolve))
    let next = 0
    // 20 senders; the listener is killed once 300 deliveries are answered, others in flight.
    await Promise.all(
      Array.from({length: 20}, async () => {
        while (answered.length < 300 && next < 2000) {
          const body = makeEvent({id: `evt_${next++}`})
          const reply = await send(first.url, {
            body,
            headers: {'content-type': 'application/json', 'x-service-signature': signPayload(SECRET, body)},
          }).catch(() => undefined)
          if (reply?.status === 200) answered.push(JSON.parse(body).id)
          if (answered.length >= 300 && first.child.exitCode === null && first.child.signalCode === null) first.child.kill('SIGKILL')
        }
      }),
    )
    await exited
    expect(first.child.signalCode).toBe('SIGKILL')

    expect(existsSync(`${path}.1`)).toBe(true)
    const inbox = new Inbox({maxRecords, path})
    const listed = (await inbox.listEvents()).map((r) => r.id)
    expect(listed).toHaveLength(maxRecords)
    // A delivery is answered after its record is written, so the newest records are the last answered ones, and
    // at most 20 (those in flight when it was killed) written but never answered: the last 80 answered are all there.
    const kept = new Set(listed)
    expect(answered.slice(-(maxRecords - 20)).filter((id) => !kept.has(id))).toEqual([])

    const second = await listenerProcess(path, maxRecords)
    children.push(second.child)
    const body = makeEvent({id: 'evt_after'})
    const reply = await send(second.url, {body, headers: {'content-type': 'application/json', 'x-service-signature': signPayload(SECRET, body)}})
    expect(reply.status).toBe(200)
    expect((await inbox.listEvents())[0].id).toBe('evt_after')
  }, 60_000)
})
