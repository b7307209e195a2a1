/**
 * `products top`: units sold and revenue per product over a window, per currency, from the items of the orders
 * placed in it. The orders are found as `orders stats` finds them (newest first, stopping past the window); their
 * items come with the list where a service sends them there, else from each order (`GET /orders/{id}`, a few at a
 * time); names from the public catalogue. Refunds are not subtracted: they are not tied to items.
 */
import type {ApiClient} from '../api/client.js'
import {LIMITS, type Order} from '../domain/schema.js'
import {getOrder, listOrders} from './orders.js'
import {listProducts} from './products.js'
import {readWindow, type StatsOptions, type StatsWindow} from './stats.js'

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
  /** Per currency, the products by revenue, highest first (at most `limit`). */
  currencies: Array<{currency: string; products: ProductFigures[]}>
  read: {orders: number; fetched_for_items: number}
}

type Line = {product_id?: unknown; quantity?: unknown; unit_price?: unknown}

export async function topProducts(client: ApiClient, w: StatsWindow, o: StatsOptions & {currency?: string; limit: number}): Promise<TopProducts> {
  const byCurrency = new Map<string, Map<number, ProductFigures>>()
  const add = (currency: string, items: Line[]) => {
    let products = byCurrency.get(currency)
    if (!products) byCurrency.set(currency, (products = new Map<number, ProductFigures>()))
    const seen = new Set<number>()
    for (const item of items) {
      if (typeof item.product_id !== 'number') continue
      const quantity = typeof item.quantity === 'number' ? item.quantity : 1
      const price = typeof item.unit_price === 'number' ? item.unit_price : 0
      let p = products.get(item.product_id)
      if (!p) products.set(item.product_id, (p = {name: null, orders: 0, product_id: item.product_id, revenue: 0, units: 0}))
      p.units += quantity
      p.revenue += quantity * price
      if (!seen.has(item.product_id)) p.orders++
      seen.add(item.product_id)
    }
  }
  // The orders whose items the list did not carry, fetched a few at a time as they are found.
  const pending = new Set<Promise<void>>()
  let fetched = 0
  const fetchItems = async (order: Order) => {
    const whole = (await getOrder(client, order.id)) as Order & {items?: Line[]}
    fetched++
    add(String(order.currency), whole.items ?? [])
  }
  const read = await readWindow(
    listOrders(client, {all: true, perPage: LIMITS.perPage.max, version: 'v2'}).records,
    (order) => Date.parse(String(order.placed_at)),
    w,
    async (order) => {
      if (o.currency && order.currency !== o.currency) return
      const items = (order as Order & {items?: unknown}).items
      if (Array.isArray(items)) return add(String(order.currency), items)
      if (pending.size >= CONCURRENCY) await Promise.race(pending)
      const job = fetchItems(order).finally(() => pending.delete(job))
      // Handled here as well, so that a failure before the next wait is not an unhandled rejection; the wait rethrows it.
      job.catch(() => {})
      pending.add(job)
    },
    {onRecord: (n) => o.onRecord?.(n)},
  )
  // At most CONCURRENCY orders are fetched at once (the reading waits for a free slot); the last ones finish here.
  await Promise.all(pending)
  const names = new Map<number, string>()
  for await (const product of listProducts(client, {all: true, version: 'v2'}).records) names.set(product.id, product.name)
  return {
    currencies: [...byCurrency]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([currency, products]) => ({
        currency,
        products: [...products.values()]
          .map((p) => ({...p, name: names.get(p.product_id) ?? null}))
          .sort((a, b) => b.revenue - a.revenue || b.units - a.units)
          .slice(0, o.limit),
      })),
    read: {fetched_for_items: fetched, orders: read.records},
    since: new Date(w.since).toISOString(),
    time_zone: w.timeZone,
    until: new Date(w.until).toISOString(),
  }
}
