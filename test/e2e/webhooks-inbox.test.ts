/**
 * The inbox as a debugger, end to end: a real `webhooks listen` against the sandbox records
 * what its receiver answered; `webhooks events` filters by outcome, type and time; `webhooks events get` shows an
 * event whole; `webhooks replay --failed` and `replay ID...` resend the failed ones byte for byte, each once,
 * and report each with a summary.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {SIGNATURE_HEADER, signPayload} from '../../src/domain/signature.js'
import {startInTmux} from '../helpers/tmux.js'
import {killAll, type Receiver, type Session, spawnCli, startReceiver, startSession} from '../helpers/webhooks-setup.js'

let session: Session
let receiver: Receiver
/** Ids the receiver answers 500 to (with a body longer than the 64 KiB an inbox record keeps). */
const failing = new Set(['evt_fail1', 'evt_fail2', 'evt_retry'])
const BIG = `database down: ${'x'.repeat(70_000)}`
const bodies = new Map<string, Buffer>()

const delivery = (id: string, type: string, extra = '') =>
  Buffer.from(JSON.stringify({created_at: new Date().toISOString(), data: {id: 7, note: `café ☕ ${extra}`}, id, type}))

beforeAll(async () => {
  session = await startSession()
  receiver = await startReceiver()
  receiver.respond = (req, res) => {
    const {id} = JSON.parse(req.body.toString('utf8'))
    if (failing.has(id)) res.writeHead(500, {'content-type': 'text/plain', 'x-receiver': 'test'}).end(BIG)
    else res.writeHead(200, {'content-type': 'text/plain'}).end('ok')
  }
  const listen = spawnCli(
    ['webhooks', 'listen', '--json', '--events', 'order.paid,order.shipped,customer.created', '--forward-to', receiver.url],
    session.env,
  )
  const ready = await listen.json(0)
  const secret = session.secrets()[ready.endpoint_id]
  const post = async (id: string, type: string) => {
    const body = delivery(id, type)
    bodies.set(id, body)
    const res = await fetch(ready.local_url, {
      body,
      headers: {'content-type': 'application/json', [SIGNATURE_HEADER]: signPayload(secret, body, Math.floor(Date.now() / 1000))},
      method: 'POST',
    })
    await res.arrayBuffer()
    return res.status
  }
  expect(await post('evt_ok1', 'order.paid')).toBe(200)
  expect(await post('evt_fail1', 'order.paid'), listen.stderr() + listen.lines.join('\n') + receiver.received.length).toBe(500)
  expect(await post('evt_fail2', 'customer.created')).toBe(500)
  // Retried by its sender: failed first, then answered 200; its latest record is a success.
  expect(await post('evt_retry', 'order.paid')).toBe(500)
  failing.delete('evt_retry')
  expect(await post('evt_retry', 'order.paid')).toBe(200)
  expect(await post('evt_ok2', 'order.shipped')).toBe(200)
  listen.child.kill('SIGTERM')
  expect((await listen.exited).code).toBe(0)
}, 60_000)

afterAll(async () => {
  await killAll()
  await receiver?.close()
  await session?.close()
})

const ids = (records: Array<{id: string}>) => records.map((r) => r.id)

