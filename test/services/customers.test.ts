/**
 * The customers and orders services as a command calls them, without a process: an ApiClient against an
 * in-process sandbox (test/helpers/service-client.ts). What is sent, what comes back, and what is refused before
 * anything is sent.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {UsageError} from '../../src/errors.js'
import {createCustomer, deleteCustomer, getCustomer, listCustomers, updateCustomer} from '../../src/services/customers.js'
import {createOrder, getOrder, refundOrder} from '../../src/services/orders.js'
import {serviceFixture, type ServiceFixture} from '../helpers/service-client.js'

let fx: ServiceFixture
beforeEach(async () => {
  fx = await serviceFixture()
})
afterEach(async () => {
  await fx.close()
})

async function all<T>(records: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const r of records) out.push(r)
  return out
}

describe('customers service', () => {
  it('creates, reads, updates, searches and deletes a customer', async () => {
    const created = await createCustomer(fx.client, {email: 'ada@example.com', metadata: {plan: 'gold'}, name: 'Ada', send_invite: false}, 'v2')
    expect(created).toMatchObject({email: 'ada@example.com', metadata: {plan: 'gold'}, name: 'Ada'})
    const id = created.id
    expect(await getCustomer(fx.client, id, {version: 'v2'})).toMatchObject({id})
    expect(await updateCustomer(fx.client, id, {name: 'Ada L.'})).toMatchObject({id, name: 'Ada L.'})
    const found = await all(listCustomers(fx.client, {search: 'ada@', version: 'v2'}).records)
    expect(found.map((c) => c.id)).toEqual([id])
    expect(await deleteCustomer(fx.client, id)).toEqual({deleted: true, id})
  })

  it('refuses invalid input before anything is sent, naming every field', async () => {
    fx.sent.length = 0
    const error = await createCustomer(fx.client, {email: 'not-an-email', name: ''}, 'v2').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageError)
    expect(Object.keys((error as UsageError).fieldErrors ?? {}).sort()).toEqual(['email', 'name'])
    expect(fx.sent).toEqual([])
  })

  it('a v2-only option with v1 is refused before any request, naming the option for the command to spell', () => {
    fx.sent.length = 0
    expect(() => listCustomers(fx.client, {search: 'x', version: 'v1'})).toThrow(/^search is only available in API v2/)
    expect(fx.sent).toEqual([])
  })

  it('lists every page with `all`, asking for pages of 100', async () => {
    for (let i = 0; i < 3; i++) await createCustomer(fx.client, {email: `c${i}@example.com`, name: `C${i}`, send_invite: false}, 'v2')
    fx.sent.length = 0
    const listed = listCustomers(fx.client, {all: true, version: 'v2'})
    expect(await all(listed.records)).toHaveLength(3)
    expect(fx.sent).toEqual(['GET /api/v2/customers?page=1&per_page=100'])
    expect(listed.position()).toMatchObject({first: 1, shown: 3, total: 3})
  })
})

describe('orders service', () => {
  it('creates an order once per idempotency key, and refunds part of it', async () => {
    const customer = await createCustomer(fx.client, {email: 'o@example.com', name: 'O', send_invite: false}, 'v2')
    const input = {currency: 'EUR' as const, customer_id: customer.id, items: [{product_id: 1, quantity: 2}]}
    const keys: string[] = []
    const first = await createOrder(fx.client, input, {onKey: (k) => keys.push(k), version: 'v2'})
    const again = await createOrder(fx.client, input, {idempotencyKey: first.idempotencyKey, version: 'v2'})
    expect(again.order.id).toBe(first.order.id)
    expect(keys).toEqual([first.idempotencyKey])
    // A pending order cannot be refunded: the service refuses (its status is the spec's gap), and the service's
    // error is passed on as usage (exit 2) with its status.
    await expect(refundOrder(fx.client, first.order.id, {amount: 1})).rejects.toMatchObject({exitCode: 2})
    const paid = await fetch(`${fx.sb.baseUrl}/_sandbox/events`, {
      body: JSON.stringify({order_id: first.order.id, type: 'order.paid'}),
      headers: {'content-type': 'application/json'},
      method: 'POST',
    })
    expect(paid.status).toBe(200)
    const refund = await refundOrder(fx.client, first.order.id, {amount: 100, reason: 'damaged'})
    expect(refund).toMatchObject({amount: 100})
    expect(await getOrder(fx.client, first.order.id)).toMatchObject({amount_refunded: 100, status: 'paid'})
  })

  it('refuses a malformed idempotency key before sending', async () => {
    fx.sent.length = 0
    const error = await createOrder(
      fx.client,
      {currency: 'EUR', customer_id: 1, items: [{product_id: 1}]},
      {idempotencyKey: 'nope', version: 'v2'},
    ).catch((e: unknown) => e)
    expect((error as UsageError).fieldErrors).toHaveProperty(['Idempotency-Key'])
    expect(fx.sent).toEqual([])
  })
})
