import {Socket} from 'node:net'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'
import {signPayload} from '../../src/domain/signature.js'
import {Inbox} from '../../src/webhooks/inbox.js'
import {ListenError, startListener, type Listener, type ListenerEvent, type ListenerOptions, type Rejection} from '../../src/webhooks/listener.js'
import {deadPort, deferred, makeEvent, send, startReceiver, tempDir, type Receiver} from '../helpers/webhooks.js'

const SECRET = 'whsec_listener_test'

/**
 * A POST of these headers whose announced body is never sent: resolves with the listener's answer (status line and
 * headers), which proves it answered without waiting for the body.
 */
function answerToHeaders(port: number, headers: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = new Socket()
    let data = ''
    socket.connect(port, '127.0.0.1', () => socket.write(`POST /hooks HTTP/1.1\r\nHost: x\r\n${headers}\r\n`))
    socket.on('data', (d) => {
      data += d.toString()
      if (data.includes('\r\n\r\n')) {
        socket.destroy()
        resolve(data)
      }
    })
    socket.on('error', reject)
  })
}
const T = 1_900_000_000
const now = () => T * 1000

describe('webhook listener', () => {
  let receiver: Receiver
  let listener: Listener | undefined
  let dir: ReturnType<typeof tempDir>
  let events: ListenerEvent[]
  let rejections: Rejection[]

  beforeEach(async () => {
    receiver = await startReceiver()
    dir = tempDir()
    events = []
    rejections = []
  })
  afterEach(async () => {
    await listener?.close()
    listener = undefined
    await receiver.close()
    dir.remove()
  })

  const listen = async (options: Partial<ListenerOptions> = {}) => {
    listener = await startListener({
      forwardTo: receiver.url,
      now,
      onEvent: (e) => events.push(e),
      onRejected: (r) => rejections.push(r),
      secrets: SECRET,
      ...options,
    })
    return listener
  }
  const signed = (body: string, headers: Record<string, string> = {}) => ({
    body,
    headers: {'content-type': 'application/json', 'x-service-signature': signPayload(SECRET, body, T), ...headers},
  })

  it('forwards the raw body byte for byte and the original headers, and answers what the receiver answered', async () => {
    const {localUrl} = await listen()
    // Odd spacing, key order and non-ASCII text: a re-serialised body would differ.
    const body = '{ "type":"order.paid",  "id":"evt_raw", "created_at":"2030-01-01T12:00:00Z","data":{"note":"caf\u00e9 \u2713"} }\n'
    receiver.respond = (_req, res) => void res.writeHead(201, {'content-type': 'application/json', 'x-receiver': 'yes'}).end('{"thanks":true}')
    const headers = signed(body, {'User-Agent': 'Commerce-Webhooks/1.0', 'X-Delivery-Attempt': '2'}).headers

    const reply = await send(`${localUrl}/any/path?x=1`, {body, headers})

    expect(reply).toMatchObject({body: '{"thanks":true}', status: 201})
    expect(reply.headers['content-type']).toBe('application/json')
    expect(reply.headers['x-receiver']).toBe('yes')
    expect(receiver.received).toHaveLength(1)
    const got = receiver.received[0]
    expect(got.body.equals(Buffer.from(body))).toBe(true)
    expect(got.url).toBe('/hooks')
    expect(got.headers['x-service-signature']).toBe(headers['x-service-signature'])
    expect(got.headers['user-agent']).toBe('Commerce-Webhooks/1.0')
    expect(got.headers['x-delivery-attempt']).toBe('2')
    expect(got.headers['content-type']).toBe('application/json')
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength(body)))
    expect(got.headers.host).toBe(`127.0.0.1:${receiver.port}`)
    expect(events).toEqual([
      {
        created_at: '2030-01-01T12:00:00Z',
        duration_ms: expect.any(Number),
        forward_status: 201,
        id: 'evt_raw',
        received_at: new Date(T * 1000).toISOString(),
        type: 'order.paid',
      },
    ])
  })

  it('drops hop-by-hop headers, including those the Connection header names', async () => {
    const {localUrl} = await listen()
    const body = makeEvent()
    await send(localUrl, signed(body, {connection: 'keep-alive, X-Hop', 'keep-alive': 'timeout=5', 'x-hop': '1', 'x-kept': '1'}))
    const got = receiver.received[0].headers
    expect(got['x-kept']).toBe('1')
    expect(got['x-hop']).toBeUndefined()
    expect(got['keep-alive']).toBeUndefined()
  })

  it('answers 400 to missing, malformed, wrong, stale and future signatures, without forwarding or recording', async () => {
    const inbox = new Inbox({path: join(dir.path, 'inbox.jsonl')})
    const {localUrl} = await listen({inbox})
    const body = makeEvent()
    const cases: Array<[string, Record<string, string>]> = [
      ['missing', {}],
      ['malformed', {'x-service-signature': 't=abc,v1=zz'}],
      ['mismatch', {'x-service-signature': signPayload('whsec_wrong', body, T)}],
      ['mismatch', {'x-service-signature': signPayload(SECRET, `${body} `, T)}],
      ['too_old', {'x-service-signature': signPayload(SECRET, body, T - 301)}],
      ['too_new', {'x-service-signature': signPayload(SECRET, body, T + 301)}],
    ]
    for (const [reason, headers] of cases) {
      const reply = await send(localUrl, {body, headers: {'content-type': 'application/json', ...headers}})
      expect(reply.status, reason).toBe(400)
      expect(reply.body.length, reason).toBeGreaterThan(0)
    }
    expect(rejections.map((r) => r.reason)).toEqual(cases.map(([reason]) => reason))
    expect(receiver.received).toHaveLength(0)
    expect(events).toHaveLength(0)
    expect(await inbox.listEvents()).toEqual([])
  })

  it('honours a custom tolerance in both directions', async () => {
    const {localUrl} = await listen({toleranceSeconds: 10})
    const body = makeEvent()
    const at = (t: number) =>
      send(localUrl, {body, headers: {'content-type': 'application/json', 'x-service-signature': signPayload(SECRET, body, t)}})
    expect((await at(T - 10)).status).toBe(200)
    expect((await at(T + 10)).status).toBe(200)
    expect((await at(T - 11)).status).toBe(400)
    expect((await at(T + 11)).status).toBe(400)
    expect(receiver.received).toHaveLength(2)
  })

  it('accepts a header with several v1= entries of which one is good, and any of several secrets', async () => {
    const {localUrl} = await listen({secrets: ['whsec_old', SECRET]})
    const body = makeEvent()
    const good = signPayload(SECRET, body, T).split(',')[1]
    const reply = await send(localUrl, {
      body,
      headers: {'content-type': 'application/json', 'x-service-signature': `t=${T},v1=${'0'.repeat(64)},${good}`},
    })
    expect(reply.status).toBe(200)
    expect(receiver.received).toHaveLength(1)
  })

  it('answers 502 when the receiver is down, recording the failure', async () => {
    const inbox = new Inbox({path: join(dir.path, 'inbox.jsonl')})
    const {localUrl} = await listen({forwardTo: `http://127.0.0.1:${await deadPort()}/hooks`, inbox})
    const reply = await send(localUrl, signed(makeEvent()))
    expect(reply.status).toBe(502)
    expect(reply.body).toContain('connection refused')
    expect(events).toEqual([expect.objectContaining({forward_error: 'connection refused', forward_status: null, id: 'evt_1'})])
    expect(await inbox.listEvents()).toEqual([expect.objectContaining({forward_error: 'connection refused', forward_status: null})])
  })

  // The bound holds for the answer too: announced by its Content-Length, or found while reading a chunked one.
  it.each([
    ['announces', true],
    ['streams', false],
  ])('answers 502 when the receiver %s an answer over the body limit, recording the failure', async (_what, declared) => {
    const inbox = new Inbox({path: join(dir.path, 'inbox.jsonl')})
    const {localUrl} = await listen({inbox, maxBodyBytes: 4096})
    const big = 'x'.repeat(10_000)
    receiver.respond = (_req, res) => {
      res.writeHead(200, declared ? {'content-length': String(big.length), 'content-type': 'text/plain'} : {'content-type': 'text/plain'})
      if (declared) return void res.end(big)
      for (let i = 0; i < 10; i++) res.write(big.slice(0, 1000))
      res.end()
    }
    const reply = await send(localUrl, signed(makeEvent()))
    expect(reply.status).toBe(502)
    expect(reply.body).toContain('receiver answered with more than 4096 bytes')
    expect(await inbox.listEvents()).toEqual([
      expect.objectContaining({forward_error: 'receiver answered with more than 4096 bytes', forward_status: null}),
    ])
  })

  // The deadline covers the whole exchange: a receiver silent after the request, or after its headers and a first chunk.
  it.each([
    ['does not answer', false],
    ['sends its headers and part of its body, then stalls', true],
  ])('answers 504 when the receiver %s within the forward timeout, and records no forward as done', async (_what, partly) => {
    const held = deferred()
    receiver.respond = async (_req, res) => {
      if (partly) res.writeHead(200, {'content-type': 'text/plain'}).write('partial')
      await held.promise
      res.end()
    }
    const {localUrl} = await listen({forwardTimeoutMs: 200})
    const reply = await send(localUrl, signed(makeEvent()))
    held.resolve()
    expect(reply.status).toBe(504)
    expect(events[0]).toMatchObject({forward_error: 'receiver did not answer within 200 ms', forward_status: null})
  })

  it('the default forward timeout is below the 10 s a sender waits', async () => {
    const {DEFAULT_FORWARD_TIMEOUT_MS} = await import('../../src/webhooks/forward.js')
    expect(DEFAULT_FORWARD_TIMEOUT_MS).toBeLessThan(10_000)
  })

  it('refuses a non-JSON Content-Type (415) and a missing or malformed signature (400) before reading the body', async () => {
    const inbox = new Inbox({path: join(dir.path, 'inbox.jsonl')})
    const {port} = await listen({inbox})
    const headOnly = (headers: string) => answerToHeaders(port, `Content-Length: 1000000\r\n${headers}`)
    const good = `x-service-signature: ${signPayload(SECRET, makeEvent(), T)}\r\n`
    expect(await headOnly(`Content-Type: text/plain\r\n${good}`)).toMatch(/^HTTP\/1\.1 415 /)
    expect(await headOnly(good)).toMatch(/^HTTP\/1\.1 415 /)
    expect(await headOnly('Content-Type: application/json\r\n')).toMatch(/^HTTP\/1\.1 400 /)
    expect(await headOnly('Content-Type: application/json\r\nx-service-signature: v1=abc\r\n')).toMatch(/^HTTP\/1\.1 400 /)
    expect(rejections.map((r) => r.reason)).toEqual(['not_json', 'not_json', 'missing', 'malformed'])
    expect(receiver.received).toHaveLength(0)
    expect(await inbox.listEvents()).toHaveLength(0)
    // application/json with a charset, and +json types, are JSON.
    expect((await send(`http://127.0.0.1:${port}`, signed(makeEvent(), {'content-type': 'application/json; charset=utf-8'}))).status).toBe(200)
    expect((await send(`http://127.0.0.1:${port}`, signed(makeEvent(), {'content-type': 'application/cloudevents+json'}))).status).toBe(200)
  })

  it('cannot be locked out: 200 senders stalled mid-body, then a genuine delivery is answered 200 (not 503); the stalled get 408', async () => {
    const {port, localUrl} = await listen({bodyTimeoutMs: 1500})
    const body = makeEvent()
    // Headers and 1 byte of a 10-byte body, then nothing: what held every admission slot before.
    const stalledRequest = `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\nx-service-signature: ${signPayload(SECRET, body, T)}\r\n\r\n{`
    const sockets: Socket[] = []
    const answers: string[] = []
    try {
      await Promise.all(
        Array.from(
          {length: 200},
          () =>
            new Promise<void>((resolve) => {
              const socket = new Socket()
              sockets.push(socket)
              socket.on('error', () => {})
              socket.on('data', (d) => answers.push(d.toString().split('\r\n', 1)[0]))
              socket.connect(port, '127.0.0.1', () => socket.write(stalledRequest, () => resolve()))
            }),
        ),
      )
      const reply = await send(localUrl, signed(body))
      expect(reply.status).toBe(200)
      expect(events).toHaveLength(1)
      // Each stalled sender is answered 408 at its deadline and cut off.
      await vi.waitFor(() => expect(answers.filter((a) => a.startsWith('HTTP/1.1 408'))).toHaveLength(200), {interval: 50, timeout: 20_000})
      expect(rejections.filter((r) => r.reason === 'body_timeout')).toHaveLength(200)
    } finally {
      for (const s of sockets) s.destroy()
    }
  }, 30_000)

  it("judges a signature's timestamp when the headers arrive: stale or future is 400 before the body is read", async () => {
    const {port} = await listen()
    for (const [t, reason] of [
      [T - 301, 'too_old'],
      [T + 301, 'too_new'],
    ] as const) {
      const answer = await answerToHeaders(
        port,
        `Content-Type: application/json\r\nContent-Length: 100000\r\nx-service-signature: ${signPayload(SECRET, 'x', t)}\r\n`,
      )
      expect(answer).toMatch(/^HTTP\/1\.1 400 /)
      expect(rejections.at(-1)?.reason).toBe(reason)
    }
  })

  it('bounds the body bytes held at once: 200 slow 1 MiB deliveries are held up to the bound, the rest answered 503', async () => {
    // 200 senders of 1 MiB against an 8 MiB bound: held without a bound they would be 200 MiB; with it, 8 are
    // held and the rest refused. (800 senders proved nothing more and took over 30 s on a loaded machine.)
    const senders = 200
    const maxHeldBytes = 8 * 1024 * 1024
    const {port} = await listen({maxHeldBytes})
    const body = Buffer.alloc(1024 * 1024 - 16, 0x20)
    const header = `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nx-service-signature: ${signPayload(SECRET, body, T)}\r\n\r\n`
    // All but the last byte: each sender then stalls, and the listener holds what it read.
    const stalled = Buffer.concat([Buffer.from(header), body.subarray(0, body.length - 1)])
    const sockets: Socket[] = []
    const answers: string[] = []
    const rssBefore = process.memoryUsage().rss
    try {
      await Promise.all(
        Array.from(
          {length: senders},
          () =>
            new Promise<void>((resolve) => {
              const socket = new Socket()
              sockets.push(socket)
              socket.on('error', () => resolve())
              socket.on('data', (d) => {
                answers.push(d.toString().split('\r\n', 1)[0])
                resolve()
              })
              socket.connect(port, '127.0.0.1', () => socket.write(stalled, () => setTimeout(resolve, 50)))
            }),
        ),
      )
      const bound = senders - maxHeldBytes / body.length - 1
      const busy = () => rejections.filter((r) => r.reason === 'busy').length
      await vi.waitFor(() => expect(busy()).toBeGreaterThanOrEqual(bound), {interval: 50, timeout: 40_000})
      // At most maxHeldBytes of bodies held: the others were refused 503, and memory stays far below 200 MiB.
      expect(answers.every((a) => a.startsWith('HTTP/1.1 503'))).toBe(true)
      expect(answers.length).toBeGreaterThan(0)
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(150 * 1024 * 1024)
    } finally {
      for (const socket of sockets) socket.destroy()
    }
  }, 60_000)

  it('--forward-concurrency: at most N forwards at once, a bounded queue behind them, 503 with Retry-After at once past it', async () => {
    const {localUrl} = await listen({forwardConcurrency: 2, forwardQueue: 2})
    const held = deferred()
    let inFlight = 0
    let most = 0
    receiver.respond = async (_req, res) => {
      most = Math.max(most, ++inFlight)
      await held.promise
      inFlight--
      res.writeHead(200).end('ok')
    }
    const replies = Array.from({length: 4}, (_, i) => send(localUrl, signed(makeEvent({id: `evt_q${i}`}))))
    // Two forwarded (held by the receiver), two queued: the next ones are refused before their body is read.
    for (let waited = 0; receiver.received.length < 2 && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10))
    await new Promise((r) => setTimeout(r, 50))
    const refused = await Promise.all([send(localUrl, signed(makeEvent({id: 'evt_over1'}))), send(localUrl, signed(makeEvent({id: 'evt_over2'})))])
    expect(refused.map((r) => r.status)).toEqual([503, 503])
    expect(refused[0].headers['retry-after']).toBe('2')
    expect(receiver.received).toHaveLength(2)
    held.resolve()
    expect((await Promise.all(replies)).map((r) => r.status)).toEqual([200, 200, 200, 200])
    expect(most).toBe(2)
    // Each admitted delivery forwarded exactly once; the refused ones not at all (their senders retry).
    expect(receiver.received.map((r) => JSON.parse(r.body.toString()).id).sort()).toEqual(['evt_q0', 'evt_q1', 'evt_q2', 'evt_q3'])
    expect(rejections.filter((r) => r.reason === 'busy')).toHaveLength(2)
    expect(events.map((e) => e.id).sort()).toEqual(['evt_q0', 'evt_q1', 'evt_q2', 'evt_q3'])
  })

  it('a queued delivery that cannot start within the forward timeout is answered 503, not held forever', async () => {
    const {localUrl} = await listen({forwardConcurrency: 1, forwardTimeoutMs: 300})
    const held = deferred()
    receiver.respond = async (_req, res) => {
      await held.promise
      res.writeHead(200).end('late')
    }
    try {
      const first = send(localUrl, signed(makeEvent({id: 'evt_slow'})))
      for (let waited = 0; receiver.received.length < 1 && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10))
      const queued = await send(localUrl, signed(makeEvent({id: 'evt_waiting'})))
      expect(queued.status).toBe(503)
      expect(queued.headers['retry-after']).toBe('2')
      expect((await first).status).toBe(504)
      expect(receiver.received.map((r) => JSON.parse(r.body.toString()).id)).toEqual(['evt_slow'])
      expect(events.map((e) => e.id)).toEqual(['evt_slow'])
    } finally {
      held.resolve()
    }
  })

  it("passes a receiver's own 4xx and 5xx back as is", async () => {
    const {localUrl} = await listen()
    for (const status of [404, 422, 500, 503]) {
      receiver.respond = (_req, res) => void res.writeHead(status, {'content-type': 'text/plain'}).end(`receiver says ${status}`)
      const reply = await send(localUrl, signed(makeEvent({id: `evt_${status}`})))
      expect(reply).toMatchObject({body: `receiver says ${status}`, status})
    }
    expect(events.map((e) => e.forward_status)).toEqual([404, 422, 500, 503])
    expect(events.every((e) => e.forward_error === undefined)).toBe(true)
  })

  it('close() during a slow forward waits for it, and the sender gets the receiver answer', async () => {
    const arrived = deferred()
    const release = deferred()
    receiver.respond = async (_req, res) => {
      arrived.resolve()
      await release.promise
      res.writeHead(202).end('finally')
    }
    const {localUrl, port} = await listen()
    const pending = send(localUrl, signed(makeEvent()))
    await arrived.promise

    let closed = false
    const closing = listener!.close().then(() => (closed = true))
    // New connections are refused at once, while the slow delivery is still in flight.
    await expect(send(localUrl, signed(makeEvent()))).rejects.toThrow(/ECONNREFUSED/)
    expect(closed).toBe(false)

    release.resolve()
    expect(await pending).toMatchObject({body: 'finally', status: 202})
    await closing
    expect(closed).toBe(true)
    expect(events).toHaveLength(1)
    expect(events[0].forward_status).toBe(202)
    await expect(send(`http://127.0.0.1:${port}`, signed(makeEvent()))).rejects.toThrow(/ECONNREFUSED/)
  })

  it('close() resolves at once when idle, and twice is fine', async () => {
    const l = await listen()
    await l.close()
    await l.close()
    await expect(send(l.localUrl, signed(makeEvent()))).rejects.toThrow(/ECONNREFUSED/)
  })

  it('refuses a body over the limit with 413, declared or streamed, without forwarding', async () => {
    const {localUrl} = await listen({maxBodyBytes: 1024})
    const big = makeEvent({data: {pad: 'x'.repeat(2000)}})
    const declared = await send(localUrl, signed(big))
    expect(declared.status).toBe(413)

    // Chunked: no Content-Length, so the limit is found while reading.
    const streamed = await new Promise<string>((resolve, reject) => {
      const socket = new Socket()
      let answer = ''
      socket.connect(Number(new URL(localUrl).port), '127.0.0.1', () => {
        const chunk = Buffer.from(big)
        socket.write(
          `POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\nx-service-signature: ${signPayload(SECRET, big, T)}\r\n\r\n`,
        )
        socket.write(`${chunk.length.toString(16)}\r\n`)
        socket.write(chunk)
        socket.write('\r\n0\r\n\r\n')
      })
      socket.on('data', (data) => (answer += data.toString()))
      socket.on('close', () => resolve(answer))
      socket.on('error', reject)
    })
    expect(streamed).toMatch(/^HTTP\/1\.1 413 /)

    expect(receiver.received).toHaveLength(0)
    expect(events).toHaveLength(0)
    expect(rejections.map((r) => r.reason)).toEqual(['too_large', 'too_large'])
    // A body at the limit passes.
    const fits = makeEvent({data: {pad: 'x'.repeat(1024 - makeEvent({data: {pad: ''}}).length)}})
    expect(Buffer.byteLength(fits)).toBe(1024)
    expect((await send(localUrl, signed(fits))).status).toBe(200)
  })

  it('answers 405 to other methods, on any path', async () => {
    const {localUrl} = await listen()
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const reply = await send(`${localUrl}/x`, {method})
      expect(reply.status).toBe(405)
      expect(reply.headers.allow).toBe('POST')
    }
    expect(receiver.received).toHaveLength(0)
    expect(rejections.every((r) => r.reason === 'method_not_allowed')).toBe(true)
  })

  it('answers 200 to an event it is not subscribed to, reports it as ignored and does not forward it', async () => {
    const ignored: Array<{id: string; type: string}> = []
    const {localUrl} = await listen({events: ['order.paid'], onIgnored: (e) => ignored.push(e)})
    const reply = await send(localUrl, signed(makeEvent({id: 'evt_other', type: 'order.refunded'})))
    expect(reply.status).toBe(200)
    expect(ignored).toEqual([{id: 'evt_other', type: 'order.refunded'}])
    expect(receiver.received).toHaveLength(0)
    expect(events).toHaveLength(0)
    expect((await send(localUrl, signed(makeEvent()))).status).toBe(200)
    expect(receiver.received).toHaveLength(1)
  })

  it('answers 200 without a receiver, and records the event with a null forward status', async () => {
    const {localUrl} = await listen({forwardTo: undefined})
    expect((await send(localUrl, signed(makeEvent()))).status).toBe(200)
    expect(events).toEqual([expect.objectContaining({forward_status: null, id: 'evt_1'})])
    expect(events[0]).not.toHaveProperty('forward_error')
  })

  it('answers 400 to a verified body that is not an event', async () => {
    const {localUrl} = await listen()
    for (const body of ['not json', '[]', '{"id":1,"type":"order.paid"}', '{"type":"order.paid"}']) {
      expect((await send(localUrl, signed(body))).status, body).toBe(400)
    }
    expect(rejections.every((r) => r.reason === 'not_an_event')).toBe(true)
    expect(receiver.received).toHaveLength(0)
  })

  it('with skipVerify, accepts an unsigned delivery', async () => {
    const {localUrl} = await listen({secrets: undefined, skipVerify: true})
    expect((await send(localUrl, {body: makeEvent(), headers: {'content-type': 'application/json'}})).status).toBe(200)
    expect(receiver.received).toHaveLength(1)
  })

  it('records verified deliveries in the inbox with their headers and raw body', async () => {
    const inbox = new Inbox({path: join(dir.path, 'inbox.jsonl')})
    const {localUrl} = await listen({inbox})
    const first = makeEvent({id: 'evt_a'})
    await send(localUrl, signed(first, {'X-Custom': 'A'}))
    await send(localUrl, signed(makeEvent({id: 'evt_b'})))
    const records = await inbox.listEvents()
    expect(records.map((r) => r.id)).toEqual(['evt_b', 'evt_a'])
    expect(records[1]).toMatchObject({body: first, body_encoding: 'utf8', forward_status: 200, type: 'order.paid'})
    expect(records[1].headers).toMatchObject({'x-custom': 'A', 'x-service-signature': signPayload(SECRET, first, T)})
    expect(records[1].headers).not.toHaveProperty('host')
  })

  it('needs a secret unless verification is skipped, and reports a port in use', async () => {
    await expect(startListener({})).rejects.toThrow(TypeError)
    const l = await listen()
    const error = await startListener({port: l.port, secrets: SECRET}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ListenError)
    expect(error).toMatchObject({code: 'EADDRINUSE', message: `port ${l.port} is already in use on 127.0.0.1`})
  })
})
