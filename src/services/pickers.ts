/**
 * The records a person picks an id from (a picker when the id is left out on a terminal), one page at a time:
 * customers through the v2 `q` search, products through search, orders newest first filtered as you type, events
 * from the local inbox. Each candidate carries what a person recognises; only records the command can act on are
 * offered (`orders refund`: paid and shipped orders).
 */
import type {ApiClient} from '../api/client.js'
import type {Currency, Customer, Order, Product} from '../domain/schema.js'
import {listCustomers} from './customers.js'
import {listOrders} from './orders.js'
import {listProducts} from './products.js'
import {listInboxEvents} from './webhooks/inbox-queries.js'

export type {PickKind} from './pick-kinds.js'
import type {PickKind} from './pick-kinds.js'

export interface Candidate {
  id: number | string
  /** The fields a label is made of, raw (the command layer formats money and times). */
  customer?: Pick<Customer, 'id' | 'name' | 'email'>
  order?: Pick<Order, 'id' | 'customer_id' | 'status' | 'total' | 'currency' | 'placed_at'>
  product?: Pick<Product, 'id' | 'name' | 'price' | 'currency' | 'in_stock'>
  event?: {id: string; type: string; received_at: string; forward_status: number | null}
}

export interface CandidatePage {
  candidates: Candidate[]
  /** More may follow (another page). */
  more: boolean
}

export interface PickSource {
  client?: () => Promise<ApiClient>
  env: NodeJS.ProcessEnv
  /** Products: prices converted to this currency (an order being built in it). */
  currency?: Currency
}

const PAGE = 30

async function collect<T>(records: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const r of records) out.push(r)
  return out
}

/** The currency of a customer's latest order, if any (the default when an order is built for them). */
export async function lastCurrency(client: ApiClient, customerId: number): Promise<Currency | undefined> {
  for await (const order of listOrders(client, {customerId, limit: 1, perPage: 1, version: 'v2'}).records) return order.currency
  return undefined
}

/** Up to `pages` pages of candidates for `term` (undefined: all), newest first where the service orders. */
export async function candidates(kind: PickKind, source: PickSource, term: string | undefined, pages: number): Promise<CandidatePage> {
  const limit = PAGE * pages
  const q = term?.trim() || undefined
  switch (kind) {
    case 'customer':
    case 'orderable-customer': {
      const client = await source.client!()
      // Who can order: an archived customer cannot (the service refuses), so the order wizard never offers one.
      const orderable = kind === 'orderable-customer'
      const records = listCustomers(client, {limit: (limit + 1) * (orderable ? 2 : 1), perPage: PAGE, search: q, version: 'v2'}).records
      const found = (await collect(records)).filter((c) => !orderable || c.status !== 'archived')
      return page(
        found.map((c) => ({customer: c, id: c.id})),
        limit,
      )
    }
    case 'product': {
      const client = await source.client!()
      const found = await collect(
        listProducts(client, {currency: source.currency, limit: limit + 1, perPage: PAGE, search: q, version: 'v2'}).records,
      )
      return page(
        found.map((p) => ({id: p.id, product: p})),
        limit,
      )
    }
    case 'order':
    case 'refundable-order':
      return orderCandidates(await source.client!(), kind === 'refundable-order', q, limit)
    case 'event': {
      const {records} = await listInboxEvents(source.env)
      const seen = new Set<string>()
      const events = records.filter((r) => !seen.has(r.id) && seen.add(r.id) && (!q || `${r.id} ${r.type}`.toLowerCase().includes(q.toLowerCase())))
      return page(
        events.map((e) => ({event: {forward_status: e.forward_status, id: e.id, received_at: e.received_at, type: e.type}, id: e.id})),
        limit,
      )
    }
  }
}

function page(all: Candidate[], limit: number): CandidatePage {
  return {candidates: all.slice(0, limit), more: all.length > limit}
}

/** The API cannot search orders: pages newest first, filtered here by what was typed (id, customer, status, currency). */
async function orderCandidates(client: ApiClient, refundable: boolean, q: string | undefined, limit: number): Promise<CandidatePage> {
  const statuses = refundable ? (['paid', 'shipped'] as const) : [undefined]
  const lists = await Promise.all(
    statuses.map((status) => collect(listOrders(client, {limit: (limit + 1) * (q ? 4 : 1), perPage: 100, status, version: 'v2'}).records)),
  )
  const matches = (o: Order) => !q || `${o.id} ${o.customer_id} ${o.status} ${o.currency}`.toLowerCase().includes(q.toLowerCase())
  const orders = lists
    .flat()
    .filter(matches)
    .sort((a, b) => String(b.placed_at ?? '').localeCompare(String(a.placed_at ?? '')) || b.id - a.id)
  return page(
    orders.map((o) => ({id: o.id, order: o})),
    limit,
  )
}
