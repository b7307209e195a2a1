/**
 * The series the inspector page draws (`GET /_sandbox/sales`): orders and gross per day over the last 30 days (UTC),
 * per currency, as `commerce orders stats --since 30d --utc` counts them, every day present.
 */
import {periodLabel, periodStart, periodsBetween} from '../domain/periods.js'
import type {OrderRecord} from './records.js'

export const SALES_DAYS = 30

export interface SalesSeries {
  days: string[]
  currencies: Array<{currency: string; orders: number[]; gross: number[]}>
}

export function salesSeries(orders: Iterable<OrderRecord>, now: number): SalesSeries {
  const since = periodStart(now - (SALES_DAYS - 1) * 86_400_000, 'day', 'UTC')
  const starts = periodsBetween(since, now, 'day', 'UTC')
  const index = new Map(starts.map((start, i) => [start, i]))
  const byCurrency = new Map<string, {orders: number[]; gross: number[]}>()
  for (const o of orders) {
    const ms = Date.parse(o.placed_at)
    if (!(ms >= since && ms <= now)) continue
    const i = index.get(periodStart(ms, 'day', 'UTC'))
    if (i === undefined) continue
    let c = byCurrency.get(o.currency)
    if (!c) byCurrency.set(o.currency, (c = {gross: starts.map(() => 0), orders: starts.map(() => 0)}))
    c.orders[i]++
    c.gross[i] += o.total
  }
  return {
    currencies: [...byCurrency].sort(([a], [b]) => a.localeCompare(b)).map(([currency, c]) => ({currency, ...c})),
    days: starts.map((start) => periodLabel(start, 'day', 'UTC')),
  }
}
