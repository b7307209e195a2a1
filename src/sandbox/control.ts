/**
 * The sandbox-only control path, outside `/api/`: no authentication, JSON in and out. It moves orders along
 * (paying one fires `order.paid` deliveries) and shows the delivery log. `GET /_sandbox` describes it.
 */
import {CONTROL_ROUTES} from './control-routes.js'
import {isObject} from '../domain/json.js'
import {checkOneOf, checkPositiveInt, parseId} from '../domain/validate.js'
import {
  checkOverrides,
  type Core,
  createCustomer,
  deleteCustomer,
  emit,
  type Emitted,
  isoNow,
  type Overrides,
  payOrder,
  placeOrder,
  randomId,
  refundOrder,
  replaceState,
  shipOrder,
  updateCustomer,
} from './core.js'
import {CONTROL_PREFIX, SANDBOX_EVENTS, type SandboxEvent} from './decisions.js'
import {type FaultInput, validateFault} from './faults.js'
import {HttpError, type Reply, type Router, validationError} from './http.js'
import {applyScenario} from './apply-scenario.js'
import {CATALOGUE} from './seed.js'
import {type SnapshotShelf, snapshotRoutes} from './snapshots.js'
import type {CustomerRecord, OrderRecord} from './record-store.js'
import {isLoopback} from './guard.js'
import {salesSeries} from './sales.js'
import {inspectorPage} from './ui.js'
import {customerView, orderSummary, orderView, webhookView} from './views.js'

/** The customer that triggered order events use when no order is named. */
const TRIGGER_EMAIL = 'sandbox-trigger@example.com'

interface EventInput {
  type?: unknown
  order_id?: unknown
  customer_id?: unknown
  set?: unknown
}

export function controlRoutes(router: Router, core: Core, shelf: SnapshotShelf, describe: () => Record<string, unknown>): void {
  const dataBody = () => ({
    customers: core.store.listCustomers({page: 1, perPage: 100}).data.map(customerView),
    orders: core.store.listOrders({page: 1, perPage: 100}).data.map(orderSummary),
    webhooks: core.store.listWebhooks().map(webhookView),
  })
  const orderFrom = (raw: string): OrderRecord => {
    const id = parseId(raw)
    const order = id === undefined ? undefined : core.store.order(id)
    if (!order) throw new HttpError(404, `No order has id ${JSON.stringify(raw)}`)
    return order
  }
  const answer = (emitted: Emitted, order?: OrderRecord, extra: Record<string, unknown> = {}): Reply => ({
    body: {type: emitted.event.type, event_id: emitted.event.id, endpoints: emitted.endpoints, ...(order ? {order: orderView(order)} : {}), ...extra},
    status: 200,
  })

  snapshotRoutes(
    router,
    core.store,
    shelf,
    () => core.now(),
    (snapshot, name) => replaceState(core, snapshot, `snapshot ${name} was restored: the events of the state it replaced are not delivered after it`),
  )
  router
    .add('GET', CONTROL_PREFIX, () => ({body: {...describe(), routes: CONTROL_ROUTES}, status: 200}))
    .add('POST', `${CONTROL_PREFIX}/orders/:order/pay`, ({params}) => {
      const order = orderFrom(params.order)
      return answer(payOrder(core, order), order)
    })
    .add('POST', `${CONTROL_PREFIX}/orders/:order/ship`, ({params}) => {
      const order = orderFrom(params.order)
      return answer(shipOrder(core, order), order)
    })
    .add('POST', `${CONTROL_PREFIX}/events`, async ({body}) => triggerEvent(core, (await body()) ?? {}, orderFrom, answer))
    .add('GET', `${CONTROL_PREFIX}/deliveries`, () => ({body: {data: core.deliveries.entries().reverse()}, status: 200}))
    .add('POST', `${CONTROL_PREFIX}/seed`, async ({body}) => ({body: {ids: applyScenario(core, await body())}, status: 200}))
    .add('POST', `${CONTROL_PREFIX}/reset`, () => {
      const before = core.store.counts()
      const empty = {customers: [], idempotency: {}, next: {address: 1, customer: 1, order: 1, refund: 1}, orders: [], webhooks: []}
      replaceState(core, empty, 'the sandbox was reset: its events are not delivered after it')
      return {body: {removed: before}, status: 200}
    })
    .add('GET', `${CONTROL_PREFIX}/data`, () => ({body: dataBody(), status: 200}))
    .add('GET', `${CONTROL_PREFIX}/webhooks/:webhook/secret`, ({params}) => webhookSecret(core, params.webhook))
    .add('GET', `${CONTROL_PREFIX}/sales`, () => ({body: salesSeries(core.store.allOrders(), core.now()), status: 200}))
    .add('GET', `${CONTROL_PREFIX}/ui`, ({req}) => {
      if (!isLoopback(req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? ''))
        throw new HttpError(403, 'The inspector page is served to this machine only (loopback clients)')
      return {
        headers: {'cache-control': 'no-store', 'content-type': 'text/html; charset=utf-8', 'x-frame-options': 'DENY'},
        // What the sandbox holds now, drawn before the page fetches anything.
        raw: inspectorPage({
          data: dataBody(),
          deliveries: {data: core.deliveries.entries().reverse()},
          info: describe(),
          logs: {data: core.requestLog.since(0)},
          sales: salesSeries(core.store.allOrders(), core.now()),
        }),
        status: 200,
      }
    })
    .add('GET', `${CONTROL_PREFIX}/faults`, () => ({body: {data: core.faults.list()}, status: 200}))
    .add('POST', `${CONTROL_PREFIX}/faults`, async ({body}) => {
      const input = ((await body()) ?? {}) as FaultInput
      const errors = validateFault(input)
      if (Object.keys(errors).length > 0) throw validationError(errors)
      return {body: core.faults.add(input), status: 201}
    })
    .add('DELETE', `${CONTROL_PREFIX}/faults`, () => ({body: {cleared: core.faults.clear()}, status: 200}))
    .add('GET', `${CONTROL_PREFIX}/logs`, async ({query}) => {
      const after = Number(query.get('after') ?? 0)
      const wait = Math.min(Math.max(Number(query.get('wait') ?? 0), 0), 25)
      if (!Number.isFinite(after) || !Number.isFinite(wait)) throw validationError({after: ['must be a number']})
      let data = core.requestLog.since(after)
      if (data.length === 0 && wait > 0) {
        await core.requestLog.next(wait * 1000)
        data = core.requestLog.since(after)
      }
      return {body: {data}, status: 200}
    })
}

