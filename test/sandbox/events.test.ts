/**
 * Every event the sandbox sends is delivered, signed, when its change happens through the API or the control
 * path; `POST /_sandbox/events` fires any of them, with payload overrides that are checked.
 */
import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {verifySignature} from '../../src/domain/signature.js'
import {SANDBOX_EVENTS} from '../../src/sandbox/decisions.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'
import {call, createCustomer, createOrder, token} from '../helpers/sandbox-client.js'

let sb: TestSandbox
let t: string
let server: Server
let received: Array<{headers: IncomingHttpHeaders; body: string}>
let secret: string

beforeEach(async () => {
  sb = await startTestSandbox()
  t = await token(sb)
  received = []
  server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8').on('data', (d: string) => (body += d))
    req.on('end', () => {
      received.push({body, headers: req.headers})
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
  const r = await call(sb, 'POST', '/api/v2/webhooks', {json: {url, events: [...SANDBOX_EVENTS]}, token: t})
  expect(r.status).toBe(201)
  secret = r.body.signing_secret
})
afterEach(async () => {
  await sb.close()
  await new Promise((resolve) => server.close(resolve))
})

async function events(): Promise<Array<{type: string; data: any}>> {
  await sb.deliveriesSettled()
  return received.map(({body, headers}) => {
    expect(verifySignature(secret, headers['x-service-signature'] as string, body).valid).toBe(true)
    const e = JSON.parse(body)
    expect(headers['x-service-event-id']).toBe(e.id)
    return {data: e.data, type: e.type}
  })
}

describe('events', () => {
  it('each is delivered, signed, when its change happens', async () => {
    const c = (await createCustomer(sb, t, 'ada@example.com', {send_invite: false})).body
    await call(sb, 'PATCH', `/api/v2/customers/${c.id}`, {json: {name: 'Ada L'}, token: t})
    const o = (await createOrder(sb, t, {customer_id: c.id, currency: 'USD', items: [{product_id: 1}]})).body
    await call(sb, 'POST', `/_sandbox/orders/${o.id}/pay`)
    await call(sb, 'POST', `/_sandbox/orders/${o.id}/ship`)
    await call(sb, 'POST', `/api/v2/orders/${o.id}/refunds`, {json: {amount: 100}, token: t})
    await call(sb, 'DELETE', `/api/v2/customers/${c.id}`, {token: t})
    const got = await events()
    expect(got.map((e) => e.type)).toEqual([
      'customer.created',
      'customer.updated',
      'order.created',
      'order.paid',
      'order.shipped',
      'order.refunded',
      'customer.deleted',
    ])
    expect(got[1].data).toMatchObject({id: c.id, name: 'Ada L'})
    expect(got[2].data).toEqual(o)
    expect(got[5].data).toMatchObject({id: o.id, status: 'shipped', amount_refunded: 100})
    expect(got[6].data).toMatchObject({id: c.id, email: 'ada@example.com'})
  })

  it('registration accepts the sandbox events and refuses other names (422)', async () => {
    const r = await call(sb, 'POST', '/api/v2/webhooks', {json: {url: 'https://h.example.com/x', events: ['order.paid', 'order.nope']}, token: t})
    expect(r.status).toBe(422)
    expect(r.body.errors.events[0]).toMatch(/order\.nope/)
  })
})

describe('POST /_sandbox/events', () => {
  it('fires every event type, creating what it needs and saying so', async () => {
    for (const type of SANDBOX_EVENTS) {
      const r = await call(sb, 'POST', '/_sandbox/events', {json: {type}})
      expect(r.status, `${type}: ${r.text}`).toBe(200)
      expect(r.body).toMatchObject({type, event_id: expect.stringMatching(/^evt_/), endpoints: 1, created: expect.any(Object)})
    }
    const types = (await events()).map((e) => e.type)
    for (const type of SANDBOX_EVENTS) expect(types).toContain(type)
    // Order events reuse one sandbox customer.
    const again = await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid'}})
    expect(again.body.created).toEqual({order: again.body.order.id})
    expect(again.body.customer.email).toBe('sandbox-trigger@example.com')
  })

  it('set overrides the delivered payload only; the stored order is unchanged', async () => {
    const r = await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid', set: {'data.total': 1}}})
    expect(r.status).toBe(200)
    const paid = (await events()).find((e) => e.type === 'order.paid')!
    expect(paid.data.total).toBe(1)
    const stored = (await call(sb, 'GET', `/api/v2/orders/${r.body.order.id}`, {token: t})).body
    expect(stored.total).not.toBe(1)
    expect(stored.total).toBe(r.body.order.total)
  })

  it('an override naming a field the payload lacks is 422: nothing fired, nothing changed', async () => {
    const before = sb.counts()
    for (const set of [{'data.nope': 1}, {total: 1}, {'data.items.0': 1}]) {
      const r = await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid', set}})
      expect(r.status).toBe(422)
      expect(r.body.errors.set[0]).toMatch(/no such field/)
    }
    const c = (await createCustomer(sb, t, 'x@example.com')).body
    await sb.deliveriesSettled()
    received.length = 0
    const r = await call(sb, 'POST', '/_sandbox/events', {json: {type: 'customer.deleted', customer_id: c.id, set: {'data.total': 5}}})
    expect(r.status).toBe(422)
    expect((await call(sb, 'GET', `/api/v2/customers/${c.id}`, {token: t})).status).toBe(200)
    expect(await events()).toEqual([])
    expect(sb.counts()).toMatchObject({customers: before.customers + 1, orders: before.orders})
  })

  it('a named order must be able to take the change (409, unchanged)', async () => {
    const c = (await createCustomer(sb, t, 'ada@example.com')).body
    const o = (await createOrder(sb, t, {customer_id: c.id, currency: 'USD', items: [{product_id: 1}]})).body
    expect((await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.shipped', order_id: o.id}})).status).toBe(409)
    expect((await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.refunded', order_id: o.id}})).status).toBe(409)
    expect((await call(sb, 'POST', '/_sandbox/events', {json: {type: 'customer.updated', order_id: o.id}})).status).toBe(422)
    expect((await call(sb, 'GET', `/api/v2/orders/${o.id}`, {token: t})).body.status).toBe('pending')
  })
})