describe('the inbox records the receiver’s answer', () => {
  it('events get: the request and the 500 with its body (the first 64 KiB, said to be cut)', async () => {
    const json = await session.cli(['webhooks', 'events', 'get', 'evt_fail1', '--json'])
    expect(json.code, json.stderr).toBe(0)
    const event = json.json()
    expect(event).toMatchObject({id: 'evt_fail1', type: 'order.paid'})
    expect(event.records).toHaveLength(1)
    const [record] = event.records
    expect(record.body).toBe(bodies.get('evt_fail1')!.toString('utf8'))
    expect(record.headers[SIGNATURE_HEADER]).toMatch(/^t=\d+,v1=/)
    expect(record.response).toMatchObject({body_bytes: Buffer.byteLength(BIG), body_encoding: 'utf8', body_truncated: true, status: 500})
    expect(record.response.headers['x-receiver']).toBe('test')
    expect(Buffer.byteLength(record.response.body)).toBe(64 * 1024)
    expect(record.response.body.startsWith('database down: xxx')).toBe(true)

    const human = await session.cli(['webhooks', 'events', 'get', 'evt_fail1'])
    expect(human.code).toBe(0)
    expect(human.stdout).toContain('Answer: 500')
    expect(human.stdout).toContain('database down: xxx')
    expect(human.stdout).toContain(`the first 65536 of ${Buffer.byteLength(BIG)} bytes`)
    expect(human.stdout).toContain('café ☕')

    const retried = (await session.cli(['webhooks', 'events', 'get', 'evt_retry', '--json'])).json()
    expect(retried.records.map((r: {forward_status: number}) => r.forward_status)).toEqual([500, 200])
    const unknown = await session.cli(['webhooks', 'events', 'get', 'evt_nope'])
    expect(unknown.code).toBe(4)
    expect(unknown.stderr).toContain('evt_nope')
  })

  it('events get on a terminal lays a JSON body out two spaces a level; a pipe gets it as it came', async () => {
    const term = await startInTmux(['webhooks', 'events', 'get', 'evt_retry'], {env: session.env, height: 60, width: 100})
    expect(await term.waitForExit()).toBe(0)
    const screen = await term.capture()
    expect(screen).toMatch(/^ {2}\{\n {4}"created_at": "[^"]+",\n {4}"data": \{\n {6}"id": 7,/m)
    const piped = await session.cli(['webhooks', 'events', 'get', 'evt_retry'])
    expect(piped.stdout).toContain('  {"created_at":')
    await term.kill()
  })

  it('events filters by --status, --type and --since', async () => {
    const list = async (...args: string[]) => {
      const r = await session.cli(['webhooks', 'events', '--json', ...args])
      expect(r.code, r.stderr).toBe(0)
      return ids(r.json())
    }
    expect(await list('--status', 'failed', '--since', '10m')).toEqual(['evt_retry', 'evt_fail2', 'evt_fail1'])
    expect(await list('--status', '5xx', '--type', 'customer.created')).toEqual(['evt_fail2'])
    expect(await list('--status', '2xx', '--type', 'order.paid,order.shipped')).toEqual(['evt_ok2', 'evt_retry', 'evt_ok1'])
    expect(await list('--since', '2999-01-01T00:00:00Z')).toEqual([])
    expect(await list('--status', 'failed', '--limit', '1')).toEqual(['evt_retry'])
    // The one window grammar of every --since: months and dates too, and the same words for what it takes.
    expect(await list('--status', 'failed', '--since', '6mo')).toEqual(['evt_retry', 'evt_fail2', 'evt_fail1'])
    expect(await list('--since', '1970-01-02', '--status', 'failed')).toEqual(['evt_retry', 'evt_fail2', 'evt_fail1'])
    const bad = await session.cli(['webhooks', 'events', '--since', 'yesterday'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--since must be a span back from now (30s, 10m, 24h, 7d, 12w, 6mo), a date (2026-11-01) or a date-time')
    expect((await session.cli(['webhooks', 'events', '--status', 'broken'])).code).toBe(2)
  })
})

describe('replay of many', () => {
  it('--failed resends exactly the events whose latest record failed, in the order received, byte for byte, and reports each', async () => {
    failing.clear()
    const before = receiver.received.length
    const r = await session.cli(['webhooks', 'replay', '--failed', '--forward-to', receiver.url, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const summary = r.json()
    expect(summary).toMatchObject({failed: 0, replayed: 2, succeeded: 2})
    expect(ids(summary.results)).toEqual(['evt_fail1', 'evt_fail2'])
    const sent = receiver.received.slice(before)
    expect(sent).toHaveLength(2)
    expect(sent[0].body.equals(bodies.get('evt_fail1')!)).toBe(true)
    expect(sent[1].body.equals(bodies.get('evt_fail2')!)).toBe(true)

    // Recorded: their latest records are successes now, so nothing is left to replay.
    const again = await session.cli(['webhooks', 'replay', '--failed', '--forward-to', receiver.url])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain('No failed events to replay.')
    expect(receiver.received.length).toBe(before + 2)
    const latest = (await session.cli(['webhooks', 'events', 'get', 'evt_fail1', '--json'])).json().records.at(-1)
    expect(latest).toMatchObject({forward_status: 200, replayed: true})
  })

  it('several ids: each once, a failure is reported and exit 1 with the summary; an unknown id sends nothing (exit 4)', async () => {
    failing.add('evt_ok2')
    const before = receiver.received.length
    const r = await session.cli(['webhooks', 'replay', 'evt_ok1', 'evt_ok2', 'evt_ok1', '--forward-to', receiver.url, '--json'])
    expect(r.code).toBe(1)
    expect(r.json()).toMatchObject({failed: 1, replayed: 2, succeeded: 1})
    expect(r.json().results.map((x: {id: string; status: number}) => [x.id, x.status])).toEqual([
      ['evt_ok1', 200],
      ['evt_ok2', 500],
    ])
    expect(receiver.received.length).toBe(before + 2)
    const human = await session.cli(['webhooks', 'replay', 'evt_ok2', 'evt_ok1', '--forward-to', receiver.url])
    expect(human.code).toBe(1)
    expect(human.stderr).toMatch(/evt_ok1 .*-> 200[\s\S]*evt_ok2 .*-> 500/)
    expect(human.stderr).toContain('1 succeeded, 1 failed')

    const count = receiver.received.length
    const unknown = await session.cli(['webhooks', 'replay', 'evt_ok1', 'evt_missing', '--forward-to', receiver.url])
    expect(unknown.code).toBe(4)
    expect(unknown.stderr).toContain('evt_missing')
    expect(receiver.received.length).toBe(count)
    expect((await session.cli(['webhooks', 'replay', '--forward-to', receiver.url])).code).toBe(2)
    expect((await session.cli(['webhooks', 'replay', 'evt_ok1', '--failed', '--forward-to', receiver.url])).code).toBe(2)
  })
})

describe('replay without --forward-to', () => {
  it('sends each event to the receiver it was forwarded to when received; --json says where', async () => {
    failing.clear()
    const before = receiver.received.length
    const one = await session.cli(['webhooks', 'replay', 'evt_ok1', '--json'])
    expect(one.code, one.stderr).toBe(0)
    expect(one.json()).toMatchObject({forward_to: receiver.url, id: 'evt_ok1', status: 200})
    const many = await session.cli(['webhooks', 'replay', 'evt_ok1', 'evt_ok2'])
    expect(many.code, many.stderr).toBe(0)
    expect(many.stderr).toContain(`Replayed 2 events to ${receiver.url}: 2 succeeded, 0 failed.`)
    expect(receiver.received.length).toBe(before + 3)
    expect(receiver.received.at(-1)!.body.equals(bodies.get('evt_ok2')!)).toBe(true)
  })

  it('an event received with no receiver is exit 2 naming it, before anything is sent', async () => {
    const listen = spawnCli(['webhooks', 'listen', '--json', '--events', 'order.paid'], session.env)
    const ready = await listen.json(0)
    const body = delivery('evt_plain', 'order.paid')
    const secret = session.secrets()[ready.endpoint_id]
    const res = await fetch(ready.local_url, {
      body,
      headers: {'content-type': 'application/json', [SIGNATURE_HEADER]: signPayload(secret, body, Math.floor(Date.now() / 1000))},
      method: 'POST',
    })
    expect(res.status).toBe(200)
    listen.child.kill('SIGTERM')
    await listen.exited
    const before = receiver.received.length
    const r = await session.cli(['webhooks', 'replay', 'evt_ok1', 'evt_plain'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('evt_plain was received with no receiver to forward to: give --forward-to URL.')
    expect(receiver.received.length).toBe(before)
  })
})
