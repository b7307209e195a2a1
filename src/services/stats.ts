/**
 * The account over time (`orders stats`, `customers stats`): figures per period and in total, per currency, read from
 * the list operations, which have no date filter, through `readWindow` (services/window-read.ts: the order a service
 * keeps, repeats, malformed records, exact sums). Statuses beyond the documented ones and `MAX_OTHER_STATUSES` others
 * count as `other`; the maps have no prototype (a status named `constructor` is a status).
 */
import type {ApiClient} from '../api/client.js'
import type {Granularity} from '../domain/periods.js'
import {CUSTOMER_STATUSES, type Customer, LIMITS, type Order, ORDER_STATUSES} from '../domain/schema.js'
import {listCustomers} from './customers.js'
import {listOrders} from './orders.js'
import {addExact, CurrencySlots, type Read, readWindow, type StatsOptions, wholeAmount} from './window-read.js'
import {readTimestamp} from '../domain/timestamp.js'

export type {Read, StatsOptions} from './window-read.js'

/** The window of a report, its periods worked out once (base/stats-window.ts) in its time zone. */
export interface StatsWindow {
  /** Inclusive. */
  since: number
  /** Exclusive. */
  until: number
  by: Granularity
  timeZone: string
  /** Each period's start, oldest first; the first may start before `since`; the last ends at `until`. */
  periods: readonly number[]
  /** Each period's name in the zone (`2026-11-01 01:00-04:00`, `2026-11-01`, `2026-11`). */
  labels: readonly string[]
}

const MAX_OTHER_STATUSES = 16

/** How refunds are counted: in the period in which their order was placed, whenever they were made. */
export const REFUNDS_COUNTED_BY = 'order_placed_at'

/** The index of the period holding `ms` (which lies in the window): a binary search over the starts. */
export function periodIndex(w: StatsWindow, ms: number): number {
  let lo = 0
  let hi = w.periods.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (w.periods[mid] <= ms) lo = mid
    else hi = mid - 1
  }
  return lo
}

/** The key a status counts under: itself when documented or among the first others met, else `other`. */
function statusKeys(documented: readonly string[]): (status: string) => string {
  const others = new Set<string>()
  return (status) => {
    if (documented.includes(status) || others.has(status)) return status
    if (others.size < MAX_OTHER_STATUSES) {
      others.add(status)
      return status
    }
    return 'other'
  }
}

const countsOf = (statuses: readonly string[]): Record<string, number> => {
  const counts = Object.create(null) as Record<string, number>
  for (const s of statuses) counts[s] = 0
  return counts
}

export interface OrderFigures {
  orders: number
  /** Sum of the orders' totals, in the service's money unit. */
  gross: number
  /** Sum of what was refunded of them (`amount_refunded` where the service says it, else a refunded order's total). */
  refunded: number
  net: number
  by_status: Record<string, number>
}

const orderFigures = (): OrderFigures => ({by_status: countsOf(ORDER_STATUSES), gross: 0, net: 0, orders: 0, refunded: 0})

/** What an order adds to the figures, or undefined when it does not hold together. */
export function orderAmounts(
  o: Order & {amount_refunded?: unknown},
): {total: number; refunded: number; status: string; currency: string} | undefined {
  const total = wholeAmount(o.total)
  const currency: unknown = o.currency
  if (total === undefined || typeof o.status !== 'string' || typeof currency !== 'string' || currency === '') return undefined
  const said = o.amount_refunded === undefined || o.amount_refunded === null ? undefined : wholeAmount(o.amount_refunded)
  if (said === undefined && o.amount_refunded !== undefined && o.amount_refunded !== null) return undefined
  const refunded = said ?? (o.status === 'refunded' ? total : 0)
  if (refunded > total) return undefined
  return {currency, refunded, status: o.status, total}
}

function addOrder(f: OrderFigures, a: {total: number; refunded: number}, status: string): void {
  f.orders = addExact(f.orders, 1, 'orders')
  f.gross = addExact(f.gross, a.total, 'totals')
  f.refunded = addExact(f.refunded, a.refunded, 'refunds')
  f.net = f.gross - f.refunded
  f.by_status[status] = (f.by_status[status] ?? 0) + 1
}

