/** How records are shown in responses (see the order/webhook shape decisions). Keys in reading order, id first. */
import type {CustomerRecord, OrderRecord, WebhookRecord} from './record-store.js'

export function customerView(c: CustomerRecord) {
  return {id: c.id, email: c.email, name: c.name, status: c.status, created_at: c.created_at, metadata: c.metadata}
}

/** The list shape of an order. */
export function orderSummary(o: OrderRecord) {
  return {
    id: o.id,
    customer_id: o.customer_id,
    status: o.status,
    total: o.total,
    currency: o.currency,
    placed_at: o.placed_at,
    // In the list too (a decision): what `orders stats` counts as refunded, partial refunds included.
    amount_refunded: o.amount_refunded,
  }
}

/** Create, GET and event payload shape. */
export function orderView(o: OrderRecord) {
  return {...orderSummary(o), items: o.items, amount_refunded: o.amount_refunded, refunds: o.refunds}
}

/** The list shape: no signing secret. */
export function webhookView(w: WebhookRecord) {
  return {id: w.id, url: w.url, events: w.events, created_at: w.created_at}
}

export function pageEnvelope<T>(data: T[], page: number, perPage: number, total: number) {
  return {data, meta: {page, per_page: perPage, total}}
}
