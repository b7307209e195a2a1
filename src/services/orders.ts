/** Orders: list, create (idempotent in v2), get (v2), refund (v2). */
import {readFile} from 'node:fs/promises'

import type {ApiClient} from '../api/client.js'
import {isResource, resourceOf, unexpectedResponse} from '../api/http-errors.js'
import type {PageOptions} from '../api/paginate.js'
import {type ApiVersion, ORDER_STATUSES, type Order, type OrderStatus} from '../domain/schema.js'
import {checkOneOf, checkPositiveInt, isUuid, validateOrderCreate, validateRefund} from '../domain/validate.js'
import {fileProblem, readAll} from '../domain/files.js'
import {isObject} from '../domain/json.js'
import {ApiError, CliError, NetworkError, UsageError} from '../errors.js'
import {keyFor, wasReplayed} from '../domain/idempotency.js'
import {type Listing, listing, requireV2} from './listing.js'
import {assertValid} from './validation.js'
import {option, phrase} from '../domain/phrase.js'

export interface ListOrdersOptions extends PageOptions {
  status?: OrderStatus
  customerId?: number
  version: ApiVersion
}

export function listOrdersRequest(options: {status?: string; customerId?: number; version: ApiVersion}) {
  const errors: Record<string, string[]> = {}
  if (options.status !== undefined) {
    const p = checkOneOf(options.status, ORDER_STATUSES)
    if (p) errors.status = [p]
  }
  if (options.customerId !== undefined) {
    const p = checkPositiveInt(options.customerId)
    if (p) errors.customer_id = [p]
  }
  assertValid('list filter', errors)
  return {
    auth: true,
    method: 'GET',
    path: '/orders',
    query: {customer_id: options.customerId, status: options.status},
    version: options.version,
  } as const
}

export function listOrders(client: ApiClient, options: ListOrdersOptions): Listing<Order> {
  return listing<Order>(client, listOrdersRequest(options), options)
}

/** v2 only. */
export async function getOrder(client: ApiClient, id: number): Promise<Order> {
  return resourceOf<Order>(await client.request({auth: true, method: 'GET', path: `/orders/${id}`, version: 'v2'}), 'an order')
}

export interface OrderItemInput {
  product_id?: number
  quantity?: number
}

/** `PRODUCT_ID[:QUANTITY]`, as typed in `--item` and in the CSV `items` column. */
export function parseItemSpec(spec: string): OrderItemInput {
  const m = /^\s*(\d+)\s*(?::\s*(\d+)\s*)?$/.exec(spec)
  if (!m) throw new UsageError(`Invalid item ${JSON.stringify(spec)}: expected PRODUCT_ID[:QUANTITY], e.g. 12:3.`)
  const item: OrderItemInput = {product_id: Number(m[1])}
  if (m[2] !== undefined) item.quantity = Number(m[2])
  return item
}

export interface OrderInput {
  customer_id?: number
  currency?: string
  items?: OrderItemInput[]
}

/** `--from-file FILE|-`: a JSON object {customer_id, currency, items}. */
export async function readOrderFile(path: string, stdin: NodeJS.ReadableStream): Promise<OrderInput> {
  let text: string
  try {
    text = path === '-' ? (await readAll(stdin)).toString('utf8') : await readFile(path, 'utf8')
  } catch (error) {
    throw new UsageError(phrase`${option('fromFile')}: ${fileProblem(error, path)}.`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new UsageError(phrase`${option('fromFile')} ${path} is not valid JSON: ${(error as Error).message}.`)
  }
  if (!isObject(value)) throw new UsageError(phrase`${option('fromFile')} ${path} must hold a JSON object {customer_id, currency, items}.`)
  return value
}

export interface CreateOrderResult {
  order: Order
  /** The Idempotency-Key sent (v2), generated when none was given. */
  idempotencyKey?: string
  /** v2: the service answered with the order an earlier request made under the same key; nothing new was created. */
  replayed?: boolean
}

/**
 * v2: sends an Idempotency-Key (the one given or named, else a fresh one: domain/idempotency.ts) and is safe to retry after a network error
 * or 5xx (the same key replays). v1: no key, and never retried: a retry could create a second order.
 */
export async function createOrder(
  client: ApiClient,
  input: OrderInput,
  options: {version: ApiVersion; idempotencyKey?: string; idempotencyName?: string; onKey?: (key: string) => void; now?: () => number},
): Promise<CreateOrderResult> {
  const body = {currency: input.currency, customer_id: input.customer_id, items: input.items}
  const errors = validateOrderCreate(body)
  // Keyed as the service keys it (the header's name), so a script reads one name whoever refused it.
  if (options.idempotencyKey !== undefined && !isUuid(options.idempotencyKey))
    (errors['Idempotency-Key'] ??= []).push(`must be a UUID (got ${JSON.stringify(options.idempotencyKey)})`)
  assertValid('order', errors)
  if (options.version === 'v1') {
    if (options.idempotencyKey !== undefined) requireV2('v1', option('idempotencyKey'))
    if (options.idempotencyName !== undefined) requireV2('v1', option('idempotencyName'))
    const res = await client.request({auth: true, body, idempotent: false, method: 'POST', path: '/orders', version: 'v1'})
    return {
      order: resourceOf<Order>(res, 'the new order', 'The order may have been created: check with `commerce orders list` before running this again.'),
    }
  }
  const {chosen, key} = keyFor({key: options.idempotencyKey, name: options.idempotencyName})
  // Said before the request (a command keeps it for Ctrl-C), and in the hint of any failure whose outcome is
  // unknown; a definite refusal (4xx: nothing was created) does not mention it.
  options.onKey?.(key)
  // Two lines that fit 80 columns, the key whole on the second.
  const replay = phrase`The order may have been created. To get it without creating a second one, rerun\nwith ${option('idempotencyKey')} ${key}.`
  let res
  const sentAt = (options.now ?? Date.now)()
  try {
    res = await client.request({
      auth: true,
      body,
      headers: {'Idempotency-Key': key},
      idempotent: true,
      method: 'POST',
      path: '/orders',
      version: 'v2',
    })
  } catch (error) {
    // A refused connection sent nothing: no order can exist, and the error keeps its own hint (start the sandbox).
    const unknown =
      (error instanceof NetworkError && !error.nothingSent) || (error instanceof ApiError && error.status !== null && error.status >= 500)
    if (!unknown) throw error
    throw new CliError(error.text, {cause: error, exitCode: error.exitCode, hint: replay, status: error.status})
  }
  const order = resourceOf<Order>(res, 'the new order', replay)
  return {idempotencyKey: key, order, replayed: wasReplayed({chosen, headers: res.headers, madeAt: order.placed_at, sentAt})}
}

/** v2 only. `amount` in the service's money unit, sent unchanged; without it the whole remaining amount. */
export async function refundOrder(client: ApiClient, id: number, input: {amount?: number; reason?: string}): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {}
  if (input.amount !== undefined) body.amount = input.amount
  if (input.reason !== undefined) body.reason = input.reason
  assertValid('refund', validateRefund(body))
  const res = await client.request({auth: true, body, method: 'POST', path: `/orders/${id}/refunds`, version: 'v2'})
  if (isResource(res.body)) return res.body
  // The service documents no refund record: an empty success means done, with nothing more to show.
  if (res.body === undefined) return {}
  throw unexpectedResponse(
    res.status,
    res.body,
    'the refund record',
    `The refund may have been made: check with \`commerce orders get ${id}\` before running it again.`,
  )
}

