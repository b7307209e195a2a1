/**
 * `products top`: units sold and revenue per product over a window, per currency, from the items of the orders
 * placed in it. The orders are found as `orders stats` finds them (services/stats.ts `readWindow`: newest first,
 * stopping past the window only while the order holds, each order once); their items come with the list where a
 * service sends them there, else from each order (`GET /orders/{id}`, a few at a time). A fetch that fails fails the
 * report (a revenue short by an order is never printed), after the fetches under way have ended, so nothing is retried
 * once the command is over. Names come from the public catalogue, kept only for the products reported. Refunds are
 * not subtracted: they are not tied to items.
 */
import type {ApiClient} from '../api/client.js'
import {LIMITS, type Order} from '../domain/schema.js'
import {getOrder, listOrders} from './orders.js'
import {listProducts} from './products.js'
import {orderAmounts, type StatsWindow, windowOut} from './stats.js'
import {addExact, CurrencySlots, type Read, readWindow, type StatsOptions, wholeAmount} from './window-read.js'
import {readTimestamp} from '../domain/timestamp.js'

/** Orders read at once for their items. */
const CONCURRENCY = 6

export interface ProductFigures {
  product_id: number
  name: string | null
  units: number
  revenue: number
  orders: number
}

export interface TopProducts {
  since: string
  until: string
  time_zone: string
  /** Per currency, the products by `rank`, highest first (at most `limit`). */
  currencies: Array<{currency: string; products: ProductFigures[]}>
  rank: 'revenue' | 'units'
  read: Omit<Read, 'records'> & {orders: number; fetched_for_items: number}
}

interface Line {
  product_id: number
  quantity: number
  revenue: number
}

/** An order's items as counted, or undefined when one of them does not hold together (the order is then malformed). */
function itemLines(items: unknown): Line[] | undefined {
  if (!Array.isArray(items)) return undefined
  const lines: Line[] = []
  for (const item of items as unknown[]) {
    if (typeof item !== 'object' || item === null) return undefined
    const {product_id, quantity, unit_price} = item as Record<string, unknown>
    const id = wholeAmount(product_id)
    const units = wholeAmount(quantity)
    const price = wholeAmount(unit_price)
    if (id === undefined || id === 0 || units === undefined || units === 0 || price === undefined) return undefined
    const revenue = units * price
    if (!Number.isSafeInteger(revenue)) return undefined
    lines.push({product_id: id, quantity: units, revenue})
  }
  return lines
}

export async function topProducts(
  client: ApiClient,
  w: StatsWindow,
  o: StatsOptions & {currency?: string; limit: number; rank?: 'revenue' | 'units'},
): Promise<TopProducts> {
  const rank = o.rank ?? 'revenue'
  const byCurrency = new CurrencySlots(() => new Map<number, ProductFigures>(), o.currency)
  let malformedItems = 0
  const add = (currency: string, items: unknown): boolean => {
    const lines = itemLines(items)
    if (!lines) return false
    const products = byCurrency.of(currency)
    if (!products) return true
    const seen = new Set<number>()
    for (const line of lines) {
      let p = products.get(line.product_id)
      if (!p) products.set(line.product_id, (p = {name: null, orders: 0, product_id: line.product_id, revenue: 0, units: 0}))
      p.units = addExact(p.units, line.quantity, 'units')
      p.revenue = addExact(p.revenue, line.revenue, 'revenues')
      if (!seen.has(line.product_id)) p.orders++
      seen.add(line.product_id)
    }
    return true
  }
  // The orders whose items the list did not carry, fetched a few at a time as they are found. The first failure is
  // kept: no further fetch starts, and the reading stops at its next record.
  const running = new Set<Promise<void>>()
  let failure: {error: unknown} | undefined
  let fetched = 0
  const fetchItems = async (order: Order, currency: string) => {
    const whole = (await getOrder(client, order.id)) as Order & {items?: unknown}
    fetched++
    if (!add(currency, whole.items)) malformedItems++
  }
  const settle = async () => {
    await Promise.all(running)
    if (failure) throw failure.error
  }
  const read = await readWindow(
    listOrders(client, {all: true, perPage: LIMITS.perPage.max, version: 'v2'}).records,
    (order) => readTimestamp(order.placed_at) ?? Number.NaN,
    w,
    async (order) => {
      if (failure) await settle()
      const a = orderAmounts(order)
      if (!a || typeof order.id !== 'number') return false
      if (o.currency && a.currency !== o.currency) return true
      const items = (order as Order & {items?: unknown}).items
      if (items !== undefined) return add(a.currency, items)
      while (running.size >= CONCURRENCY) await Promise.race(running)
      if (failure) await settle()
      const job: Promise<void> = fetchItems(order, a.currency)
        .catch((error: unknown) => {
          failure ??= {error}
        })
        .finally(() => running.delete(job))
      running.add(job)
      return true
    },
    {onRecord: (n) => o.onRecord?.(n)},
  )
  // At most CONCURRENCY orders are fetched at once (the reading waits for a free slot); the last ones finish here.
  await settle()
  const currencies = byCurrency.sorted().map(([currency, products]) => ({currency, products: ranked(products.values(), rank, o.limit)}))
  await nameProducts(
    client,
    currencies.flatMap((c) => c.products),
  )
  const {records, ...counts} = read
  const {since, time_zone, until} = windowOut(w)
  const readOut = {...counts, fetched_for_items: fetched, malformed: counts.malformed + malformedItems, orders: records}
  return {currencies, rank, read: readOut, since, time_zone, until}
}

/** The first `limit` products by `rank` (the other figure, then the id, break ties: the same order every run). */
function ranked(products: Iterable<ProductFigures>, rank: 'revenue' | 'units', limit: number): ProductFigures[] {
  const [first, second] = rank === 'units' ? (['units', 'revenue'] as const) : (['revenue', 'units'] as const)
  return [...products].sort((a, b) => b[first] - a[first] || b[second] - a[second] || a.product_id - b.product_id).slice(0, limit)
}

/** Names from the catalogue for the products reported (and no others kept), reading no further once all are found. */
async function nameProducts(client: ApiClient, reported: ProductFigures[]): Promise<void> {
  const wanted = new Map<number, ProductFigures[]>()
  for (const p of reported) wanted.set(p.product_id, [...(wanted.get(p.product_id) ?? []), p])
  if (wanted.size === 0) return
  let left = wanted.size
  for await (const product of listProducts(client, {all: true, version: 'v2'}).records) {
    const these = wanted.get(product.id)
    if (!these || these[0].name !== null) continue
    for (const p of these) p.name = typeof product.name === 'string' ? product.name : null
    if (--left === 0) return
  }
}
