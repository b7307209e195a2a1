/** The records the sandbox keeps (store.ts), as held in memory and written to its data file. */
import type {Currency, CustomerStatus, OrderStatus, Scope} from '../domain/schema.js'

export interface KeyPair {
  key_id: string
  key_secret: string
  scopes: Scope[]
}

export interface Address {
  id: number
  line1: string
  city: string
  postal_code: string
  country: string
}

export interface CustomerRecord {
  id: number
  email: string
  name: string
  status: CustomerStatus
  created_at: string
  metadata: Record<string, unknown>
  addresses: Address[]
}

export interface OrderLine {
  /** Absent for an item placed without one (it costs nothing: see the order decision). */
  product_id?: number
  quantity: number
  unit_price: number
}

export interface RefundRecord {
  id: number
  order_id: number
  amount: number
  currency: Currency
  reason: string | null
  created_at: string
}

export interface OrderRecord {
  id: number
  customer_id: number
  status: OrderStatus
  total: number
  currency: Currency
  items: OrderLine[]
  placed_at: string
  amount_refunded: number
  refunds: RefundRecord[]
}

export interface WebhookRecord {
  id: string
  url: string
  events: string[]
  signing_secret: string
  created_at: string
}

/** A remembered successful order creation, keyed by `<key_id> <Idempotency-Key>`. */
export interface IdempotencyRecord {
  fingerprint: string
  order_id: number
  /** The response body as first sent, replayed byte for byte. */
  body: string
}

/** What the data file holds (tokens are not kept: see decisions). */
export interface Snapshot {
  version: 1
  /** The last journal sequence number this snapshot includes (see persistence.ts). */
  seq?: number
  keys: KeyPair[]
  next: {customer: number; order: number; refund: number; address: number}
  customers: CustomerRecord[]
  orders: OrderRecord[]
  webhooks: WebhookRecord[]
  idempotency: Record<string, IdempotencyRecord>
}

/** One mutation, as the journal records it (the record as it is after the change). */
export type Change =
  | {customer: CustomerRecord}
  | {deletedCustomer: number}
  | {order: OrderRecord}
  | {webhook: WebhookRecord}
  | {idempotency: [string, IdempotencyRecord]}
  | {state: Snapshot}

export interface Page<T> {
  data: T[]
  total: number
}
