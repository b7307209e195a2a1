/**
 * The account over time (`orders stats`, `customers stats`): figures per period and in total, per currency, read
 * from the list operations, which have no date filter. Pages are read newest first and reading stops at the first
 * record older than the window, which relies on the service listing newest first (the spec says so of its lists);
 * when a record comes out of that order, every page is read instead. Records are counted as they arrive, never kept:
 * memory is flat in the number of records.
 */
import type {ApiClient} from '../api/client.js'
import {type Granularity, nextPeriod, periodLabel, periodStart, periodsBetween} from '../domain/periods.js'
import {CUSTOMER_STATUSES, type Customer, LIMITS, type Order, ORDER_STATUSES} from '../domain/schema.js'
import {listCustomers} from './customers.js'
import {listOrders} from './orders.js'

export interface StatsWindow {
  since: number
  until: number
  by: Granularity
  timeZone: string
}

export interface StatsOptions {
  /** Told of every record read (a progress line on a terminal). */
  onRecord?: (read: number) => void
}

interface Read {
  /** Records read, in the window or not. */
  records: number
  /** Every page was read (the service's order could not be relied on), or reading stopped past the window. */
  all_pages: boolean
}

/**
 * The start of the period holding an instant, remembering the last period found: records come newest first, so most
 * fall in the period of the one before, and the time zone is asked (Intl, microseconds a call) once a period.
 */
function periodFinder(w: StatsWindow): (ms: number) => number {
  let start = Number.NaN
  let end = Number.NaN
  return (ms) => {
    if (!(ms >= start && ms < end)) {
      start = periodStart(ms, w.by, w.timeZone)
      end = nextPeriod(start, w.by, w.timeZone)
    }
    return start
  }
}

/** The periods of the window, each with a fresh bucket. */
function emptySeries<B>(w: StatsWindow, bucket: () => B): Map<number, B> {
  return new Map(periodsBetween(w.since, w.until, w.by, w.timeZone).map((p) => [p, bucket()]))
}

/**
 * Records of a newest-first list, the ones in the window handed to `take`; stops past the window while the list keeps
 * its order. `at` is when a record happened (NaN when it does not say).
 */
export async function readWindow<T>(
  records: AsyncIterable<T>,
  at: (r: T) => number,
  w: StatsWindow,
  take: (r: T, ms: number) => void | Promise<void>,
  o: StatsOptions,
): Promise<Read> {
  let read = 0
  let ordered = true
  let last = Number.POSITIVE_INFINITY
  for await (const record of records) {
    read++
    o.onRecord?.(read)
    const ms = at(record)
    if (Number.isNaN(ms)) continue
    if (ms > last) ordered = false
    last = Math.min(last, ms)
    if (ms < w.since) {
      if (ordered) return {all_pages: false, records: read}
      continue
    }
    // A taker may make the reading wait (products top: a bounded number of orders fetched at once).
    if (ms <= w.until) await take(record, ms)
  }
  return {all_pages: true, records: read}
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

const orderFigures = (): OrderFigures => ({
  by_status: Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0])),
  gross: 0,
  net: 0,
  orders: 0,
  refunded: 0,
})

function addOrder(f: OrderFigures, o: Order & {amount_refunded?: unknown}): void {
  const total = typeof o.total === 'number' ? o.total : 0
  const refunded = typeof o.amount_refunded === 'number' ? o.amount_refunded : o.status === 'refunded' ? total : 0
  f.orders++
  f.gross += total
  f.refunded += refunded
  f.net = f.gross - f.refunded
  f.by_status[o.status] = (f.by_status[o.status] ?? 0) + 1
}

/** A period's figures, with its start (ISO 8601) and its name in the time zone (`2026-11-27`). */
export type PeriodOf<F> = {period: string; label: string} & F

export interface OrderStats {
  since: string
  until: string
  by: Granularity
  time_zone: string
  currencies: Array<{currency: string; totals: OrderFigures; series: Array<PeriodOf<OrderFigures>>}>
  read: Read
}

function seriesOf<F>(w: StatsWindow, buckets: Map<number, F>): Array<PeriodOf<F>> {
  return [...buckets].map(([start, figures]) => ({label: periodLabel(start, w.by, w.timeZone), period: new Date(start).toISOString(), ...figures}))
}

/** Orders placed in the window, per currency (one asked for, or every one met), per period and in total. */
export async function orderStats(client: ApiClient, w: StatsWindow, o: StatsOptions & {currency?: string} = {}): Promise<OrderStats> {
  const byCurrency = new Map<string, {totals: OrderFigures; buckets: Map<number, OrderFigures>}>()
  const of = (currency: string) => {
    let c = byCurrency.get(currency)
    if (!c) byCurrency.set(currency, (c = {buckets: emptySeries(w, orderFigures), totals: orderFigures()}))
    return c
  }
  if (o.currency) of(o.currency)
  const periodOf = periodFinder(w)
  const records = listOrders(client, {all: true, perPage: LIMITS.perPage.max, version: 'v2'}).records
  const read = await readWindow(
    records,
    (order) => Date.parse(String(order.placed_at)),
    w,
    (order, ms) => {
      const currency = String(order.currency)
      if (o.currency && currency !== o.currency) return
      const c = of(currency)
      addOrder(c.totals, order)
      addOrder(c.buckets.get(periodOf(ms))!, order)
    },
    o,
  )
  return {
    by: w.by,
    currencies: [...byCurrency]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([currency, c]) => ({currency, series: seriesOf(w, c.buckets), totals: c.totals})),
    read,
    since: new Date(w.since).toISOString(),
    time_zone: w.timeZone,
    until: new Date(w.until).toISOString(),
  }
}

export interface CustomerFigures {
  customers: number
  by_status: Record<string, number>
}

const customerFigures = (): CustomerFigures => ({by_status: Object.fromEntries(CUSTOMER_STATUSES.map((s) => [s, 0])), customers: 0})

function addCustomer(f: CustomerFigures, c: Customer): void {
  f.customers++
  f.by_status[c.status] = (f.by_status[c.status] ?? 0) + 1
}

export interface CustomerStats {
  since: string
  until: string
  by: Granularity
  time_zone: string
  totals: CustomerFigures
  series: Array<PeriodOf<CustomerFigures>>
  read: Read
}

/** Customers created in the window, per period and in total, by their status now. */
export async function customerStats(client: ApiClient, w: StatsWindow, o: StatsOptions = {}): Promise<CustomerStats> {
  const buckets = emptySeries(w, customerFigures)
  const totals = customerFigures()
  const periodOf = periodFinder(w)
  const records = listCustomers(client, {all: true, perPage: LIMITS.perPage.max, version: 'v2'}).records
  const read = await readWindow(
    records,
    (c) => Date.parse(String(c.created_at)),
    w,
    (c, ms) => {
      addCustomer(totals, c)
      addCustomer(buckets.get(periodOf(ms))!, c)
    },
    o,
  )
  return {
    by: w.by,
    read,
    series: seriesOf(w, buckets),
    since: new Date(w.since).toISOString(),
    time_zone: w.timeZone,
    totals,
    until: new Date(w.until).toISOString(),
  }
}
