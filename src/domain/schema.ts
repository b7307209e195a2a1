/**
 * The Commerce Service's resources, enums and limits, declared once.
 *
 * Everything here comes from `service-spec.md`. The sandbox serves from these declarations and the CLI
 * validates input against them before sending a request, so a limit changes in exactly one place.
 * Nothing here is a decision of ours about a gap in the spec: those live with the sandbox
 * (`src/sandbox/decisions.ts`), because the CLI must not depend on them.
 */

export const API_VERSIONS = ['v1', 'v2'] as const
export type ApiVersion = (typeof API_VERSIONS)[number]
export const DEFAULT_API_VERSION: ApiVersion = 'v2'

/** v1 is deprecated and retires on this date (spec, Versioning). */
export const V1_SUNSET_DATE = '2026-09-01'

export const CURRENCIES = ['USD', 'EUR', 'GBP'] as const
export type Currency = (typeof CURRENCIES)[number]
/**
 * The unit of money amounts, which the spec does not state: `minor` (cents, pence) or `major` (whole units).
 * A profile says which its service uses (`config set money_unit`); the CLI sends amounts unchanged either way.
 */
export const MONEY_UNITS = ['minor', 'major'] as const
export type MoneyUnit = (typeof MONEY_UNITS)[number]

/** The fields that hold an amount of money, in every resource the service returns. */
export const MONEY_FIELDS: readonly string[] = ['total', 'price', 'amount', 'unit_price', 'amount_refunded']

/**
 * Whether a record carries money (an amount at its top level), and so says its unit beside it under --json: every
 * record, of a list, a get, an export or --jq's input, through the one rendering (io/output.ts).
 */
export function carriesMoney(record: Record<string, unknown>): boolean {
  return MONEY_FIELDS.some((field) => typeof record[field] === 'number')
}

/** `record` with its unit beside its amounts (`money_unit`), when it carries money and does not say one already. */
export function withMoneyUnit<T extends Record<string, unknown>>(record: T, unit: string): T | (T & {money_unit: string}) {
  return carriesMoney(record) && !Object.hasOwn(record, 'money_unit') ? {...record, money_unit: unit} : record
}

export const CUSTOMER_STATUSES = ['active', 'invited', 'archived'] as const
export type CustomerStatus = (typeof CUSTOMER_STATUSES)[number]

export const ORDER_STATUSES = ['pending', 'paid', 'shipped', 'refunded'] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]

export const SCOPES = ['orders:read', 'orders:write', 'customers:read'] as const
export type Scope = (typeof SCOPES)[number]

/** Collections that `GET /customers/{customer}?include=` can embed. */
export const CUSTOMER_INCLUDES = ['orders', 'addresses'] as const
export type CustomerInclude = (typeof CUSTOMER_INCLUDES)[number]

/** Event names the service documents. */
export const EVENT_TYPES = ['order.paid'] as const

export const LIMITS = {
  perPage: {min: 1, max: 100},
  page: {min: 1},
  /** Free-text search `q` (customers v2, products). */
  searchMaxLength: 120,
  customerNameMaxLength: 255,
  /** Seconds. */
  tokenLifetime: 3600,
  webhookMinEvents: 1,
  orderMinItems: 1,
} as const

/** Documented rate limits, per minute. */
export const RATE_LIMITS = {
  orderCreate: {limit: 10, windowSeconds: 60},
  v1CustomersList: {limit: 60, windowSeconds: 60},
  v1ProductsList: {limit: 300, windowSeconds: 60},
} as const

// ---------------------------------------------------------------------------------------------
// Resources as the service returns them. Extra unknown fields may appear; readers must not fail on them.

export interface Customer {
  id: number
  email: string
  name: string
  status: CustomerStatus
  created_at: string
  metadata?: Record<string, unknown>
  [extra: string]: unknown
}

export interface OrderItem {
  product_id?: number
  quantity?: number
  unit_price?: number
  [extra: string]: unknown
}

export interface Order {
  id: number
  customer_id?: number
  status: OrderStatus
  total: number
  currency: Currency
  items?: OrderItem[]
  placed_at?: string
  [extra: string]: unknown
}

export interface Product {
  id: number
  name: string
  price: number
  currency: Currency
  in_stock: boolean
  [extra: string]: unknown
}

export interface IssuedToken {
  access_token: string
  token_type: string
  expires_in: number
  scopes: string[]
}

export interface WebhookEndpoint {
  id: string
  url: string
  events: string[]
  signing_secret?: string
  [extra: string]: unknown
}

export interface PageMeta {
  page: number
  per_page: number
  total: number
}

/**
 * A page as the CLI read it, whatever envelope the service used: `meta` only when the service gave a total
 * (src/api/paginate.ts fills in page and per_page). Used by list commands and the bulk export.
 */
export interface FetchedPage<T> {
  data: T[]
  meta?: PageMeta
}

