import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'
import {call, createCustomer, createOrder, token} from '../helpers/sandbox-client.js'

let sb: TestSandbox
let t: string
beforeEach(async () => {
  sb = await startTestSandbox({orderLimit: {limit: 5, windowSeconds: 60}})
  t = await token(sb)
  await createCustomer(sb, t, 'ada@example.com', {send_invite: false})
  await createCustomer(sb, t, 'bob@example.com', {send_invite: false})
})
afterEach(async () => {
  await sb.close()
})

const pay = (id: number) => call(sb, 'POST', `/_sandbox/orders/${id}/pay`)
const ship = (id: number) => call(sb, 'POST', `/_sandbox/orders/${id}/ship`)

describe('POST /api/v2/orders', () => {
  it('creates a pending order priced from the catalogue, converted to the order currency', async () => {
    const usd = await createOrder(sb, t, {customer_id: 1, currency: 'USD', items: [{product_id: 1, quantity: 2}, {product_id: 3}]})
    expect(usd.status).toBe(201)
    expect(usd.body).toEqual({
      id: 1,
      customer_id: 1,
      status: 'pending',
      total: 2 * 2450 + 650,
      currency: 'USD',
      placed_at: new Date(sb.clock.now()).toISOString(),
      items: [
        {product_id: 1, quantity: 2, unit_price: 2450},
        {product_id: 3, quantity: 1, unit_price: 650},
      ],
      amount_refunded: 0,
      refunds: [],
    })
    // Product 9 costs 36.00 EUR: in GBP 3600 * 7900 / 9200 = 3091.30 -> 3091; product 16 is 33.00 GBP.
    const gbp = await createOrder(sb, t, {customer_id: 2, currency: 'GBP', items: [{product_id: 9}, {product_id: 16}]})
    expect(gbp.body.items.map((i: {unit_price: number}) => i.unit_price)).toEqual([3091, 3300])
    expect(gbp.body.total).toBe(6391)
  })

  it('replays the original order for the same key and body (201, same bytes), and never creates twice', async () => {
    const key = crypto.randomUUID()
    const body = {customer_id: 1, currency: 'USD', items: [{product_id: 1}]}
    const first = await createOrder(sb, t, body, key)
    sb.clock.advance(5_000)
    await pay(first.body.id)
    const again = await createOrder(sb, t, {items: [{product_id: 1}], currency: 'USD', customer_id: 1}, key.toUpperCase())
    expect(again.status).toBe(201)
    expect(again.text).toBe(first.text)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(sb.counts().orders).toBe(1)
  })

  it('answers 422 when a key is reused with a different body', async () => {
    const key = crypto.randomUUID()
    await createOrder(sb, t, {customer_id: 1, currency: 'USD', items: [{product_id: 1}]}, key)
    const r = await createOrder(sb, t, {customer_id: 1, currency: 'USD', items: [{product_id: 2}]}, key)
    expect(r.status).toBe(422)
    expect(r.body.errors['Idempotency-Key']).toHaveLength(1)
    expect(sb.counts().orders).toBe(1)
  })

  it('a key that failed validation can be used again once the body is fixed', async () => {
    const key = crypto.randomUUID()
    expect((await createOrder(sb, t, {customer_id: 1, currency: 'XXX', items: [{product_id: 1}]}, key)).status).toBe(422)
    expect((await createOrder(sb, t, {customer_id: 1, currency: 'USD', items: [{product_id: 1}]}, key)).status).toBe(201)
  })

  it('answers the documented 422 (errors on Idempotency-Key) without an Idempotency-Key or with one that is not a UUID', async () => {
    const body = {customer_id: 1, currency: 'USD', items: [{product_id: 1}]}
    const missing = await call(sb, 'POST', '/api/v2/orders', {json: body, token: t})
    expect(missing.status).toBe(422)
    expect(missing.body).toMatchObject({errors: {'Idempotency-Key': [expect.stringContaining('required')]}, message: expect.any(String)})
    expect((await createOrder(sb, t, body, 'not-a-uuid')).status).toBe(422)
    expect(sb.counts().orders).toBe(0)
  })

  it('answers 422 {message, errors} for invalid bodies and for what only the data can tell', async () => {
    await call(sb, 'PATCH', '/api/v2/customers/2', {json: {status: 'archived'}, token: t})
    const cases: Array<[unknown, string]> = [
      [{currency: 'USD', items: [{product_id: 1}]}, 'customer_id'],
      [{customer_id: 'one', currency: 'USD', items: [{product_id: 1}]}, 'customer_id'],
      [{customer_id: 1, items: [{product_id: 1}]}, 'currency'],
      [{customer_id: 1, currency: 'JPY', items: [{product_id: 1}]}, 'currency'],
      [{customer_id: 1, currency: 'USD', items: []}, 'items'],
      [{customer_id: 1, currency: 'USD'}, 'items'],
      [{customer_id: 1, currency: 'USD', items: [{product_id: 1, quantity: 0}]}, 'items.0.quantity'],
      [{customer_id: 1, currency: 'USD', items: [{product_id: 1}, {product_id: 999}]}, 'items.1.product_id'],
      [{customer_id: 42, currency: 'USD', items: [{product_id: 1}]}, 'customer_id'],
      [{customer_id: 2, currency: 'USD', items: [{product_id: 1}]}, 'customer_id'],
      [{customer_id: 1, currency: 'USD', items: [{product_id: 1, quantity: 9_000_000_000_000}]}, 'items'],
    ]
    const tok = await token(sb)
    for (const [json, field] of cases) {
      sb.clock.advance(60_000) // keep clear of the order limit
      const r = await createOrder(sb, tok, json as Record<string, unknown>)
      expect(r.status, JSON.stringify(json)).toBe(422)
      expect(r.body.errors[field], JSON.stringify(r.body)).toEqual([expect.any(String)])
    }
    expect(sb.counts().orders).toBe(0)
  })

  it('limits creations per key pair (v1 and v2 together): 429 with Retry-After, nothing created, free again next window', async () => {
    const body = {customer_id: 1, currency: 'USD', items: [{product_id: 1}]}
    for (let i = 0; i < 3; i++) expect((await createOrder(sb, t, body)).status).toBe(201)
    sb.clock.advance(20_000)
    const v1 = await call(sb, 'POST', '/api/v1/orders', {json: body, token: t})
    expect(v1.headers.get('ratelimit-remaining')).toBe('1')
    expect((await createOrder(sb, t, body)).status).toBe(201)
    const refused = await createOrder(sb, t, body)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('40')
    expect(refused.body).toEqual({message: expect.any(String)})
    const refusedV1 = await call(sb, 'POST', '/api/v1/orders', {json: body, token: t})
    expect(refusedV1.status).toBe(429)
    expect(sb.counts().orders).toBe(5)
    sb.clock.advance(39_999)
    expect((await createOrder(sb, t, body)).headers.get('retry-after')).toBe('1')
    sb.clock.advance(1)
    expect((await createOrder(sb, t, body)).status).toBe(201)
    expect(sb.counts().orders).toBe(6)
  })

  it('replays are not rate limited', async () => {
    const key = crypto.randomUUID()
    const body = {customer_id: 1, currency: 'USD', items: [{product_id: 1}]}
    await createOrder(sb, t, body, key)
    for (let i = 0; i < 4; i++) await createOrder(sb, t, body)
    expect((await createOrder(sb, t, body)).status).toBe(429)
    expect((await createOrder(sb, t, body, key)).status).toBe(201)
  })
})

