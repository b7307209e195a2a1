/**
 * Scenarios (`sandbox seed FILE`, `sandbox start --seed FILE`) in the format of domain/scenario.ts, applied in
 * file order through the service's own rules (the same functions the API calls, so events fire and validation
 * is the API's). The sandbox adds one thing the API cannot do: an order's `status` (paid, shipped, refunded).
 *
 * The whole file is checked before anything is created: it is first applied to a scratch copy of the store (with
 * no deliveries), so an entry that would fail on the data (an email taken, an unknown product, a refund too large)
 * fails the file with nothing created, naming the entry and the field.
 */
import {checkEntry, checkScenario, parseScenario, resolveReferences, ScenarioError, type ScenarioEntry} from '../domain/scenario.js'
import {hasErrors, type FieldErrors} from '../domain/validate.js'
import {checkSandboxEvents, type Core, createCustomer, createWebhook, type OrderInput, payOrder, placeOrder, refundOrder, shipOrder} from './core.js'
import {HttpError, validationError} from './http.js'
import {Store} from './record-store.js'

/** Names -> ids of what a scenario created. */
export type ScenarioIds = Record<string, number | string>

const CHECKS = {loopbackWebhooks: true, narrowEvents: checkSandboxEvents, sandbox: true}

/** Applies `scenario` (already parsed JSON); 422 naming `kind.name.field` when anything is wrong, nothing created. */
export function applyScenario(core: Core, scenario: unknown): ScenarioIds {
  const entries = asHttp(() => parseScenario(scenario))
  const errors = checkScenario(entries, CHECKS)
  if (hasErrors(errors)) throw validationError(errors)
  // The dry run: a copy of the store, no deliveries. Its errors are the file's errors.
  const scratch: Core = {
    ...core,
    deliveries: {send: () => {}} as unknown as Core['deliveries'],
    store: new Store(structuredClone(core.store.snapshot())),
  }
  run(scratch, entries)
  return run(core, entries)
}

function asHttp<T>(work: () => T): T {
  try {
    return work()
  } catch (error) {
    if (error instanceof ScenarioError) throw validationError(error.errors)
    throw error
  }
}

function prefixed(error: unknown, where: string): never {
  if (error instanceof HttpError) {
    const errors: FieldErrors = {}
    for (const [field, messages] of Object.entries(error.errors ?? {body: [error.message]})) errors[`${where}.${field}`] = messages
    throw validationError(errors)
  }
  throw error
}

function run(core: Core, entries: ScenarioEntry[]): ScenarioIds {
  const ids: ScenarioIds = {}
  const records: Record<string, Record<string, unknown>> = {}
  for (const {body: raw, kind, name} of entries) {
    const where = `${kind}.${name}`
    const body = asHttp(() => resolveReferences(raw, records, where)) as Record<string, unknown>
    try {
      const errors = checkEntry(kind, body, CHECKS)
      if (hasErrors(errors)) throw validationError(errors)
      records[name] = apply(core, kind, body)
      ids[name] = records[name].id as number | string
    } catch (error) {
      prefixed(error, where)
    }
  }
  return ids
}

function apply(core: Core, kind: ScenarioEntry['kind'], body: Record<string, unknown>): Record<string, unknown> {
  switch (kind) {
    case 'customers':
      return {...createCustomer(core, body as Parameters<typeof createCustomer>[1]).customer}
    case 'orders': {
      const {status, ...create} = body
      const {order} = placeOrder(core, create as unknown as OrderInput)
      if (status === 'paid' || status === 'shipped' || status === 'refunded') payOrder(core, order)
      if (status === 'shipped') shipOrder(core, order)
      if (status === 'refunded') refundOrder(core, order, {reason: 'scenario'})
      return {...order}
    }
    case 'refunds': {
      const {order_id: orderId, ...refund} = body
      const order = core.store.order(orderId as number)
      if (!order) throw validationError({order_id: [`no order has id ${JSON.stringify(orderId)}`]})
      return {...refundOrder(core, order, refund).refund}
    }
    case 'webhooks':
      return {...createWebhook(core, body as {url: string; events: string[]})}
  }
}
