/**
 * What the API routes and the control routes share: the store, tokens, limiters, deliveries and clock, and
 * the two business actions both sides perform (placing an order, paying one).
 */
import {randomBytes} from 'node:crypto'

import type {Currency} from '../domain/schema.js'
import type {WebhookEvent} from '../domain/signature.js'
import type {FieldErrors} from '../domain/validate.js'
import {DEFAULT_QUANTITY} from './decisions.js'
import type {Deliveries} from './deliveries.js'
import {HttpError, validationError} from './http.js'
import type {RateLimiter} from './rate-limit.js'
import {priced, product} from './seed.js'
import type {OrderLine, OrderRecord, Store} from './store.js'
import type {Tokens} from './tokens.js'
import {orderView} from './views.js'

export interface Core {
  store: Store
  tokens: Tokens
  deliveries: Deliveries
  limits: {orders: RateLimiter; v1Customers: RateLimiter; v1Products: RateLimiter}
  now: () => number
}

export function isoNow(core: Core): string {
  return new Date(core.now()).toISOString()
}

export function randomId(prefix: string, bytes = 12): string {
  return `${prefix}${randomBytes(bytes).toString('hex')}`
}

export interface OrderInput {
  customer_id: number
  currency: Currency
  items: Array<{product_id?: number; quantity?: number}>
}

/** Places an order from an input that passed `validateOrderCreate`; 422 on what only the data can tell. */
export function placeOrder(core: Core, input: OrderInput): OrderRecord {
  const errors: FieldErrors = {}
  const customer = core.store.customer(input.customer_id)
  if (!customer) errors.customer_id = [`no customer has id ${input.customer_id}`]
  else if (customer.status === 'archived') errors.customer_id = [`customer ${input.customer_id} is archived`]
  const items: OrderLine[] = []
  input.items.forEach((item, i) => {
    const p = item.product_id === undefined ? undefined : product(item.product_id)
    if (item.product_id === undefined) errors[`items.${i}.product_id`] = ['is required by the sandbox (prices come from the catalogue)']
    else if (!p) errors[`items.${i}.product_id`] = [`no product has id ${item.product_id}`]
    else items.push({product_id: p.id, quantity: item.quantity ?? DEFAULT_QUANTITY, unit_price: priced(p, input.currency).price})
  })
  const total = items.reduce((sum, it) => sum + it.unit_price * it.quantity, 0)
  if (!Number.isSafeInteger(total)) errors.items = ['the order total is too large']
  if (Object.keys(errors).length > 0) throw validationError(errors)
  return core.store.addOrder({
    amount_refunded: 0,
    currency: input.currency,
    customer_id: input.customer_id,
    items,
    placed_at: isoNow(core),
    refunds: [],
    status: 'pending',
    total,
  })
}

/** pending -> paid, then `order.paid` to every subscribed endpoint (in the background). */
export function payOrder(core: Core, order: OrderRecord): {event: WebhookEvent; endpoints: number} {
  if (order.status !== 'pending') throw new HttpError(409, `Order ${order.id} is ${order.status}; only a pending order can be paid`)
  core.store.setOrderStatus(order, 'paid')
  const event: WebhookEvent = {id: randomId('evt_'), type: 'order.paid', created_at: isoNow(core), data: orderView(order)}
  const endpoints = core.store.subscribers(event.type)
  core.deliveries.send(event, endpoints)
  return {endpoints: endpoints.length, event}
}