describe('POST /api/v1/orders', () => {
  it('creates without a key, a retry creates a second order, and the header is refused (400)', async () => {
    const body = {customer_id: 1, currency: 'EUR', items: [{product_id: 10, quantity: 3}]}
    const a = await call(sb, 'POST', '/api/v1/orders', {json: body, token: t})
    const b = await call(sb, 'POST', '/api/v1/orders', {json: body, token: t})
    expect([a.status, b.status]).toEqual([201, 201])
    expect(a.body).toMatchObject({id: 1, status: 'pending', total: 4500, currency: 'EUR'})
    expect(b.body.id).toBe(2)
    const withKey = await call(sb, 'POST', '/api/v1/orders', {headers: {'idempotency-key': crypto.randomUUID()}, json: body, token: t})
    expect(withKey.status).toBe(400)
    expect(withKey.body.message).toContain('Idempotency-Key')
    expect(sb.counts().orders).toBe(2)
  })
})

describe('GET /api/{v1,v2}/orders and /api/v2/orders/{order}', () => {
  it('lists newest first in the list shape, filtered by status and customer', async () => {
    const o = [] as number[]
    for (const customer_id of [1, 2, 1, 1]) o.push((await createOrder(sb, t, {customer_id, currency: 'USD', items: [{product_id: 1}]})).body.id)
    await pay(1)
    await pay(3)
    await ship(3)
    for (const version of ['v1', 'v2']) {
      const all = await call(sb, 'GET', `/api/${version}/orders`, {token: t})
      expect(all.body.meta).toEqual({page: 1, per_page: 20, total: 4})
      expect(all.body.data.map((x: {id: number}) => x.id)).toEqual([4, 3, 2, 1])
      expect(Object.keys(all.body.data[0]).sort()).toEqual(['amount_refunded', 'currency', 'customer_id', 'id', 'placed_at', 'status', 'total'])
    }
    const ids = async (query: string) => (await call(sb, 'GET', `/api/v2/orders?${query}`, {token: t})).body.data.map((x: {id: number}) => x.id)
    expect(await ids('status=pending')).toEqual([4, 2])
    expect(await ids('status=shipped')).toEqual([3])
    expect(await ids('customer_id=1')).toEqual([4, 3, 1])
    expect(await ids('customer_id=1&status=pending')).toEqual([4])
    expect(await ids('customer_id=1&per_page=2&page=2')).toEqual([1])
    expect(await ids('customer_id=77')).toEqual([])
    for (const query of ['status=lost', 'customer_id=x', 'per_page=500']) {
      expect((await call(sb, 'GET', `/api/v2/orders?${query}`, {token: t})).status, query).toBe(422)
    }
  })

  it('GET /orders/{order} returns the full order; 404 for an unknown or malformed id; v1 has no such route', async () => {
    await createOrder(sb, t, {customer_id: 1, currency: 'USD', items: [{product_id: 5}]})
    const r = await call(sb, 'GET', '/api/v2/orders/1', {token: t})
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({id: 1, status: 'pending', total: 12900, items: [{product_id: 5, quantity: 1, unit_price: 12900}]})
    for (const id of ['2', 'x', '0']) expect((await call(sb, 'GET', `/api/v2/orders/${id}`, {token: t})).status).toBe(404)
    expect((await call(sb, 'GET', '/api/v1/orders/1', {token: t})).status).toBe(404)
  })
})