function triggerEvent(
  core: Core,
  input: EventInput,
  orderFrom: (raw: string) => OrderRecord,
  answer: (emitted: Emitted, order?: OrderRecord, extra?: Record<string, unknown>) => Reply,
): Reply {
  const {type, overrides} = checkEventInput(input)

  if (type.startsWith('order.')) return triggerOrderEvent(core, type, input, overrides, orderFrom, answer)

  const id = input.customer_id as number | undefined
  const named = id === undefined ? undefined : core.store.customer(id)
  if (id !== undefined && !named) throw new HttpError(404, `No customer has id ${id}`)
  const withCustomer = (emitted: Emitted, record: CustomerRecord, created?: number) =>
    answer(emitted, undefined, {customer: customerView(record), created: created === undefined ? {} : {customer: created}})
  if (type === 'customer.created') {
    if (named) return withCustomer(emit(core, type, customerView(named), overrides), named)
    const {customer, emitted} = createCustomer(
      core,
      {
        email: `sandbox-trigger-${randomId('', 4)}@example.com`,
        name: 'Sandbox Trigger',
        send_invite: false,
        metadata: {created_by: 'sandbox trigger'},
      },
      overrides,
    )
    return withCustomer(emitted, customer, customer.id)
  }
  if (type === 'customer.updated') {
    const trigger = named ? {created: false, id: named.id} : triggerCustomer(core)
    const record = core.store.customer(trigger.id)!
    const emitted = updateCustomer(core, record, {metadata: {triggered_at: isoNow(core)}}, overrides)
    return withCustomer(emitted, record, trigger.created ? record.id : undefined)
  }
  // customer.deleted: the named customer, or a new throwaway one (never the trigger customer).
  const record =
    named ?? createCustomer(core, {email: `sandbox-deleted-${randomId('', 4)}@example.com`, name: 'Sandbox Deleted', send_invite: false}).customer
  return withCustomer(deleteCustomer(core, record, overrides), record, named ? undefined : record.id)
}

