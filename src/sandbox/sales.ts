/**
 * The series the inspector page draws (`GET /_sandbox/sales`): orders and gross per day over the last 30 days (UTC),
 * per currency, as `commerce orders stats --since 30d --utc` counts them, every day present.
 */
import type {OrderRecord} from './records.js'

export const SALES_DAYS = 30

/** A UTC day is exactly this long (UTC has no clock changes), so its arithmetic is exact integer arithmetic. */
const DAY = 86_400_000

export interface SalesSeries {
  days: string[]
  currencies: Array<{currency: string; orders: number[]; gross: number[]}>
}

export function salesSeries(orders: Iterable<OrderRecord>, now: number): SalesSeries {
  const since = (Math.floor(now / DAY) - (SALES_DAYS - 1)) * DAY
  const starts = Array.from({length: SALES_DAYS}, (_, i) => since + i * DAY)
  const byCurrency = new Map<string, {orders: number[]; gross: number[]}>()
  for (const o of orders) {
    const ms = Date.parse(o.placed_at)
    if (!(ms >= since && ms <= now)) continue
    const i = Math.floor((ms - since) / DAY)
    let c = byCurrency.get(o.currency)
    if (!c) byCurrency.set(o.currency, (c = {gross: starts.map(() => 0), orders: starts.map(() => 0)}))
    c.orders[i]++
    c.gross[i] += o.total
  }
  return {
    currencies: [...byCurrency].sort(([a], [b]) => a.localeCompare(b)).map(([currency, c]) => ({currency, ...c})),
    days: starts.map((start) => new Date(start).toISOString().slice(0, 10)),
  }
}
