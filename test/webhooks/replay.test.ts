import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {signPayload, verifySignature} from '../../src/domain/signature.js'
import {ForwardError} from '../../src/webhooks/forward.js'
import {Inbox, encodeBody, type InboxRecord} from '../../src/webhooks/inbox.js'
import {startListener} from '../../src/webhooks/listener.js'
import {replayEvent} from '../../src/webhooks/replay.js'
import {deadPort, makeEvent, send, startReceiver, tempDir, type Receiver} from '../helpers/webhooks.js'

const SECRET = 'whsec_replay_test'
const T = 1_900_000_000

describe('webhook replay', () => {
  let receiver: Receiver
  let dir: ReturnType<typeof tempDir>
  beforeEach(async () => {
    receiver = await startReceiver()
    dir = tempDir()
  })
  afterEach(async () => {
    await receiver.close()
    dir.remove()
  })

  /** A delivery recorded by a real listener, as `webhooks replay` finds it. */
  async function recordedDelivery(body: string): Promise<{record: InboxRecord; original: Record<string, string>}> {
    const inbox = new Inbox({path: join(dir.path, 'inbox.jsonl')})
    const listener = await startListener({forwardTo: receiver.url, inbox, now: () => T * 1000, secrets: SECRET})
    const original = {'content-type': 'application/json', 'user-agent': 'Service/1', 'x-service-signature': signPayload(SECRET, body, T)}
    await send(listener.localUrl, {body, headers: original})
    await listener.close()
    receiver.received.length = 0
    return {original, record: (await inbox.findEvent('evt_1'))!}
  }

  it('sends the recorded raw body byte for byte with the recorded headers', async () => {
    const body = `${makeEvent()}  \n`
    const {original, record} = await recordedDelivery(body)
    receiver.respond = (_req, res) => void res.writeHead(204).end()

    const result = await replayEvent({forwardTo: receiver.url, record})

    expect(result).toMatchObject({duration_ms: expect.any(Number), status: 204})
    expect(result.body.length).toBe(0)
    expect(receiver.received).toHaveLength(1)
    const got = receiver.received[0]
    expect(got.body.equals(Buffer.from(body))).toBe(true)
    expect(got.headers).toMatchObject(original)
    expect(got.headers.host).toBe(`127.0.0.1:${receiver.port}`)
  })

  it('replays a binary body byte for byte', async () => {
    const binary = Buffer.from([0x00, 0xff, 0x10, 0x80])
    const record: InboxRecord = {
      created_at: null,
      duration_ms: 1,
      forward_status: 200,
      headers: {'x-a': '1'},
      id: 'evt_bin',
      received_at: new Date(0).toISOString(),
      type: 'order.paid',
      ...encodeBody(binary),
    }
    await replayEvent({forwardTo: receiver.url, record})
    expect(receiver.received[0].body.equals(binary)).toBe(true)
  })

  it('with a secret, replaces the recorded signature by a fresh one', async () => {
    const body = makeEvent()
    const {original, record} = await recordedDelivery(body)
    const later = T + 3600
    await replayEvent({forwardTo: receiver.url, now: () => later * 1000, record, secret: SECRET})
    const header = receiver.received[0].headers['x-service-signature'] as string
    expect(header).toBe(signPayload(SECRET, body, later))
    expect(header).not.toBe(original['x-service-signature'])
    expect(verifySignature(SECRET, header, receiver.received[0].body, {now: later}).valid).toBe(true)
    // The recorded one is stale by then: that is why the fresh one exists.
    expect(verifySignature(SECRET, original['x-service-signature'], body, {now: later}).reason).toBe('too_old')
    expect(receiver.received[0].rawHeaders.filter((h) => h.toLowerCase() === 'x-service-signature')).toHaveLength(1)
  })

  it("returns a receiver's error status rather than throwing", async () => {
    const {record} = await recordedDelivery(makeEvent())
    receiver.respond = (_req, res) => void res.writeHead(500).end('boom')
    expect((await replayEvent({forwardTo: receiver.url, record})).status).toBe(500)
  })

  it('throws a ForwardError when the receiver cannot be reached', async () => {
    const {record} = await recordedDelivery(makeEvent())
    const url = `http://127.0.0.1:${await deadPort()}/`
    const error = await replayEvent({forwardTo: url, record}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ForwardError)
    expect(error).toMatchObject({message: 'connection refused', url})
  })
})
