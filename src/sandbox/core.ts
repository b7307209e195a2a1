/**
 * What the API routes and the control routes share: the store, tokens, limiters, deliveries and clock, and
 * the two business actions both sides perform (placing an order, paying one).
 */
import {randomBytes} from 'node:crypto'

import type {Currency} from '../domain/schema.js'
import type {WebhookEvent} from '../domain/signature.js'
import type {FieldErrors} from '../domain/validate.js'
import {DEFAULT_QUANTITY, SANDBOX_EVENTS, type SandboxEvent} from './decisions.js'
import type {Deliveries} from './deliveries.js'
import {HttpError, validationError} from './http.js'
import type {RateLimiter} from './rate-limit.js'
import type {Faults} from './faults.js'
import type {RequestLog} from './request-log.js'
import {closest} from '../domain/suggest.js'
import {priced, product} from './seed.js'
import type {CustomerRecord, OrderLine, OrderRecord, Store, WebhookRecord} from './record-store.js'
import type {Tokens} from './tokens.js'
import {customerView, orderView} from './views.js'

export interface Core {
  store: Store
  faults: Faults
  requestLog: RequestLog
  tokens: Tokens
  deliveries: Deliveries
  limits: {orders: RateLimiter; tokenFailures: RateLimiter; v1Customers: RateLimiter; v1Products: RateLimiter}
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

/** A payload override: `data.FIELD` (or `data.metadata.KEY`) -> the value the delivery carries instead. */
export type Overrides = Record<string, unknown>

export interface Emitted {
  event: WebhookEvent
  endpoints: number
}

/**
 * Sends `type` with `data` to every subscribed endpoint (in the background). `overrides` change the delivered
 * payload only, never the stored record; they were checked with `checkOverrides` before anything changed.
 */
export function emit(core: Core, type: SandboxEvent, data: object, overrides: Overrides = {}): Emitted {
  const payload = structuredClone(data) as Record<string, unknown>
  for (const [path, value] of Object.entries(overrides)) {
    const [, field, key] = path.split('.')
    if (key === undefined) payload[field] = value
    else (payload[field] as Record<string, unknown>)[key] = value
  }
  const event: WebhookEvent = {id: randomId('evt_'), type, created_at: isoNow(core), data: payload}
  const endpoints = core.store.subscribers(type)
  core.deliveries.send(event, endpoints)
  return {endpoints: endpoints.length, event}
}

/**
 * Replaces the whole state (a reset, a snapshot restored): the deliveries of the state it replaces, waiting for a
 * retry or in flight, are abandoned, so that no event of the old state reaches a receiver after it.
 */
export function replaceState(core: Core, snapshot: Parameters<Store['replace']>[0], why: string): void {
  core.store.replace(snapshot)
  core.deliveries.abandonAll(why)
}

const ORDER_FIELDS = ['id', 'customer_id', 'status', 'total', 'currency', 'placed_at', 'items', 'amount_refunded', 'refunds']
const CUSTOMER_FIELDS = ['id', 'email', 'name', 'status', 'created_at', 'metadata']

/** Problems with overrides for an event of `type` (before anything changes); empty when they are fine. */
export function checkOverrides(type: SandboxEvent, overrides: Overrides): string[] {
  const fields = type.startsWith('order.') ? ORDER_FIELDS : CUSTOMER_FIELDS
  const problems: string[] = []
  for (const path of Object.keys(overrides)) {
    const parts = path.split('.')
    const known =
      parts[0] === 'data' &&
      ((parts.length === 2 && fields.includes(parts[1])) ||
        (parts.length === 3 && parts[1] === 'metadata' && fields.includes('metadata') && parts[2] !== ''))
    if (!known)
      problems.push(
        `${path}: the ${type} payload has no such field (known: ${fields.map((f) => `data.${f}`).join(', ')}, data.metadata.KEY for customers)`,
      )
  }
  return problems
}

/** Places an order from an input that passed `validateOrderCreate`; 422 on what only the data can tell. */
export function placeOrder(core: Core, input: OrderInput, overrides?: Overrides): {order: OrderRecord; emitted: Emitted} {
  const errors: FieldErrors = {}
  const customer = core.store.customer(input.customer_id)
  if (!customer) errors.customer_id = [`no customer has id ${input.customer_id}`]
  else if (customer.status === 'archived') errors.customer_id = [`customer ${input.customer_id} is archived`]
  const items: OrderLine[] = []
  input.items.forEach((item, i) => {
    const p = item.product_id === undefined ? undefined : product(item.product_id)
    // The spec makes product_id optional: such a line has no catalogue price, so it costs nothing (a decision).
    if (item.product_id === undefined) items.push({quantity: item.quantity ?? DEFAULT_QUANTITY, unit_price: 0})
    else if (!p) errors[`items.${i}.product_id`] = [`no product has id ${item.product_id}`]
    else items.push({product_id: p.id, quantity: item.quantity ?? DEFAULT_QUANTITY, unit_price: priced(p, input.currency).price})
  })
  const total = items.reduce((sum, it) => sum + it.unit_price * it.quantity, 0)
  if (!Number.isSafeInteger(total)) errors.items = ['the order total is too large']
  if (Object.keys(errors).length > 0) throw validationError(errors)
  const order = core.store.addOrder({
    amount_refunded: 0,
    currency: input.currency,
    customer_id: input.customer_id,
    items,
    placed_at: isoNow(core),
    refunds: [],
    status: 'pending',
    total,
  })
  return {emitted: emit(core, 'order.created', orderView(order), overrides), order}
}

/** pending -> paid, then `order.paid`. */
export function payOrder(core: Core, order: OrderRecord, overrides?: Overrides): Emitted {
  if (order.status !== 'pending') throw new HttpError(409, `Order ${order.id} is ${order.status}; only a pending order can be paid`)
  core.store.setOrderStatus(order, 'paid')
  return emit(core, 'order.paid', orderView(order), overrides)
}

/** paid -> shipped, then `order.shipped`. */
export function shipOrder(core: Core, order: OrderRecord, overrides?: Overrides): Emitted {
  if (order.status !== 'paid') throw new HttpError(409, `Order ${order.id} is ${order.status}; only a paid order can be shipped`)
  core.store.setOrderStatus(order, 'shipped')
  return emit(core, 'order.shipped', orderView(order), overrides)
}

/** A refund of a paid or shipped order (422 otherwise, or past the remaining amount), then `order.refunded`. */
export function refundOrder(core: Core, order: OrderRecord, input: {amount?: number; reason?: string}, overrides?: Overrides) {
  if (order.status !== 'paid' && order.status !== 'shipped')
    throw validationError({status: [`order ${order.id} is ${order.status}; only paid or shipped orders can be refunded`]})
  const remaining = order.total - order.amount_refunded
  const amount = input.amount ?? remaining
  if (amount > remaining) throw validationError({amount: [`must be at most the refundable amount of ${remaining} (got ${amount})`]})
  const refund = core.store.addRefund(order, {amount, created_at: isoNow(core), reason: input.reason ?? null})
  const emitted = emit(core, 'order.refunded', orderView(order), overrides)
  return {emitted, refund}
}

export function createCustomer(
  core: Core,
  input: {email: string; name: string; send_invite?: boolean; metadata?: Record<string, unknown>},
  overrides?: Overrides,
): {customer: CustomerRecord; emitted: Emitted} {
  if (core.store.customerIdByEmail(input.email) !== undefined) throw validationError({email: ['has already been taken']})
  const customer = core.store.addCustomer({
    addresses: [],
    created_at: isoNow(core),
    email: input.email,
    metadata: input.metadata ?? {},
    name: input.name,
    status: input.send_invite === false ? 'active' : 'invited',
  })
  return {customer, emitted: emit(core, 'customer.created', customerView(customer), overrides)}
}

export function updateCustomer(
  core: Core,
  record: CustomerRecord,
  patch: {email?: string; name?: string; status?: CustomerRecord['status']; metadata?: Record<string, unknown>},
  overrides?: Overrides,
): Emitted {
  const owner = patch.email === undefined ? undefined : core.store.customerIdByEmail(patch.email)
  if (owner !== undefined && owner !== record.id) throw validationError({email: ['has already been taken']})
  core.store.updateCustomer(record, {
    email: patch.email,
    metadata: patch.metadata === undefined ? undefined : {...record.metadata, ...patch.metadata},
    name: patch.name,
    status: patch.status,
  })
  return emit(core, 'customer.updated', customerView(record), overrides)
}

export function deleteCustomer(core: Core, record: CustomerRecord, overrides?: Overrides): Emitted {
  core.store.deleteCustomer(record)
  return emit(core, 'customer.deleted', customerView(record), overrides)
}

/** Event names an endpoint may subscribe to in the sandbox: the ones it sends (its decision). */
export function checkSandboxEvents(events: string[]): string | undefined {
  const unknown = events.filter((e) => !(SANDBOX_EVENTS as readonly string[]).includes(e))
  if (unknown.length === 0) return undefined
  const near = closest(unknown[0], SANDBOX_EVENTS)
  return `the sandbox sends ${SANDBOX_EVENTS.join(', ')}; not ${unknown.map((e) => JSON.stringify(e)).join(', ')}${near ? ` (did you mean ${near}?)` : ''}`
}

/** Registers an endpoint (input checked by validateWebhookCreate with checkSandboxEvents). */
export function createWebhook(core: Core, input: {url: string; events: string[]}): WebhookRecord {
  const record = {
    created_at: isoNow(core),
    events: [...new Set(input.events)],
    id: randomId('we_', 8),
    signing_secret: randomId('whsec_', 24),
    url: input.url,
  }
  core.store.addWebhook(record)
  return record
}