/** The one sandbox customer triggered order events use (created once, reactivated when archived). */
function triggerCustomer(core: Core): {id: number; created: boolean} {
  const existing = core.store.customerIdByEmail(TRIGGER_EMAIL)
  const record = existing === undefined ? undefined : core.store.customer(existing)
  if (record) {
    if (record.status === 'archived') updateCustomer(core, record, {status: 'active'})
    return {created: false, id: record.id}
  }
  const {customer} = createCustomer(core, {
    email: TRIGGER_EMAIL,
    metadata: {created_by: 'sandbox control path'},
    name: 'Sandbox Trigger',
    send_invite: false,
  })
  return {created: true, id: customer.id}
}

/** The trigger's type and overrides, checked: a 422 naming every bad field, before anything happens. */
function checkEventInput(input: EventInput): {type: SandboxEvent; overrides: Overrides} {
  const problem = checkOneOf(input.type, SANDBOX_EVENTS)
  if (problem) throw validationError({type: [problem]})
  const type = input.type as SandboxEvent
  const orderEvent = type.startsWith('order.')
  const errors: Record<string, string[]> = {}
  for (const [field, value] of [
    ['order_id', input.order_id],
    ['customer_id', input.customer_id],
  ] as const) {
    const bad = value === undefined ? undefined : checkPositiveInt(value)
    if (bad) errors[field] = [bad]
  }
  if (orderEvent && input.customer_id !== undefined) errors.customer_id = [`is for customer events; ${type} takes order_id`]
  if (!orderEvent && input.order_id !== undefined) errors.order_id = [`is for order events; ${type} takes customer_id`]
  let overrides: Overrides = {}
  if (input.set !== undefined) {
    if (!isObject(input.set)) errors.set = ['must be an object of "data.FIELD": value']
    else {
      overrides = input.set
      const bad = checkOverrides(type, overrides)
      if (bad.length > 0) errors.set = bad
    }
  }
  if (Object.keys(errors).length > 0) throw validationError(errors)
  return {overrides, type}
}

/** An order event: on the named order (which must be in a state that takes it), or on a new order. */
function triggerOrderEvent(
  core: Core,
  type: SandboxEvent,
  input: EventInput,
  overrides: Overrides,
  orderFrom: (raw: string) => OrderRecord,
  answer: (emitted: Emitted, order?: OrderRecord, extra?: Record<string, unknown>) => Reply,
): Reply {
  const named = input.order_id === undefined ? undefined : orderFrom(`${input.order_id as number}`)
  // Check the named order can take the change before anything happens.
  if (named && type === 'order.paid' && named.status !== 'pending')
    throw new HttpError(409, `Order ${named.id} is ${named.status}; only a pending order can be paid`)
  if (named && type === 'order.shipped' && named.status !== 'paid')
    throw new HttpError(409, `Order ${named.id} is ${named.status}; only a paid order can be shipped`)
  if (named && type === 'order.refunded' && named.status !== 'paid' && named.status !== 'shipped')
    throw new HttpError(409, `Order ${named.id} is ${named.status}; only a paid or shipped order can be refunded`)
  let created: {customer?: number; order?: number} = {}
  let order = named
  if (!order) {
    const trigger = triggerCustomer(core)
    const placed = placeOrder(
      core,
      {currency: CATALOGUE[0].currency, customer_id: trigger.id, items: [{product_id: CATALOGUE[0].id}]},
      type === 'order.created' ? overrides : undefined,
    )
    order = placed.order
    created = {...(trigger.created ? {customer: trigger.id} : {}), order: order.id}
    if (type === 'order.created') return answer(placed.emitted, order, {created, customer: customerView(core.store.customer(trigger.id)!)})
  }
  const customer = core.store.customer(order.customer_id)
  const extra = {created, ...(customer ? {customer: customerView(customer)} : {})}
  if (type === 'order.created') return answer(emit(core, type, orderView(order), overrides), order, extra)
  if (!named || type === 'order.paid') {
    const paid = payOrder(core, order, type === 'order.paid' ? overrides : undefined)
    if (type === 'order.paid') return answer(paid, order, extra)
  }
  if (type === 'order.shipped') return answer(shipOrder(core, order, overrides), order, extra)
  return answer(refundOrder(core, order, {reason: 'sandbox trigger'}, overrides).emitted, order, extra)
}

/** An endpoint's signing secret (`webhooks secret` of one a scenario made: the profile never saw it). */
function webhookSecret(core: Core, id: string): Reply {
  const webhook = core.store.webhook(id)
  if (!webhook) throw new HttpError(404, `No webhook endpoint ${id}`)
  return {body: {id: webhook.id, signing_secret: webhook.signing_secret}, status: 200}
}
