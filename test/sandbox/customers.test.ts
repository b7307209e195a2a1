import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'
import {call, createCustomer, createOrder, token} from '../helpers/sandbox-client.js'

let sb: TestSandbox
let t: string
beforeEach(async () => {
  sb = await startTestSandbox({v1CustomersLimit: {limit: 3, windowSeconds: 60}})
  t = await token(sb)
})
afterEach(async () => {
  await sb.close()
})

async function seed(n: number): Promise<void> {
  for (let i = 1; i <= n; i++) {
    const r = await createCustomer(sb, t, `user${i}@example.com`, {name: `User ${i}`, send_invite: i % 2 === 0})
    expect(r.status).toBe(201)
  }
}

describe('POST /api/{v1,v2}/customers', () => {
  it.each(['v1', 'v2'])('%s creates a customer: invited by default, active without an invitation', async (version) => {
    const invited = await call(sb, 'POST', `/api/${version}/customers`, {
      json: {email: 'ada@example.com', name: 'Ada', metadata: {plan: 'pro', seats: 3}},
      token: t,
    })
    expect(invited.status).toBe(201)
    expect(invited.body).toEqual({
      id: 1,
      email: 'ada@example.com',
      name: 'Ada',
      status: 'invited',
      created_at: new Date(sb.clock.now()).toISOString(),
      metadata: {plan: 'pro', seats: 3},
    })
    const active = await call(sb, 'POST', `/api/${version}/customers`, {json: {email: 'bob@example.com', name: 'Bob', send_invite: false}, token: t})
    expect(active.body).toMatchObject({id: 2, status: 'active', metadata: {}})
  })

  it('answers 422 {message, errors} for invalid fields and for a taken email (case-insensitive)', async () => {
    await seed(1)
    const cases: Array<[unknown, string]> = [
      [{email: 'USER1@example.com', name: 'Dup'}, 'email'],
      [{email: 'not-an-email', name: 'X'}, 'email'],
      [{name: 'X'}, 'email'],
      [{email: 'x@example.com'}, 'name'],
      [{email: 'x@example.com', name: 'n'.repeat(256)}, 'name'],
      [{email: 'x@example.com', name: 'X', send_invite: 'yes'}, 'send_invite'],
      [{email: 'x@example.com', name: 'X', metadata: {plan: 3}}, 'metadata.plan'],
      [{email: 'x@example.com', name: 'X', metadata: []}, 'metadata'],
      ['just a string', 'body'],
    ]
    for (const [json, field] of cases) {
      const r = await call(sb, 'POST', '/api/v2/customers', {json, token: t})
      expect(r.status, JSON.stringify(json)).toBe(422)
      expect(r.body.message).toEqual(expect.any(String))
      expect(r.body.errors[field], JSON.stringify(r.body)).toEqual([expect.any(String)])
    }
    expect(sb.counts().customers).toBe(1)
  })
})

describe('GET /api/{v1,v2}/customers', () => {
  it('pages newest first with the envelope; default per_page 20; past the end is empty', async () => {
    await seed(25)
    const first = await call(sb, 'GET', '/api/v2/customers', {token: t})
    expect(first.status).toBe(200)
    expect(first.body.meta).toEqual({page: 1, per_page: 20, total: 25})
    expect(first.body.data.map((c: {id: number}) => c.id)).toEqual(Array.from({length: 20}, (_, i) => 25 - i))
    const second = await call(sb, 'GET', '/api/v1/customers?page=2&per_page=20', {token: t})
    expect(second.body.data.map((c: {id: number}) => c.id)).toEqual([5, 4, 3, 2, 1])
    const past = await call(sb, 'GET', '/api/v2/customers?page=9&per_page=10', {token: t})
    expect(past.body).toEqual({data: [], meta: {page: 9, per_page: 10, total: 25}})
  })

  it('filters by status from its index, and by q (v2 only) over name and email', async () => {
    await seed(6)
    const active = await call(sb, 'GET', '/api/v2/customers?status=active&per_page=2', {token: t})
    expect(active.body.meta.total).toBe(3)
    expect(active.body.data.map((c: {id: number}) => c.id)).toEqual([5, 3])
    const byName = await call(sb, 'GET', '/api/v2/customers?q=USER%205', {token: t})
    expect(byName.body.data.map((c: {id: number}) => c.id)).toEqual([5])
    const both = await call(sb, 'GET', '/api/v2/customers?q=example.com&status=invited', {token: t})
    expect(both.body.meta.total).toBe(3)
    const v1 = await call(sb, 'GET', '/api/v1/customers?q=USER%205', {token: t})
    expect(v1.body.meta.total).toBe(6)
  })

  it('answers 422 for per_page outside 1-100, a bad page, an unknown status or q over 120 characters', async () => {
    for (const query of ['per_page=0', 'per_page=101', 'per_page=abc', 'page=0', 'page=-1', 'status=gone', `q=${'x'.repeat(121)}`]) {
      const r = await call(sb, 'GET', `/api/v2/customers?${query}`, {token: t})
      expect(r.status, query).toBe(422)
      expect(Object.keys(r.body.errors)).toHaveLength(1)
    }
    const r = await call(sb, 'GET', '/api/v2/customers?per_page=101', {token: t})
    expect(r.body.errors.per_page[0]).toMatch(/1 to 100/)
  })

  it('v1 lists are limited per key pair, with Retry-After until the window frees', async () => {
    for (let i = 0; i < 3; i++) expect((await call(sb, 'GET', '/api/v1/customers', {token: t})).status).toBe(200)
    sb.clock.advance(15_500)
    const limited = await call(sb, 'GET', '/api/v1/customers', {token: t})
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('45')
    expect(limited.body).toEqual({message: expect.stringContaining('45')})
    expect((await call(sb, 'GET', '/api/v2/customers', {token: t})).status).toBe(200)
    const otherKey = await token(sb, 1)
    expect((await call(sb, 'GET', '/api/v1/customers', {token: otherKey})).status).toBe(200)
    sb.clock.advance(44_500)
    expect((await call(sb, 'GET', '/api/v1/customers', {token: t})).status).toBe(200)
  })
})