/** A period's figures, with its start (ISO 8601) and its name in the time zone (`2026-11-27`). */
export type PeriodOf<F> = {period: string; label: string} & F

interface WindowOut {
  since: string
  until: string
  by: Granularity
  time_zone: string
}

export interface OrderStats extends WindowOut {
  refunds_counted_by: typeof REFUNDS_COUNTED_BY
  /** A series per currency met or asked for; with none of either, one series of zeros whose currency is null. */
  currencies: Array<{currency: string | null; totals: OrderFigures; series: Array<PeriodOf<OrderFigures>>}>
  read: Read
}

export function windowOut(w: StatsWindow): WindowOut {
  return {by: w.by, since: new Date(w.since).toISOString(), time_zone: w.timeZone, until: new Date(w.until).toISOString()}
}

function seriesOf<F>(w: StatsWindow, buckets: readonly F[]): Array<PeriodOf<F>> {
  return buckets.map((figures, i) => ({label: w.labels[i], period: new Date(w.periods[i]).toISOString(), ...figures}))
}

/** Orders placed in the window, per currency (one asked for, or every one met), per period and in total. */
export async function orderStats(client: ApiClient, w: StatsWindow, o: StatsOptions & {currency?: string} = {}): Promise<OrderStats> {
  const slots = new CurrencySlots(() => ({buckets: w.periods.map(orderFigures), totals: orderFigures()}), o.currency)
  const statusKey = statusKeys(ORDER_STATUSES)
  const records = listOrders(client, {all: true, perPage: LIMITS.perPage.max, version: 'v2'}).records
  const read = await readWindow(
    records,
    (order) => readTimestamp(order.placed_at) ?? Number.NaN,
    w,
    (order, ms) => {
      const a = orderAmounts(order)
      if (!a) return false
      const slot = slots.of(a.currency)
      if (!slot) return true
      const status = statusKey(a.status)
      addOrder(slot.totals, a, status)
      addOrder(slot.buckets[periodIndex(w, ms)], a, status)
      return true
    },
    o,
  )
  // The currency asked for is in the report with its zeros, orders or not.
  if (o.currency) slots.of(o.currency)
  const met: Array<[string | null, {buckets: OrderFigures[]; totals: OrderFigures}]> = slots.sorted()
  // No order and no currency asked for: every period all the same, in one series of no currency.
  if (met.length === 0) met.push([null, {buckets: w.periods.map(orderFigures), totals: orderFigures()}])
  return {
    ...windowOut(w),
    currencies: met.map(([currency, c]) => ({currency, series: seriesOf(w, c.buckets), totals: c.totals})),
    read,
    refunds_counted_by: REFUNDS_COUNTED_BY,
  }
}

export interface CustomerFigures {
  customers: number
  by_status: Record<string, number>
}

const customerFigures = (): CustomerFigures => ({by_status: countsOf(CUSTOMER_STATUSES), customers: 0})

function addCustomer(f: CustomerFigures, status: string): void {
  f.customers = addExact(f.customers, 1, 'customers')
  f.by_status[status] = (f.by_status[status] ?? 0) + 1
}

export interface CustomerStats extends WindowOut {
  totals: CustomerFigures
  series: Array<PeriodOf<CustomerFigures>>
  read: Read
}

/** Customers created in the window, per period and in total, by their status now. */
export async function customerStats(client: ApiClient, w: StatsWindow, o: StatsOptions = {}): Promise<CustomerStats> {
  const buckets = w.periods.map(customerFigures)
  const totals = customerFigures()
  const statusKey = statusKeys(CUSTOMER_STATUSES)
  const records = listCustomers(client, {all: true, perPage: LIMITS.perPage.max, version: 'v2'}).records
  const read = await readWindow(
    records,
    (c: Customer) => readTimestamp(c.created_at) ?? Number.NaN,
    w,
    (c, ms) => {
      if (typeof c.status !== 'string') return false
      const status = statusKey(c.status)
      addCustomer(totals, status)
      addCustomer(buckets[periodIndex(w, ms)], status)
      return true
    },
    o,
  )
  return {...windowOut(w), read, series: seriesOf(w, buckets), totals}
}
