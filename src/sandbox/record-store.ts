/**
 * The sandbox's data and its indexes. Records are kept in Maps by id; every list reads an `IdIndex`
 * (all, per status, per customer), and emails are indexed (lower-cased) for uniqueness checks. The store
 * knows nothing of HTTP; `changed` is called after every mutation so that persistence can schedule a write.
 */
import type {CustomerStatus, OrderStatus} from '../domain/schema.js'
import {CUSTOMER_STATUSES, ORDER_STATUSES} from '../domain/schema.js'
import {IdIndex} from './id-index.js'
import type {Change, CustomerRecord, IdempotencyRecord, KeyPair, OrderRecord, Page, RefundRecord, Snapshot, WebhookRecord} from './records.js'

export type {
  Change,
  CustomerRecord,
  IdempotencyRecord,
  KeyPair,
  OrderLine,
  OrderRecord,
  Page,
  RefundRecord,
  Snapshot,
  WebhookRecord,
} from './records.js'

export class Store {
  readonly keys: KeyPair[]
  private next: Snapshot['next']
  private readonly customers = new Map<number, CustomerRecord>()
  private readonly customerIds = new IdIndex()
  private readonly customersByStatus = indexesFor(CUSTOMER_STATUSES)
  private readonly emails = new Map<string, number>()
  private readonly orders = new Map<number, OrderRecord>()
  private readonly orderIds = new IdIndex()
  private readonly ordersByStatus = indexesFor(ORDER_STATUSES)
  private readonly ordersByCustomer = new Map<number, IdIndex>()
  private readonly webhooks: WebhookRecord[] = []
  private readonly idempotency = new Map<string, IdempotencyRecord>()
  /** Called synchronously after every mutation (persistence records it). */
  onChange: (change: Change, next: Snapshot['next']) => void = () => {}

  constructor(snapshot: Snapshot) {
    this.keys = snapshot.keys
    this.next = {...snapshot.next}
    this.load(snapshot)
  }

  /**
   * Replaces every record (reset, snapshot restore); the key pairs stay (they are the sandbox's identity, which
   * profiles and the state file hold). Recorded as one change: the whole new state.
   */
  replace(snapshot: Omit<Snapshot, 'keys' | 'version'>): void {
    this.customers.clear()
    this.customerIds.clear()
    for (const index of Object.values<IdIndex>(this.customersByStatus)) index.clear()
    this.emails.clear()
    this.orders.clear()
    this.orderIds.clear()
    for (const index of Object.values<IdIndex>(this.ordersByStatus)) index.clear()
    this.ordersByCustomer.clear()
    this.webhooks.length = 0
    this.idempotency.clear()
    this.next = {...snapshot.next}
    this.load(structuredClone({...snapshot, keys: this.keys, version: 1}))
    this.changed({state: this.snapshot()})
  }

  private load(snapshot: Snapshot): void {
    for (const c of snapshot.customers) this.indexCustomer(c)
    for (const o of snapshot.orders) this.indexOrder(o)
    this.webhooks.push(...snapshot.webhooks)
    for (const [k, v] of Object.entries(snapshot.idempotency)) this.idempotency.set(k, v)
  }

  static empty(keys: KeyPair[]): Store {
    return new Store({
      customers: [],
      idempotency: {},
      keys,
      next: {address: 1, customer: 1, order: 1, refund: 1},
      orders: [],
      version: 1,
      webhooks: [],
    })
  }

  /** Every order, in no particular order (the inspector's series reads them once). */
  allOrders(): IterableIterator<OrderRecord> {
    return this.orders.values()
  }

  snapshot(): Snapshot {
    return {
      customers: [...this.customers.values()],
      idempotency: Object.fromEntries(this.idempotency),
      keys: this.keys,
      next: {...this.next},
      orders: [...this.orders.values()],
      version: 1,
      webhooks: this.webhooks,
    }
  }

  counts(): {customers: number; orders: number; refunds: number; webhooks: number} {
    let refunds = 0
    for (const o of this.orders.values()) refunds += o.refunds.length
    return {customers: this.customers.size, orders: this.orders.size, refunds, webhooks: this.webhooks.length}
  }

  // -------------------------------------------------------------------------------------------- customers

  customer(id: number): CustomerRecord | undefined {
    return this.customers.get(id)
  }

  customerIdByEmail(email: string): number | undefined {
    return this.emails.get(email.toLowerCase())
  }

  addCustomer(fields: Omit<CustomerRecord, 'id'>): CustomerRecord {
    const record: CustomerRecord = {id: this.next.customer++, ...fields}
    this.indexCustomer(record)
    this.changed({customer: record})
    return record
  }

  newAddressId(): number {
    return this.next.address++
  }

  updateCustomer(record: CustomerRecord, patch: Partial<Pick<CustomerRecord, 'email' | 'metadata' | 'name' | 'status'>>): void {
    if (patch.email !== undefined && patch.email !== record.email) {
      this.emails.delete(record.email.toLowerCase())
      this.emails.set(patch.email.toLowerCase(), record.id)
      record.email = patch.email
    }
    if (patch.status !== undefined && patch.status !== record.status) {
      this.customersByStatus[record.status].remove(record.id)
      this.customersByStatus[patch.status].add(record.id)
      record.status = patch.status
    }
    if (patch.name !== undefined) record.name = patch.name
    if (patch.metadata !== undefined) record.metadata = patch.metadata
    this.changed({customer: record})
  }

