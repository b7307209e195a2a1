/**
 * Where a property-based run with an OpenAPI document written from the spec alone found the sandbox contradicting
 * the spec (issue 36): an item without product_id, limits in characters, integers past 15 digits, and the
 * email format of JSON Schema (RFC 5321's Mailbox). The CLI's own checks use the same rules (src/domain).
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {checkEmail, checkName, checkSearch} from '../../src/domain/validate.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'
import {call, createCustomer, createOrder, token} from '../helpers/sandbox-client.js'

let sb: TestSandbox
let t: string
beforeAll(async () => {
  sb = await startTestSandbox()
  t = await token(sb)
})
afterAll(() => sb.close())

describe('the spec, where the sandbox contradicted it', () => {
  it('an order item without product_id is accepted (it costs 0, shown without product_id), in v1 and v2', async () => {
    const customer = (await createCustomer(sb, t, `items-${process.pid}@example.com`, {send_invite: false})).body
    const v2 = await createOrder(sb, t, {currency: 'USD', customer_id: customer.id, items: [{quantity: 2}, {product_id: 1}]})
    expect(v2.status, v2.text).toBe(201)
    expect(v2.body.items[0]).toEqual({quantity: 2, unit_price: 0})
    expect(v2.body.total).toBe(v2.body.items[1].unit_price)
    const v1 = await call(sb, 'POST', '/api/v1/orders', {json: {currency: 'EUR', customer_id: customer.id, items: [{}]}, token: t})
    expect([v1.status, v1.body.total]).toEqual([201, 0])
  })

  it('limits in characters count characters: 120 emoji are a valid q, 255 a valid name; one more is refused naming the count', async () => {
    const emoji = '😀'
    const q = await call(sb, 'GET', `/api/v2/customers?q=${encodeURIComponent(emoji.repeat(120))}`, {token: t})
    expect(q.status, q.text).toBe(200)
    const tooLong = await call(sb, 'GET', `/api/v2/customers?q=${encodeURIComponent(emoji.repeat(121))}`, {token: t})
    expect([tooLong.status, tooLong.body.errors.q]).toEqual([422, ['must be at most 120 characters (got 121)']])
    const named = await createCustomer(sb, t, `emoji-${process.pid}@example.com`, {name: emoji.repeat(255), send_invite: false})
    expect(named.status, named.text).toBe(201)
    expect(checkName(emoji.repeat(255))).toBeUndefined()
    expect(checkName(emoji.repeat(256))).toBe('must be at most 255 characters (got 256)')
    expect(checkSearch(emoji.repeat(120))).toBeUndefined()
  })

  it('page and customer_id take any integer: a page past the end is empty, an id no customer has lists nothing', async () => {
    for (const page of ['1000000000000000', '99999999999999999999999'])
      expect(await call(sb, 'GET', `/api/v2/customers?page=${page}`, {token: t})).toMatchObject({body: {data: []}, status: 200})
    expect(await call(sb, 'GET', '/api/v2/orders?customer_id=1000000000000000000', {token: t})).toMatchObject({body: {data: []}, status: 200})
    const negative = await call(sb, 'GET', '/api/v2/customers?page=-99999999999999999999', {token: t})
    expect(negative.status).toBe(422)
    expect(negative.body.errors.page[0]).toMatch(/at least 1/)
  })

  it('emails follow JSON Schema format email (RFC 5321 Mailbox), in the sandbox and the CLI alike', async () => {
    const refused = ['.a@example.com', 'a..b@example.com', 'a@-example.com', 'a@example.com.', `${'x'.repeat(65)}@example.com`]
    const accepted = ['"a b"@example.com', 'a@[127.0.0.1]', `${'x'.repeat(64)}@example.com`]
    for (const email of refused) {
      expect(checkEmail(email), email).toMatch(/is not a valid email address/)
      expect((await createCustomer(sb, t, email, {name: 'E', send_invite: false})).status, email).toBe(422)
    }
    for (const email of accepted) {
      expect(checkEmail(email), email).toBeUndefined()
      expect((await createCustomer(sb, t, email, {name: 'E', send_invite: false})).status, email).toBe(201)
    }
  })
})
