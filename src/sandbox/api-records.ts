/** The customer and order operations of api.ts. */
import type {CustomerStatus, OperationId, OrderStatus} from '../domain/schema.js'
import {CUSTOMER_STATUSES, ORDER_STATUSES} from '../domain/schema.js'
import {
  checkInclude,
  hasErrors,
  isUuid,
  parseId,
  validateCustomerCreate,
  validateCustomerUpdate,
  validateOrderCreate,
  validateRefund,
} from '../domain/validate.js'
import {createCustomer, deleteCustomer, type Core, type OrderInput, placeOrder, refundOrder, updateCustomer} from './core.js'
import {DELETE_CUSTOMER_STATUS} from './decisions.js'
import {HttpError, validationError} from './http.js'
import type {CustomerRecord, OrderRecord} from './record-store.js'
import {customerView, orderSummary, orderView, pageEnvelope} from './views.js'
import {canonicalJson} from '../domain/json.js'
import type {OpHandler} from './api-routes.js'
import {intParam, limited, notFound, optional, paging} from './api-query.js'

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

export function customerHandlers(
  core: Core,
): Pick<Record<OperationId, OpHandler>, 'listCustomers' | 'createCustomer' | 'getCustomer' | 'updateCustomer' | 'deleteCustomer'> {
  const {store} = core
  return {
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
  }
}

export function orderHandlers(core: Core): Pick<Record<OperationId, OpHandler>, 'listOrders' | 'createOrder' | 'getOrder' | 'refundOrder'> {
  const {store} = core
  return {
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
          throw validationError({'Idempotency-Key': [header === undefined ? 'is required (a UUID)' : 'must be a UUID']})
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
  }
}