/**
 * What has been refunded of an order so far, as far as the service says it: `amount_refunded`, else the sum of its
 * `refunds`, else all of a refunded order; undefined when it says none of these (the spec shows no such field).
 */
export function refundedSoFar(order: Order & {amount_refunded?: unknown; refunds?: unknown}): number | undefined {
  if (typeof order.amount_refunded === 'number' && Number.isSafeInteger(order.amount_refunded)) return order.amount_refunded
  if (Array.isArray(order.refunds)) {
    const amounts = order.refunds.map((r) => (r as {amount?: unknown} | null)?.amount)
    if (amounts.every((a) => typeof a === 'number' && Number.isSafeInteger(a))) return (amounts as number[]).reduce((a, b) => a + b, 0)
  }
  if (order.status === 'refunded' && typeof order.total === 'number') return order.total
  return undefined
}

export interface RefundCheck {
  order: Order
  /** What the refund would be: the amount asked, else what remains. */
  amount: number
  /** What is left to refund before it. */
  remaining: number
}

/** What a refund's checks found, as a dry run and a result say it (amounts in the service's money unit). */
export function refundFacts(check: RefundCheck): Record<string, unknown> {
  const before = check.order.total - check.remaining
  return {
    amount: check.amount,
    currency: check.order.currency,
    order_id: check.order.id,
    refunded_after: before + check.amount,
    refunded_before: before,
    remaining_after: check.remaining - check.amount,
    status: check.order.status,
    total: check.order.total,
  }
}

/**
 * The checks a refund makes before anything is sent (a command's confirmation, an agent's dry run): the order is
 * paid or shipped, what has been refunded so far is what `expectRefunded` says (a re-run that would refund twice
 * refuses, precondition_failed), and `amount` is at most what remains. `money` says an amount as its reader reads it.
 */
export async function checkRefund(
  client: ApiClient,
  id: number,
  o: {amount?: number; expectRefunded?: number; money: (amount: number, currency: string) => string},
): Promise<RefundCheck> {
  const order = await getOrder(client, id)
  if (order.status !== 'paid' && order.status !== 'shipped')
    throw new UsageError(`Order ${id} is ${order.status}; only a paid or shipped order can be refunded.`, {code: 'conflict'})
  const said = refundedSoFar(order)
  if (o.expectRefunded !== undefined && said !== o.expectRefunded)
    throw new UsageError(
      said === undefined
        ? phrase`Order ${id}: the service does not say how much of it has been refunded, so ${option('expectRefunded')} cannot be checked; nothing was sent.`
        : phrase`Order ${id} has ${said} refunded, not the ${o.expectRefunded} ${option('expectRefunded')} expects (a refund was made since): nothing was sent.`,
      {code: 'precondition_failed'},
    )
  const remaining = order.total - (said ?? 0)
  if (o.amount !== undefined && o.amount > remaining) {
    const shown = o.money(o.amount, order.currency)
    throw new UsageError(
      phrase`${option('amount')} ${o.amount}${shown === `${o.amount} ${order.currency}` ? '' : ` (${shown})`} is more than the ${o.money(remaining, order.currency)} left to refund on order ${id}.`,
      {code: 'conflict', hint: phrase`${option('amount')} is an integer in the service's money unit: ${remaining} at most for this order.`},
    )
  }
  return {amount: o.amount ?? remaining, order, remaining}
}
