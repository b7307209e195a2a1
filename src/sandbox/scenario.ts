/**
 * Scenarios (`sandbox seed FILE`, `sandbox start --seed FILE`): a declarative JSON document of entries by kind,
 * each keyed by a name that later entries refer to as `${name.id}`, applied in file order through the service's
 * own rules (the same functions the API calls, so events fire and validation is the API's).
 *
 *   {"customers": {"alice": {...create body}}, "orders": {"first": {"customer_id": "${alice.id}", ..., "status": "paid"}},
 *    "refunds": {"back": {"order_id": "${first.id}", "amount": 500}}, "webhooks": {"local": {"url": ..., "events": [...]}}}
 *
 * The whole file is checked before anything is created: it is first applied to a scratch copy of the store (with
 * no deliveries), so an entry that would fail on the data (an email taken, an unknown product, a refund too large)
 * fails the file with nothing created, naming the entry and the field.
 */
import {isObject} from '../domain/json.js'
import {hasErrors, validateCustomerCreate, validateOrderCreate, validateRefund, validateWebhookCreate, type FieldErrors} from '../domain/validate.js'
import {checkSandboxEvents, type Core, createCustomer, createWebhook, type OrderInput, payOrder, placeOrder, refundOrder, shipOrder} from './core.js'
import {HttpError, validationError} from './http.js'
import {Store} from './store.js'

export const SCENARIO_KINDS = ['customers', 'orders', 'refunds', 'webhooks'] as const
const ORDER_TARGETS = ['pending', 'paid', 'shipped', 'refunded']
const REFERENCE = /\$\{([A-Za-z_][\w-]*)\.id\}/g

/** Names -> ids of what a scenario created. */
export type ScenarioIds = Record<string, number | string>

/** Applies `scenario` (already parsed JSON); 422 naming `kind.name.field` when anything is wrong, nothing created. */
export function applyScenario(core: Core, scenario: unknown): ScenarioIds {
  const entries = entriesOf(scenario)
  // The dry run: a copy of the store, no deliveries. Its errors are the file's errors.
  const scratch: Core = {
    ...core,
    deliveries: {send: () => {}} as unknown as Core['deliveries'],
    store: new Store(structuredClone(core.store.snapshot())),
  }
  run(scratch, entries)
  return run(core, entries)
}

interface Entry {
  kind: (typeof SCENARIO_KINDS)[number]
  name: string
  body: Record<string, unknown>
}

function entriesOf(scenario: unknown): Entry[] {
  if (!isObject(scenario)) throw validationError({scenario: ['must be a JSON object of kinds (customers, orders, refunds, webhooks)']})
  const entries: Entry[] = []
  const names = new Set<string>()
  const errors: FieldErrors = {}
  for (const [kind, group] of Object.entries(scenario)) {
    if (!(SCENARIO_KINDS as readonly string[]).includes(kind)) {
      errors[kind] = [`is not a kind of entry (known: ${SCENARIO_KINDS.join(', ')})`]
      continue
    }
    if (!isObject(group)) {
      errors[kind] = ['must be an object of named entries']
      continue
    }
    for (const [name, body] of Object.entries(group)) {
      if (!/^[A-Za-z_][\w-]*$/.test(name)) errors[`${kind}.${name}`] = ['is not a valid name (letters, digits, _ and -)']
      else if (names.has(name)) errors[`${kind}.${name}`] = ['is a name already used by an earlier entry']
      else if (!isObject(body)) errors[`${kind}.${name}`] = ['must be an object (the create body of its resource)']
      else entries.push({body, kind: kind as Entry['kind'], name})
      names.add(name)
    }
  }
  if (hasErrors(errors)) throw validationError(errors)
  return entries
}

/** Replaces `${name.id}` with the id of an earlier entry (the whole string: the id itself, as a number when it is one). */
function resolve(value: unknown, ids: ScenarioIds, where: string): unknown {
  if (typeof value === 'string') {
    const whole = /^\$\{([A-Za-z_][\w-]*)\.id\}$/.exec(value)
    const lookup = (name: string) => {
      if (!(name in ids)) throw validationError({[where]: [`refers to \${${name}.id}, which no earlier entry defines`]})
      return ids[name]
    }
    if (whole) return lookup(whole[1])
    return value.replace(REFERENCE, (_, name: string) => String(lookup(name)))
  }
  if (Array.isArray(value)) return value.map((v, i) => resolve(v, ids, `${where}.${i}`))
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, ids, `${where}.${k}`)]))
  return value
}

function prefixed(error: unknown, where: string): never {
  if (error instanceof HttpError) {
    const errors: FieldErrors = {}
    for (const [field, messages] of Object.entries(error.errors ?? {body: [error.message]})) errors[`${where}.${field}`] = messages
    throw validationError(errors)
  }
  throw error
}

function run(core: Core, entries: Entry[]): ScenarioIds {
  const ids: ScenarioIds = {}
  for (const {body: raw, kind, name} of entries) {
    const where = `${kind}.${name}`
    const body = resolve(raw, ids, where) as Record<string, unknown>
    try {
      ids[name] = apply(core, kind, body)
    } catch (error) {
      prefixed(error, where)
    }
  }
  return ids
}

function check(errors: FieldErrors): void {
  if (hasErrors(errors)) throw validationError(errors)
}

function apply(core: Core, kind: Entry['kind'], body: Record<string, unknown>): number | string {
  switch (kind) {
    case 'customers': {
      check(validateCustomerCreate(body))
      return createCustomer(core, body as Parameters<typeof createCustomer>[1]).customer.id
    }
    case 'orders': {
      const {status, ...create} = body
      if (status !== undefined && !ORDER_TARGETS.includes(status as string))
        throw validationError({status: [`must be one of ${ORDER_TARGETS.join(', ')} (got ${JSON.stringify(status)})`]})
      check(validateOrderCreate(create))
      const {order} = placeOrder(core, create as unknown as OrderInput)
      if (status === 'paid' || status === 'shipped' || status === 'refunded') payOrder(core, order)
      if (status === 'shipped') shipOrder(core, order)
      if (status === 'refunded') refundOrder(core, order, {reason: 'scenario'})
      return order.id
    }
    case 'refunds': {
      const {order_id: orderId, ...refund} = body
      const order = typeof orderId === 'number' ? core.store.order(orderId) : undefined
      if (!order) throw validationError({order_id: [orderId === undefined ? 'is required' : `no order has id ${JSON.stringify(orderId)}`]})
      check(validateRefund(refund))
      return refundOrder(core, order, refund).refund.id
    }
    case 'webhooks': {
      const errors = validateWebhookCreate(body, true)
      delete errors.events
      const eventsProblem = checkSandboxEvents(body.events)
      if (eventsProblem) errors.events = [eventsProblem]
      check(errors)
      return createWebhook(core, body as {url: string; events: string[]}).id
    }
  }
}