describe('POST /api/v2/orders/{order}/refunds', () => {
  it('partial then full refunds; the order becomes refunded; more is 422', async () => {
    const order = (await createOrder(sb, t, {customer_id: 1, currency: 'USD', items: [{product_id: 1, quantity: 2}]})).body
    await pay(order.id)
    const partial = await call(sb, 'POST', `/api/v2/orders/${order.id}/refunds`, {json: {amount: 1000, reason: 'damaged'}, token: t})
    expect(partial.status).toBe(201)
    expect(partial.body).toEqual({
      id: 1,
      order_id: order.id,
      amount: 1000,
      currency: 'USD',
      reason: 'damaged',
      created_at: new Date(sb.clock.now()).toISOString(),
    })
    const over = await call(sb, 'POST', `/api/v2/orders/${order.id}/refunds`, {json: {amount: 3901}, token: t})
    expect(over.status).toBe(422)
    expect(over.body.errors.amount[0]).toContain('3900')
    const rest = await call(sb, 'POST', `/api/v2/orders/${order.id}/refunds`, {token: t})
    expect(rest.status).toBe(201)
    expect(rest.body).toMatchObject({id: 2, amount: 3900, reason: null})
    const after = (await call(sb, 'GET', `/api/v2/orders/${order.id}`, {token: t})).body
    expect(after).toMatchObject({status: 'refunded', amount_refunded: 4900})
    expect(after.refunds).toHaveLength(2)
    const again = await call(sb, 'POST', `/api/v2/orders/${order.id}/refunds`, {json: {amount: 1}, token: t})
    expect(again.status).toBe(422)
    expect(again.body.errors.status).toHaveLength(1)
    expect((await call(sb, 'GET', '/api/v2/orders?status=refunded', {token: t})).body.meta.total).toBe(1)
  })

  it('refunds shipped orders; refuses pending ones, bad bodies (422) and unknown orders (404)', async () => {
    await createOrder(sb, t, {customer_id: 1, currency: 'USD', items: [{product_id: 1}]})
    await createOrder(sb, t, {customer_id: 1, currency: 'USD', items: [{product_id: 1}]})
    const pending = await call(sb, 'POST', '/api/v2/orders/1/refunds', {json: {}, token: t})
    expect(pending.status).toBe(422)
    expect(pending.body.errors.status[0]).toContain('pending')
    await pay(2)
    await ship(2)
    for (const json of [{amount: 0}, {amount: -5}, {amount: 1.5}, {reason: 7}, 'all']) {
      expect((await call(sb, 'POST', '/api/v2/orders/2/refunds', {json, token: t})).status, JSON.stringify(json)).toBe(422)
    }
    const full = await call(sb, 'POST', '/api/v2/orders/2/refunds', {json: {reason: 'returned'}, token: t})
    expect(full.body.amount).toBe(2450)
    expect((await call(sb, 'POST', '/api/v2/orders/9/refunds', {token: t})).status).toBe(404)
  })
})

describe('the Idempotency-Key of POST /api/v2/orders', () => {
  it('missing or not a UUID: the documented 422 with errors on Idempotency-Key; any RFC 4122 form is taken', async () => {
    const t = await token(sb)
    const products = await call(sb, 'GET', '/api/v2/products?per_page=1')
    const customer = await call(sb, 'POST', '/api/v2/customers', {
      json: {email: `idem-${Date.now()}@example.com`, name: 'Idem', send_invite: false},
      token: t,
    })
    const json = {
      currency: products.body.data[0].currency,
      customer_id: customer.body.id,
      items: [{product_id: products.body.data[0].id, quantity: 1}],
    }
    for (const headers of [{}, {'idempotency-key': 'not-a-uuid'}] as Array<Record<string, string>>) {
      const r = await call(sb, 'POST', '/api/v2/orders', {headers, json, token: t})
      expect(r.status).toBe(422)
      expect(Object.keys(r.body.errors ?? r.body.error?.errors ?? {})).toContain('Idempotency-Key')
    }
    const nil = await call(sb, 'POST', '/api/v2/orders', {headers: {'idempotency-key': '00000000-0000-0000-0000-000000000000'}, json, token: t})
    expect(nil.status).toBe(201)
  })
})