  deleteCustomer(record: CustomerRecord): void {
    this.customers.delete(record.id)
    this.customerIds.remove(record.id)
    this.customersByStatus[record.status].remove(record.id)
    this.emails.delete(record.email.toLowerCase())
    this.changed({deletedCustomer: record.id})
  }

  /** Newest first. `q` (case-insensitive, name or email) scans; the other filters read an index. */
  listCustomers(opts: {page: number; perPage: number; status?: CustomerStatus; q?: string}): Page<CustomerRecord> {
    const index = opts.status ? this.customersByStatus[opts.status] : this.customerIds
    if (opts.q === undefined || opts.q === '') return this.pageOf(index, opts.page, opts.perPage, this.customers)
    const needle = opts.q.toLowerCase()
    return scanPage(
      index,
      this.customers,
      opts.page,
      opts.perPage,
      (c) => c.name.toLowerCase().includes(needle) || c.email.toLowerCase().includes(needle),
    )
  }

  // -------------------------------------------------------------------------------------------- orders

  order(id: number): OrderRecord | undefined {
    return this.orders.get(id)
  }

  addOrder(fields: Omit<OrderRecord, 'id'>): OrderRecord {
    const record: OrderRecord = {id: this.next.order++, ...fields}
    this.indexOrder(record)
    this.changed({order: record})
    return record
  }

  setOrderStatus(record: OrderRecord, status: OrderStatus): void {
    if (record.status === status) return
    this.ordersByStatus[record.status].remove(record.id)
    this.ordersByStatus[status].add(record.id)
    record.status = status
    this.changed({order: record})
  }

  addRefund(order: OrderRecord, fields: Omit<RefundRecord, 'id' | 'order_id' | 'currency'>): RefundRecord {
    const refund: RefundRecord = {
      id: this.next.refund++,
      order_id: order.id,
      amount: fields.amount,
      currency: order.currency,
      reason: fields.reason,
      created_at: fields.created_at,
    }
    order.refunds.push(refund)
    order.amount_refunded += refund.amount
    if (order.amount_refunded >= order.total) this.setOrderStatus(order, 'refunded')
    this.changed({order})
    return refund
  }

  /** Newest first. With `customerId`, that customer's index (filtered by status by a scan of it). */
  listOrders(opts: {page: number; perPage: number; status?: OrderStatus; customerId?: number}): Page<OrderRecord> {
    if (opts.customerId === undefined) {
      const index = opts.status ? this.ordersByStatus[opts.status] : this.orderIds
      return this.pageOf(index, opts.page, opts.perPage, this.orders)
    }
    const index = this.ordersByCustomer.get(opts.customerId)
    if (!index) return {data: [], total: 0}
    if (!opts.status) return this.pageOf(index, opts.page, opts.perPage, this.orders)
    const status = opts.status
    return scanPage(index, this.orders, opts.page, opts.perPage, (o) => o.status === status)
  }

  /** All of a customer's orders, newest first. */
  ordersOf(customerId: number): OrderRecord[] {
    const index = this.ordersByCustomer.get(customerId)
    return index ? [...index.newestFirst()].map((id) => this.orders.get(id)!) : []
  }

  // -------------------------------------------------------------------------------------------- webhooks

  addWebhook(record: WebhookRecord): void {
    this.webhooks.push(record)
    this.changed({webhook: record})
  }

  /** Newest first. */
  listWebhooks(): WebhookRecord[] {
    return [...this.webhooks].reverse()
  }

  subscribers(event: string): WebhookRecord[] {
    return this.webhooks.filter((w) => w.events.includes(event))
  }

  webhook(id: string): WebhookRecord | undefined {
    return this.webhooks.find((w) => w.id === id)
  }

  // -------------------------------------------------------------------------------------------- idempotency

  idempotent(key: string): IdempotencyRecord | undefined {
    return this.idempotency.get(key)
  }

  remember(key: string, record: IdempotencyRecord): void {
    this.idempotency.set(key, record)
    this.changed({idempotency: [key, record]})
  }

  // -------------------------------------------------------------------------------------------- internals

  private changed(change: Change): void {
    this.onChange(change, {...this.next})
  }

  private indexCustomer(c: CustomerRecord): void {
    this.customers.set(c.id, c)
    this.customerIds.add(c.id)
    this.customersByStatus[c.status].add(c.id)
    this.emails.set(c.email.toLowerCase(), c.id)
  }

  private indexOrder(o: OrderRecord): void {
    this.orders.set(o.id, o)
    this.orderIds.add(o.id)
    this.ordersByStatus[o.status].add(o.id)
    let byCustomer = this.ordersByCustomer.get(o.customer_id)
    if (!byCustomer) this.ordersByCustomer.set(o.customer_id, (byCustomer = new IdIndex()))
    byCustomer.add(o.id)
  }

  private pageOf<T>(index: IdIndex, page: number, perPage: number, records: Map<number, T>): Page<T> {
    return {data: index.page(page, perPage).map((id) => records.get(id)!), total: index.size}
  }
}

function indexesFor<S extends string>(values: readonly S[]): Record<S, IdIndex> {
  return Object.fromEntries(values.map((v) => [v, new IdIndex()])) as Record<S, IdIndex>
}

/** Walks an index newest first, keeping the matches of the requested page and counting all of them. */
function scanPage<T>(index: IdIndex, records: Map<number, T>, page: number, perPage: number, match: (r: T) => boolean): Page<T> {
  const from = (page - 1) * perPage
  const data: T[] = []
  let total = 0
  for (const id of index.newestFirst()) {
    const record = records.get(id)!
    if (!match(record)) continue
    if (total >= from && data.length < perPage) data.push(record)
    total++
  }
  return {data, total}
}