// ---------------------------------------------------------------------------------------------
// The 24 operations. `auth: false` marks the six public ones: they never carry a token.

export type HttpMethod = 'DELETE' | 'GET' | 'PATCH' | 'POST'

export interface Operation {
  id: string
  method: HttpMethod
  /** Path after `/api/{version}`, with `{name}` placeholders. */
  path: string
  versions: readonly ApiVersion[]
  auth: boolean
}

const both = ['v1', 'v2'] as const
const v2 = ['v2'] as const
const v1 = ['v1'] as const

export const OPERATIONS = {
  issueToken: {id: 'issueToken', method: 'POST', path: '/auth/tokens', versions: both, auth: false},
  revokeToken: {id: 'revokeToken', method: 'DELETE', path: '/auth/tokens/current', versions: both, auth: true},
  listCustomers: {id: 'listCustomers', method: 'GET', path: '/customers', versions: both, auth: true},
  createCustomer: {id: 'createCustomer', method: 'POST', path: '/customers', versions: both, auth: true},
  getCustomer: {id: 'getCustomer', method: 'GET', path: '/customers/{customer}', versions: both, auth: true},
  updateCustomer: {id: 'updateCustomer', method: 'PATCH', path: '/customers/{customer}', versions: v2, auth: true},
  deleteCustomer: {id: 'deleteCustomer', method: 'DELETE', path: '/customers/{customer}', versions: v2, auth: true},
  listOrders: {id: 'listOrders', method: 'GET', path: '/orders', versions: both, auth: true},
  createOrder: {id: 'createOrder', method: 'POST', path: '/orders', versions: both, auth: true},
  getOrder: {id: 'getOrder', method: 'GET', path: '/orders/{order}', versions: v2, auth: true},
  refundOrder: {id: 'refundOrder', method: 'POST', path: '/orders/{order}/refunds', versions: v2, auth: true},
  listProducts: {id: 'listProducts', method: 'GET', path: '/products', versions: both, auth: false},
  searchProducts: {id: 'searchProducts', method: 'GET', path: '/products/search', versions: v1, auth: false},
  getProduct: {id: 'getProduct', method: 'GET', path: '/products/{product}', versions: v2, auth: false},
  listWebhooks: {id: 'listWebhooks', method: 'GET', path: '/webhooks', versions: v2, auth: true},
  createWebhook: {id: 'createWebhook', method: 'POST', path: '/webhooks', versions: v2, auth: true},
} as const satisfies Record<string, Operation>

export type OperationId = keyof typeof OPERATIONS

/** Every (version, operation) pair the service serves: 24 of them. */
export function servedOperations(): Array<{op: Operation; version: ApiVersion}> {
  const out: Array<{op: Operation; version: ApiVersion}> = []
  for (const op of Object.values(OPERATIONS) as Operation[]) for (const version of op.versions) out.push({op, version})
  return out
}

/** Top-level fields of each resource, in the order a table shows them. */
export const RESOURCE_COLUMNS = {
  customer: ['id', 'email', 'name', 'status', 'created_at'],
  order: ['id', 'customer_id', 'status', 'total', 'currency', 'placed_at'],
  product: ['id', 'name', 'price', 'currency', 'in_stock'],
  webhook: ['id', 'url', 'events'],
} as const

/**
 * Every known field of each resource, for `--fields` (help text and shell completion). A name not listed is
 * still accepted: the service may add fields, and such a field prints empty (null in JSON) where absent.
 */
export const RESOURCE_FIELDS = {
  customer: ['id', 'email', 'name', 'status', 'created_at', 'metadata', 'metadata.plan', 'orders', 'addresses'],
  order: ['id', 'customer_id', 'status', 'total', 'currency', 'placed_at', 'items', 'idempotency_key'],
  product: ['id', 'name', 'price', 'currency', 'in_stock'],
  webhook: ['id', 'url', 'events', 'signing_secret'],
} as const

export type ResourceName = keyof typeof RESOURCE_FIELDS

/**
 * The fields of a resource that a list returns (the spec's summaries: an order without its items, a customer without
 * what --include embeds, an endpoint without its secret); the rest only a whole record carries.
 */
export const LIST_FIELDS = {
  customer: ['id', 'email', 'name', 'status', 'created_at', 'metadata', 'metadata.plan'],
  order: ['id', 'customer_id', 'status', 'total', 'currency', 'placed_at'],
  product: RESOURCE_FIELDS.product,
  webhook: ['id', 'url', 'events'],
} as const satisfies Record<ResourceName, readonly string[]>

/** Where a page of a list stands in the whole: for the "Showing 1-30 of 250 (page 1 of 9)" line. */
export interface ListPosition {
  /** 1-based index of the first record shown. */
  first: number
  shown: number
  total?: number
  page?: number
  perPage?: number
}