describe('GET /api/{v1,v2}/customers/{customer}', () => {
  it('returns the customer, 404 for an unknown or malformed id', async () => {
    await seed(2)
    for (const version of ['v1', 'v2']) {
      const r = await call(sb, 'GET', `/api/${version}/customers/2`, {token: t})
      expect(r.status).toBe(200)
      expect(r.body).toMatchObject({id: 2, email: 'user2@example.com', status: 'invited'})
      for (const id of ['3', '0', 'abc', '1.5', '-1', '01']) {
        const missing = await call(sb, 'GET', `/api/${version}/customers/${id}`, {token: t})
        expect(missing.status, id).toBe(404)
        expect(missing.body).toEqual({message: expect.any(String)})
      }
    }
  })

  it("include=orders embeds the customer's orders newest first; include=addresses an array; others 422", async () => {
    await seed(2)
    await createOrder(sb, t, {customer_id: 1, currency: 'USD', items: [{product_id: 1}]})
    await createOrder(sb, t, {customer_id: 2, currency: 'USD', items: [{product_id: 1}]})
    await createOrder(sb, t, {customer_id: 1, currency: 'EUR', items: [{product_id: 2, quantity: 2}]})
    const withOrders = await call(sb, 'GET', '/api/v2/customers/1?include=orders', {token: t})
    expect(withOrders.body.orders.map((o: {id: number}) => o.id)).toEqual([3, 1])
    expect(Object.keys(withOrders.body.orders[0]).sort()).toEqual([
      'amount_refunded',
      'currency',
      'customer_id',
      'id',
      'placed_at',
      'status',
      'total',
    ])
    const withAddresses = await call(sb, 'GET', '/api/v1/customers/1?include=addresses', {token: t})
    expect(withAddresses.body.addresses).toEqual([])
    const bad = await call(sb, 'GET', '/api/v2/customers/1?include=friends', {token: t})
    expect(bad.status).toBe(422)
    expect(bad.body.errors.include).toHaveLength(1)
  })
})

describe('PATCH /api/v2/customers/{customer}', () => {
  it('updates fields, merges metadata and moves the customer between status indexes', async () => {
    await seed(2)
    await call(sb, 'PATCH', '/api/v2/customers/1', {json: {metadata: {plan: 'free', seats: 1}}, token: t})
    const r = await call(sb, 'PATCH', '/api/v2/customers/1', {
      json: {email: 'new@example.com', name: 'New Name', status: 'archived', metadata: {plan: 'pro'}},
      token: t,
    })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({id: 1, email: 'new@example.com', name: 'New Name', status: 'archived', metadata: {plan: 'pro', seats: 1}})
    const archived = await call(sb, 'GET', '/api/v2/customers?status=archived', {token: t})
    expect(archived.body.data.map((c: {id: number}) => c.id)).toEqual([1])
    const active = await call(sb, 'GET', '/api/v2/customers?status=active', {token: t})
    expect(active.body.meta.total).toBe(0)
    expect((await createCustomer(sb, t, 'user1@example.com')).status).toBe(201)
  })

  it('answers 422 for a taken email, an empty or invalid body; 404 for an unknown customer', async () => {
    await seed(2)
    const taken = await call(sb, 'PATCH', '/api/v2/customers/1', {json: {email: 'User2@example.com'}, token: t})
    expect(taken.status).toBe(422)
    expect(taken.body.errors.email).toEqual(['has already been taken'])
    const own = await call(sb, 'PATCH', '/api/v2/customers/1', {json: {email: 'USER1@example.com'}, token: t})
    expect(own.status).toBe(200)
    for (const json of [{}, {status: 'deleted'}, {name: ''}, {email: 'nope'}]) {
      expect((await call(sb, 'PATCH', '/api/v2/customers/1', {json, token: t})).status, JSON.stringify(json)).toBe(422)
    }
    expect((await call(sb, 'PATCH', '/api/v2/customers/99', {json: {name: 'X'}, token: t})).status).toBe(404)
  })
})

describe('DELETE /api/v2/customers/{customer}', () => {
  it('answers 204, then 404; the email becomes free; v1 has no such route', async () => {
    await seed(2)
    const r = await call(sb, 'DELETE', '/api/v2/customers/1', {token: t})
    expect(r.status).toBe(204)
    expect(r.text).toBe('')
    expect((await call(sb, 'GET', '/api/v2/customers/1', {token: t})).status).toBe(404)
    expect((await call(sb, 'DELETE', '/api/v2/customers/1', {token: t})).status).toBe(404)
    expect((await call(sb, 'GET', '/api/v2/customers', {token: t})).body.meta.total).toBe(1)
    expect((await createCustomer(sb, t, 'user1@example.com')).status).toBe(201)
    const v1 = await call(sb, 'DELETE', '/api/v1/customers/2', {token: t})
    expect(v1.status).toBe(405)
    expect(v1.headers.get('allow')).toBe('GET')
  })
})
