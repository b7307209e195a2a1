import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'

import {verifySignature} from '../../src/domain/signature.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'
import {call, createCustomer, createOrder, token} from '../helpers/sandbox-client.js'

interface Received {
  headers: IncomingHttpHeaders
  body: string
}

/** A webhook receiver on loopback answering `statuses` in turn (then 200). */
async function receiver(statuses: number[] = []): Promise<{url: string; received: Received[]; server: Server}> {
  const received: Received[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8').on('data', (d: string) => (body += d))
    req.on('end', () => {
      received.push({body, headers: req.headers})
      res.writeHead(statuses.shift() ?? 200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {received, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`}
}

let sb: TestSandbox
let t: string
const servers: Server[] = []
beforeEach(async () => {
  sb = await startTestSandbox()
  t = await token(sb)
})
afterEach(async () => {
  await sb.close()
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))))
})

async function register(url: string, events = ['order.paid']) {
  return call(sb, 'POST', '/api/v2/webhooks', {json: {url, events}, token: t})
}

describe('POST /api/v2/webhooks', () => {
  it('registers HTTPS and loopback http URLs, returning the signing secret once', async () => {
    const r = await register('https://hooks.example.com/commerce', ['order.paid', 'order.paid'])
    expect(r.status).toBe(201)
    expect(r.body).toEqual({
      id: expect.stringMatching(/^we_/),
      url: 'https://hooks.example.com/commerce',
      events: ['order.paid'],
      created_at: new Date(sb.clock.now()).toISOString(),
      signing_secret: expect.stringMatching(/^whsec_\w{32,}$/),
    })
    for (const url of ['http://127.0.0.1:9/x', 'http://localhost:8080/', 'http://[::1]:3000/hook']) {
      expect((await register(url)).status, url).toBe(201)
    }
  })

  it('answers 422 for a non-HTTPS URL, a bad URL, no event or an unknown event', async () => {
    const cases: Array<[unknown, string]> = [
      [{url: 'http://hooks.example.com/x', events: ['order.paid']}, 'url'],
      [{url: 'not a url', events: ['order.paid']}, 'url'],
      [{events: ['order.paid']}, 'url'],
      [{url: 'https://h.example.com', events: []}, 'events'],
      [{url: 'https://h.example.com'}, 'events'],
      [{url: 'https://h.example.com', events: ['order.lost']}, 'events'],
    ]
    for (const [json, field] of cases) {
      const r = await call(sb, 'POST', '/api/v2/webhooks', {json, token: t})
      expect(r.status, JSON.stringify(json)).toBe(422)
      expect(r.body.errors[field]).toHaveLength(1)
    }
    expect(sb.counts().webhooks).toBe(0)
  })
})

describe('GET /api/v2/webhooks', () => {
  it('lists every endpoint newest first, without signing secrets', async () => {
    expect((await call(sb, 'GET', '/api/v2/webhooks', {token: t})).body).toEqual({data: [], meta: {page: 1, per_page: 1, total: 0}})
    await register('https://a.example.com/')
    await register('https://b.example.com/')
    const r = await call(sb, 'GET', '/api/v2/webhooks', {token: t})
    expect(r.status).toBe(200)
    expect(r.body.meta).toEqual({page: 1, per_page: 2, total: 2})
    expect(r.body.data.map((w: {url: string}) => w.url)).toEqual(['https://b.example.com/', 'https://a.example.com/'])
    expect(Object.keys(r.body.data[0])).toEqual(['id', 'url', 'events', 'created_at'])
    expect(r.text).not.toContain('whsec_')
  })
})

describe('order.paid deliveries', () => {
  it('paying through the control path POSTs a signed event to each subscribed endpoint', async () => {
    const a = await receiver()
    const b = await receiver()
    servers.push(a.server, b.server)
    const secretA = (await register(a.url)).body.signing_secret as string
    const secretB = (await register(b.url)).body.signing_secret as string
    await createCustomer(sb, t, 'ada@example.com', {send_invite: false})
    const order = (await createOrder(sb, t, {customer_id: 1, currency: 'USD', items: [{product_id: 1}]})).body
    const paid = await call(sb, 'POST', `/_sandbox/orders/${order.id}/pay`)
    expect(paid.status).toBe(200)
    expect(paid.body).toMatchObject({order: {id: order.id, status: 'paid'}, event_id: expect.stringMatching(/^evt_/), endpoints: 2})
    await sb.deliveriesSettled()
    for (const [r, secret] of [
      [a, secretA],
      [b, secretB],
    ] as const) {
      expect(r.received).toHaveLength(1)
      const {body, headers} = r.received[0]
      expect(verifySignature(secret, headers['x-service-signature'] as string, body)).toEqual({
        reason: null,
        timestamp: expect.any(Number),
        valid: true,
      })
      expect(verifySignature(secretA === secret ? secretB : secretA, headers['x-service-signature'] as string, body).valid).toBe(false)
      expect(headers['content-type']).toBe('application/json')
      expect(headers['user-agent']).toMatch(/^commerce-sandbox\//)
      expect(headers['x-service-event-id']).toBe(paid.body.event_id)
      expect(JSON.parse(body)).toEqual({
        id: paid.body.event_id,
        type: 'order.paid',
        created_at: new Date(sb.clock.now()).toISOString(),
        data: {...order, status: 'paid'},
      })
    }
    expect(sb.deliveries().map((d) => d.outcome)).toEqual(['delivered', 'delivered'])
  })

  it('retries a failing receiver per the schedule, signing each attempt afresh', async () => {
    const r = await receiver([500, 503])
    servers.push(r.server)
    const secret = (await register(r.url)).body.signing_secret as string
    const paid = await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid'}})
    expect(paid.status).toBe(200)
    await sb.deliveriesSettled()
    expect(r.received).toHaveLength(3)
    expect(new Set(r.received.map((x) => x.body)).size).toBe(1)
    for (const x of r.received) expect(verifySignature(secret, x.headers['x-service-signature'] as string, x.body).valid).toBe(true)
    const log = (await call(sb, 'GET', '/_sandbox/deliveries')).body.data
    expect(log.map((d: {attempt: number; status: number; outcome: string}) => [d.attempt, d.status, d.outcome])).toEqual([
      [3, 200, 'delivered'],
      [2, 503, 'retrying'],
      [1, 500, 'retrying'],
    ])
    expect(log[2]).toMatchObject({event_id: paid.body.event_id, url: r.url, next_attempt_in_ms: 20, error: 'HTTP 500'})
  })

  it('gives up after the last retry, logging network errors', async () => {
    const r = await receiver()
    servers.push(r.server)
    await new Promise((resolve) => r.server.close(resolve)) // nothing listens there any more
    await register(r.url)
    await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid'}})
    await sb.deliveriesSettled()
    const log = sb.deliveries()
    expect(log.map((d) => d.outcome)).toEqual(['retrying', 'retrying', 'failed'])
    expect(log.every((d) => d.status === null && /ECONNREFUSED/.test(d.error ?? ''))).toBe(true)
  })

  it('stops retrying an endpoint that has refused every connection for 10 minutes: its deliveries are abandoned', async () => {
    const r = await receiver()
    servers.push(r.server)
    await new Promise((resolve) => r.server.close(resolve)) // a listen that has ended: the port refuses
    await register(r.url)
    await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid'}})
    await sb.deliveriesSettled()
    expect(sb.deliveries().map((d) => d.outcome)).toEqual(['retrying', 'retrying', 'failed'])
    sb.clock.advance(10 * 60_000) // still refusing, 10 minutes on (the sandbox's clock)
    await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid'}})
    await sb.deliveriesSettled()
    const later = sb.deliveries().slice(3)
    expect(later).toHaveLength(1) // one attempt, no retries
    expect(later[0]).toMatchObject({next_attempt_in_ms: null, outcome: 'abandoned', status: null})
    expect(later[0].error).toMatch(/ECONNREFUSED.*refused for 10 minutes: not retried/)
  })

  it('a reset or a snapshot restored abandons the deliveries of the state it replaced: no retry of them reaches the receiver afterwards', async () => {
    for (const replace of ['reset', 'restore'] as const) {
      await sb.close()
      sb = await startTestSandbox({retryDelaysMs: [300, 300]})
      t = await token(sb)
      const r = await receiver([500, 500, 500])
      servers.push(r.server)
      if (replace === 'restore') expect((await call(sb, 'POST', '/_sandbox/snapshots', {json: {name: 'empty'}})).status).toBe(201)
      await register(r.url)
      await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid'}})
      await vi.waitFor(() => expect(r.received).toHaveLength(1))
      const replaced = replace === 'reset' ? await call(sb, 'POST', '/_sandbox/reset') : await call(sb, 'POST', '/_sandbox/snapshots/empty/restore')
      expect(replaced.status).toBe(200)
      expect((await call(sb, 'GET', '/_sandbox')).body.counts.pending_deliveries).toBe(0)
      await new Promise((resolve) => setTimeout(resolve, 900)) // past both retries' delays
      expect(r.received, replace).toHaveLength(1)
      expect(sb.deliveries().at(-1)).toMatchObject({outcome: 'abandoned', status: null})
      expect(sb.deliveries().at(-1)!.error).toMatch(replace === 'reset' ? /the sandbox was reset/ : /snapshot empty was restored/)
    }
  })

  it('does not block requests on a slow receiver, and close() abandons pending deliveries at once', async () => {
    const hanging = createServer(() => {}) // never answers
    servers.push(hanging)
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve))
    await register(`http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`)
    const started = Date.now()
    const paid = await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid'}})
    expect(paid.status).toBe(200)
    expect((await call(sb, 'GET', '/_sandbox')).body.counts.pending_deliveries).toBe(1)
    await sb.close()
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(sb.deliveries().at(-1)).toMatchObject({outcome: 'abandoned', status: null})
    hanging.closeAllConnections()
  })
})

describe('control path /_sandbox', () => {
  it('describes itself and its routes', async () => {
    const r = await call(sb, 'GET', '/_sandbox')
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({service: 'commerce sandbox', base_url: sb.baseUrl, counts: {customers: 0, products: 24}})
    expect(r.body.routes.map((x: {method: string; path: string}) => `${x.method} ${x.path}`)).toEqual([
      'GET /_sandbox',
      'POST /_sandbox/orders/{id}/pay',
      'POST /_sandbox/orders/{id}/ship',
      'POST /_sandbox/events',
      'GET /_sandbox/deliveries',
      'GET /_sandbox/logs',
      'POST /_sandbox/faults',
      'GET /_sandbox/faults',
      'DELETE /_sandbox/faults',
      'GET /_sandbox/data',
      'GET /_sandbox/webhooks/{id}/secret',
      'GET /_sandbox/sales',
      'GET /_sandbox/ui',
      'POST /_sandbox/seed',
      'POST /_sandbox/reset',
      'POST /_sandbox/snapshots',
      'GET /_sandbox/snapshots',
      'POST /_sandbox/snapshots/{name}/restore',
      'DELETE /_sandbox/snapshots/{name}',
    ])
  })

  it('pays and ships orders in order only (409 otherwise), 404 for unknown ones', async () => {
    await createCustomer(sb, t, 'ada@example.com', {send_invite: false})
    await createOrder(sb, t, {customer_id: 1, currency: 'USD', items: [{product_id: 1}]})
    expect((await call(sb, 'POST', '/_sandbox/orders/1/ship')).status).toBe(409)
    expect((await call(sb, 'POST', '/_sandbox/orders/1/pay')).status).toBe(200)
    const twice = await call(sb, 'POST', '/_sandbox/orders/1/pay')
    expect(twice.status).toBe(409)
    expect(twice.body.message).toContain('paid')
    const shipped = await call(sb, 'POST', '/_sandbox/orders/1/ship')
    expect(shipped.body.order.status).toBe('shipped')
    expect((await call(sb, 'POST', '/_sandbox/orders/2/pay')).status).toBe(404)
    expect((await call(sb, 'GET', '/_sandbox/orders/1/pay')).status).toBe(405)
  })

  it('events: pays a named order, or a new one for a sandbox customer; validates the body', async () => {
    await createCustomer(sb, t, 'ada@example.com', {send_invite: false})
    await createOrder(sb, t, {customer_id: 1, currency: 'USD', items: [{product_id: 1}]})
    const named = await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid', order_id: 1}})
    expect(named.body.order).toMatchObject({id: 1, status: 'paid'})
    const fresh = await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid'}})
    const again = await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid'}})
    expect(fresh.body.order).toMatchObject({id: 2, status: 'paid'})
    expect(again.body.order.customer_id).toBe(fresh.body.order.customer_id)
    expect(sb.counts()).toMatchObject({customers: 2, orders: 3})
    expect((await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid', order_id: 1}})).status).toBe(409)
    expect((await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid', order_id: 50}})).status).toBe(404)
    expect((await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.nope'}})).status).toBe(422)
    expect((await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid', order_id: 'one'}})).status).toBe(422)
    expect((await call(sb, 'POST', '/_sandbox/events')).status).toBe(422)
  })
})
