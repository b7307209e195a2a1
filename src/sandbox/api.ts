/**
 * The 24 operations of the service, routed from `OPERATIONS` in src/domain/schema.ts so that none is
 * missed: authentication (401), scopes (403), rate limits (429) and validation (422) happen here.
 */
import type {IncomingMessage} from 'node:http'

import type {ApiVersion, Currency, CustomerStatus, OperationId, OrderStatus, Scope} from '../domain/schema.js'
import {CURRENCIES, CUSTOMER_STATUSES, ORDER_STATUSES, SCOPES, servedOperations} from '../domain/schema.js'
import {
  checkInclude,
  checkOneOf,
  hasErrors,
  isUuid,
  parseId,
  validateCustomerCreate,
  validateCustomerUpdate,
  validateListQuery,
  validateOrderCreate,
  validateRefund,
  validateTokenRequest,
  validateWebhookCreate,
} from '../domain/validate.js'
import {
  checkSandboxEvents,
  createCustomer,
  createWebhook,
  deleteCustomer,
  type Core,
  type OrderInput,
  placeOrder,
  refundOrder,
  updateCustomer,
} from './core.js'
import {DEFAULT_PER_PAGE, DELETE_CUSTOMER_STATUS, OPERATION_SCOPES} from './decisions.js'
import {HttpError, type Reply, type Request, type Router, validationError} from './http.js'
import type {RateLimiter} from './rate-limit.js'
import {CATALOGUE, priced, product} from './seed.js'
import type {CustomerRecord, OrderRecord} from './store.js'
import {findKeyPair, type TokenRecord} from './tokens.js'
import {customerView, orderSummary, orderView, pageEnvelope, webhookView} from './views.js'
import {canonicalJson} from '../domain/json.js'

interface Call {
  request: Request
  version: ApiVersion
  /** Present for authenticated operations. */
  token?: TokenRecord
}

type OpHandler = (call: Call) => Promise<Reply> | Reply

export function apiRoutes(router: Router, core: Core): void {
  const handlers = operationHandlers(core)
  for (const {op, version} of servedOperations()) {
    const handler = handlers[op.id as OperationId]
    const pattern = `/api/${version}${op.path.replace(/\{(\w+)\}/g, ':$1')}`
    router.add(op.method, pattern, async (request) => {
      let token: TokenRecord | undefined
      // Revocation authenticates itself: an already revoked token may revoke again (204).
      if (op.auth && op.id !== 'revokeToken') {
        token = authenticate(core, request.req)
        const scope = OPERATION_SCOPES[op.id]
        if (scope && !token.scopes.includes(scope))
          throw new HttpError(403, `This operation requires the ${scope} scope; the token has: ${token.scopes.join(', ') || 'none'}`)
      }
      return handler({request, token, version})
    })
  }
}

const UNAUTHORIZED = {'www-authenticate': 'Bearer realm="commerce-sandbox"'}

function bearer(req: IncomingMessage): string {
  const header = req.headers.authorization
  if (!header) throw new HttpError(401, 'Missing bearer token: send "Authorization: Bearer <access token>"', undefined, UNAUTHORIZED)
  const m = /^Bearer +(\S+) *$/i.exec(header)
  if (!m) throw new HttpError(401, 'Malformed Authorization header: expected "Bearer <access token>"', undefined, UNAUTHORIZED)
  return m[1]
}

function authenticate(core: Core, req: IncomingMessage): TokenRecord {
  const found = core.tokens.lookup(bearer(req))
  if (found.state === 'valid') return found.token
  throw rejected(found.state)
}

function rejected(state: 'expired' | 'revoked' | 'unknown'): HttpError {
  const why = {expired: 'has expired; issue a new one', revoked: 'has been revoked', unknown: 'is not valid'}[state]
  return new HttpError(401, `The access token ${why}`, undefined, UNAUTHORIZED)
}

function limited(limiter: RateLimiter, subject: string, what: string): Record<string, string> {
  const r = limiter.take(subject)
  if (!r.ok) {
    throw new HttpError(429, `Too many ${what}; retry in ${r.retryAfterSeconds} s`, undefined, {
      'ratelimit-limit': String(limiter.max),
      'ratelimit-remaining': '0',
      'ratelimit-reset': String(r.retryAfterSeconds),
      'retry-after': String(r.retryAfterSeconds),
    })
  }
  return {'ratelimit-limit': String(limiter.max), 'ratelimit-remaining': String(r.remaining), 'ratelimit-reset': String(r.resetSeconds)}
}

/** Query integers as numbers when they look like integers, else the raw text (so the 422 message shows it). */
function intParam(query: URLSearchParams, name: string): number | string | undefined {
  const raw = query.get(name)
  if (raw === null) return undefined
  return /^-?\d{1,15}$/.test(raw) ? Number(raw) : raw
}

