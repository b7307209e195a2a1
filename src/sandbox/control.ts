/**
 * The sandbox-only control path, outside `/api/`: no authentication, JSON in and out. It moves orders along
 * (paying one fires `order.paid` deliveries) and shows the delivery log. `GET /_sandbox` describes it.
 */
import {EVENT_TYPES} from '../domain/schema.js'
import {checkOneOf, checkPositiveInt, parseId} from '../domain/validate.js'
import {type Core, isoNow, payOrder, placeOrder} from './core.js'
import {CONTROL_PREFIX} from './decisions.js'
import {HttpError, type Reply, type Router, validationError} from './http.js'
import {CATALOGUE} from './seed.js'
import type {OrderRecord} from './store.js'
import {orderView} from './views.js'

export const CONTROL_ROUTES = [
  {description: 'This description, with counts of the stored records.', method: 'GET', path: CONTROL_PREFIX},
  {description: 'Move a pending order to paid; sends order.paid to subscribed endpoints.', method: 'POST', path: `${CONTROL_PREFIX}/orders/{id}/pay`},
  {description: 'Move a paid order to shipped.', method: 'POST', path: `${CONTROL_PREFIX}/orders/{id}/ship`},
  {
    description:
      'Make an event happen. Body {"type": "order.paid", "order_id"?: N}: pays that pending order, or a new one (for a sandbox customer) when no order_id is given.',
    method: 'POST',
    path: `${CONTROL_PREFIX}/events`,
  },
  {description: 'Webhook delivery attempts, newest first.', method: 'GET', path: `${CONTROL_PREFIX}/deliveries`},
] as const

/** The customer that triggered events use when no order is named. */
const TRIGGER_EMAIL = 'sandbox-trigger@example.com'

export function controlRoutes(router: Router, core: Core, describe: () => Record<string, unknown>): void {
  const orderFrom = (raw: string): OrderRecord => {
    const id = parseId(raw)
    const order = id === undefined ? undefined : core.store.order(id)
    if (!order) throw new HttpError(404, `No order has id ${JSON.stringify(raw)}`)
    return order
  }
  const paid = (order: OrderRecord): Reply => {
    const {endpoints, event} = payOrder(core, order)
    return {body: {order: orderView(order), event_id: event.id, endpoints}, status: 200}
  }

  router
    .add('GET', CONTROL_PREFIX, () => ({body: {...describe(), routes: CONTROL_ROUTES}, status: 200}))
    .add('POST', `${CONTROL_PREFIX}/orders/:order/pay`, ({params}) => paid(orderFrom(params.order!)))
    .add('POST', `${CONTROL_PREFIX}/orders/:order/ship`, ({params}) => {
      const order = orderFrom(params.order!)
      if (order.status !== 'paid') throw new HttpError(409, `Order ${order.id} is ${order.status}; only a paid order can be shipped`)
      core.store.setOrderStatus(order, 'shipped')
      return {body: {order: orderView(order)}, status: 200}
    })
    .add('POST', `${CONTROL_PREFIX}/events`, async ({body}) => {
      const input = ((await body()) ?? {}) as {type?: unknown; order_id?: unknown}
      const problem = checkOneOf(input.type, EVENT_TYPES)
      if (problem) throw validationError({type: [problem]})
      if (input.order_id !== undefined) {
        const bad = checkPositiveInt(input.order_id)
        if (bad) throw validationError({order_id: [bad]})
        return paid(orderFrom(String(input.order_id)))
      }
      return paid(placeOrder(core, {currency: CATALOGUE[0]!.currency, customer_id: triggerCustomer(core), items: [{product_id: CATALOGUE[0]!.id}]}))
    })
    .add('GET', `${CONTROL_PREFIX}/deliveries`, () => ({body: {data: core.deliveries.entries().reverse()}, status: 200}))
}

function triggerCustomer(core: Core): number {
  const existing = core.store.customerIdByEmail(TRIGGER_EMAIL)
  const record = existing === undefined ? undefined : core.store.customer(existing)
  if (record && record.status !== 'archived') return record.id
  if (record) core.store.updateCustomer(record, {status: 'active'})
  return (
    record?.id ??
    core.store.addCustomer({
      addresses: [],
      created_at: isoNow(core),
      email: TRIGGER_EMAIL,
      metadata: {created_by: 'sandbox control path'},
      name: 'Sandbox Trigger',
      status: 'active',
    }).id
  )
}