function paging(query: URLSearchParams, extra: Record<string, unknown>, statuses?: readonly string[]) {
  const q = {page: intParam(query, 'page'), per_page: intParam(query, 'per_page'), ...extra}
  const errors = validateListQuery(q, statuses)
  if (hasErrors(errors)) throw validationError(errors)
  return {page: (q.page as number | undefined) ?? 1, perPage: (q.per_page as number | undefined) ?? DEFAULT_PER_PAGE}
}

function optional(query: URLSearchParams, name: string): string | undefined {
  return query.get(name) ?? undefined
}

function notFound(kind: string, raw: string): HttpError {
  return new HttpError(404, `No ${kind} has id ${JSON.stringify(raw)}`)
}

function customerFrom(core: Core, raw: string): CustomerRecord {
  const id = parseId(raw)
  const record = id === undefined ? undefined : core.store.customer(id)
  if (!record) throw notFound('customer', raw)
  return record
}

function orderFrom(core: Core, raw: string): OrderRecord {
  const id = parseId(raw)
  const record = id === undefined ? undefined : core.store.order(id)
  if (!record) throw notFound('order', raw)
  return record
}

function operationHandlers(core: Core): Record<OperationId, OpHandler> {
  const {store} = core

  const productsPage = (query: URLSearchParams, q: string | undefined): Reply => {
    const currency = optional(query, 'currency')
    const {page, perPage} = paging(query, {currency, q})
    // Every word, in any order, as a substring of the name or the description: "tea pot" finds "Teapot 1 l".
    const words = (q ?? '')
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w !== '')
    const matches = CATALOGUE.filter((p) => {
      const text = `${p.name}\n${p.description}`.toLowerCase()
      return words.every((w) => text.includes(w))
    }).reverse()
    const data = matches.slice((page - 1) * perPage, page * perPage).map((p) => priced(p, currency as Currency | undefined))
    return {body: pageEnvelope(data, page, perPage, matches.length), status: 200}
  }

  return {
    issueToken: async ({request}) => {
      const body = await request.body()
      const errors = validateTokenRequest(body)
      if (hasErrors(errors)) {
        const [field, messages] = Object.entries(errors)[0]
        throw new HttpError(422, `Invalid token request: ${field} ${messages[0]}`)
      }
      const {key_id, key_secret, scopes} = body as {key_id: string; key_secret: string; scopes?: Scope[]}
      const key = findKeyPair(store.keys, key_id, key_secret)
      if (!key) throw new HttpError(422, 'The key pair was rejected')
      const granted = scopes === undefined ? key.scopes : SCOPES.filter((s) => scopes.includes(s))
      if (granted.length === 0) throw new HttpError(422, 'scopes must name at least one scope')
      const refused = granted.filter((s) => !key.scopes.includes(s))
      if (refused.length > 0) throw new HttpError(422, `The key is not entitled to: ${refused.join(', ')}`)
      return {
        body: {access_token: core.tokens.issue(key, granted), token_type: 'Bearer', expires_in: core.tokens.ttl, scopes: granted},
        headers: {'cache-control': 'no-store'},
        status: 201,
      }
    },

    revokeToken: ({request}) => {
      const found = core.tokens.lookup(bearer(request.req))
      if (found.state === 'expired' || found.state === 'unknown') throw rejected(found.state)
      found.token.revoked = true
      return {status: 204}
    },

    listCustomers: ({request: {query}, token, version}) => {
      const headers = version === 'v1' ? limited(core.limits.v1Customers, token!.keyId, 'customer list requests') : {}
      const status = optional(query, 'status')
      const q = version === 'v2' ? optional(query, 'q') : undefined
      const {page, perPage} = paging(query, {q, status}, CUSTOMER_STATUSES)
      const result = store.listCustomers({page, perPage, q, status: status as CustomerStatus | undefined})
      return {body: pageEnvelope(result.data.map(customerView), page, perPage, result.total), headers, status: 200}
    },

    createCustomer: async ({request}) => {
      const body = await request.body()
      const errors = validateCustomerCreate(body)
      if (hasErrors(errors)) throw validationError(errors)
      const {customer} = createCustomer(core, body as Parameters<typeof createCustomer>[1])
      return {body: customerView(customer), status: 201}
    },

    getCustomer: ({request: {params, query}}) => {
      const record = customerFrom(core, params.customer)
      const include = optional(query, 'include')
      if (include === undefined) return {body: customerView(record), status: 200}
      const problem = checkInclude(include)
      if (problem) throw validationError({include: [problem]})
      const embedded = include === 'orders' ? store.ordersOf(record.id).map(orderSummary) : record.addresses
      return {body: {...customerView(record), [include]: embedded}, status: 200}
    },

    updateCustomer: async ({request}) => {
      const record = customerFrom(core, request.params.customer)
      const body = await request.body()
      const errors = validateCustomerUpdate(body)
      if (hasErrors(errors)) throw validationError(errors)
      updateCustomer(core, record, body as Parameters<typeof updateCustomer>[2])
      return {body: customerView(record), status: 200}
    },

    deleteCustomer: ({request}) => {
      deleteCustomer(core, customerFrom(core, request.params.customer))
      return {status: DELETE_CUSTOMER_STATUS}
    },

    listOrders: ({request: {query}}) => {
      const status = optional(query, 'status')
      const customerId = intParam(query, 'customer_id')
      const {page, perPage} = paging(query, {customer_id: customerId, status}, ORDER_STATUSES)
      const result = store.listOrders({customerId: customerId as number | undefined, page, perPage, status: status as OrderStatus | undefined})
      return {body: pageEnvelope(result.data.map(orderSummary), page, perPage, result.total), status: 200}
    },

    createOrder: async ({request, token, version}) => {
      const header = request.req.headers['idempotency-key']
      const body = await request.body()
      let idemKey: string | undefined
      let fingerprint = ''
      if (version === 'v1') {
        if (header !== undefined) throw new HttpError(400, 'The Idempotency-Key header is not accepted in v1; use POST /api/v2/orders')
      } else {
        if (typeof header !== 'string' || !isUuid(header.trim()))
          throw new HttpError(400, 'The Idempotency-Key header is required in v2 and must be a UUID')
        idemKey = `${token!.keyId} ${header.trim().toLowerCase()}`
        fingerprint = canonicalJson(body)
        const seen = store.idempotent(idemKey)
        if (seen && seen.fingerprint !== fingerprint) throw validationError({'Idempotency-Key': ['was already used with a different request body']})
        if (seen) return {headers: {'idempotent-replayed': 'true'}, raw: seen.body, status: 201}
      }
      const headers = limited(core.limits.orders, token!.keyId, 'order creations')
      const errors = validateOrderCreate(body)
      if (hasErrors(errors)) throw validationError(errors)
      const {order} = placeOrder(core, body as OrderInput)
      const raw = JSON.stringify(orderView(order))
      if (idemKey) store.remember(idemKey, {body: raw, fingerprint, order_id: order.id})
      return {headers, raw, status: 201}
    },

    getOrder: ({request}) => ({body: orderView(orderFrom(core, request.params.order)), status: 200}),

    refundOrder: async ({request}) => {
      const order = orderFrom(core, request.params.order)
      const body = await request.body()
      const errors = validateRefund(body)
      if (hasErrors(errors)) throw validationError(errors)
      const {refund} = refundOrder(core, order, body ?? {})
      return {body: refund, status: 201}
    },

    listProducts: ({request, version}) => {
      const headers = version === 'v1' ? limited(core.limits.v1Products, request.req.socket.remoteAddress ?? '?', 'product list requests') : {}
      return {...productsPage(request.query, optional(request.query, 'q')), headers}
    },

    searchProducts: ({request: {query}}) => {
      const q = optional(query, 'q')
      if (q === undefined || q.trim() === '') throw validationError({q: ['is required']})
      return productsPage(query, q)
    },

    getProduct: ({request: {params, query}}) => {
      const id = parseId(params.product)
      const p = id === undefined ? undefined : product(id)
      if (!p) throw notFound('product', params.product)
      const currency = optional(query, 'currency')
      const problem = currency === undefined ? undefined : checkOneOf(currency, CURRENCIES)
      if (problem) throw validationError({currency: [problem]})
      return {body: priced(p, currency as Currency | undefined), status: 200}
    },

    listWebhooks: () => {
      const data = store.listWebhooks().map(webhookView)
      // No parameters: every endpoint on page 1.
      return {body: pageEnvelope(data, 1, Math.max(1, data.length), data.length), status: 200}
    },

    createWebhook: async ({request}) => {
      const body = await request.body()
      // Event names are the sandbox's to check: it sends SANDBOX_EVENTS (the CLI accepts any name).
      const errors = validateWebhookCreate(body, true)
      delete errors.events
      const eventsProblem = checkSandboxEvents((body as {events?: unknown} | undefined)?.events)
      if (eventsProblem) errors.events = [eventsProblem]
      if (hasErrors(errors)) throw validationError(errors)
      const record = createWebhook(core, body as {url: string; events: string[]})
      return {body: {...webhookView(record), signing_secret: record.signing_secret}, status: 201}
    },
  }
}
