/**
 * The scenario format, shared by `sandbox seed` (through the sandbox's control path) and `fixtures run`
 * (through the public API): one parser, one validator, one reference resolver.
 *
 *   {"customers": {"alice": {...create body}},
 *    "orders": {"first": {"customer_id": "${alice.id}", "currency": "USD", "items": [...]}},
 *    "refunds": {"back": {"order_id": "${first.id}", "amount": 500}},
 *    "webhooks": {"hook": {"url": "https://...", "events": ["order.paid"]}}}
 *
 * Entries are grouped by kind and keyed by a name; they are applied in file order (kinds in the order the file
 * lists them), and a later entry refers to any field of an earlier entry's created record as `${name.field}`
 * (`${alice.id}`, `${alice.email}`, `${first.items.0.product_id}`). A string that is one reference becomes the
 * value itself (a number stays a number); a reference inside a longer string is spliced in as text.
 */
import {MAX_JSON_DEPTH} from './bulk-formats.js'
import {isObject} from './json.js'
import {
  canonicalCurrency,
  checkOneOf,
  type FieldErrors,
  hasErrors,
  validateCustomerCreate,
  validateOrderCreate,
  validateRefund,
  validateWebhookCreate,
} from './validate.js'

export const SCENARIO_KINDS = ['customers', 'orders', 'refunds', 'webhooks'] as const
export type ScenarioKind = (typeof SCENARIO_KINDS)[number]

/** What an order entry may add in the sandbox only: the state the sandbox moves it to after creating it. */
export const SANDBOX_ORDER_TARGETS = ['pending', 'paid', 'shipped', 'refunded'] as const

export interface ScenarioEntry {
  kind: ScenarioKind
  name: string
  body: Record<string, unknown>
}

/** Messages per `kind.name.field`: the file's problems, all of them. */
export class ScenarioError extends Error {
  constructor(readonly errors: FieldErrors) {
    const [field, messages] = Object.entries(errors)[0] ?? ['scenario', ['is invalid']]
    super(`${field} ${messages[0]}`)
    this.name = 'ScenarioError'
  }
}

const NAME = /^[A-Za-z_][\w-]*$/
const REFERENCE = /\$\{([A-Za-z_][\w-]*)\.([\w-]+(?:\.[\w-]+)*)\}/g
const WHOLE_REFERENCE = /^\$\{([A-Za-z_][\w-]*)\.([\w-]+(?:\.[\w-]+)*)\}$/

/** The entries in file order; throws a ScenarioError for a bad shape or a bad or repeated name (references: checkScenario). */
export function parseScenario(scenario: unknown): ScenarioEntry[] {
  if (!isObject(scenario)) throw new ScenarioError({scenario: [`must be a JSON object of kinds (${SCENARIO_KINDS.join(', ')})`]})
  const entries: ScenarioEntry[] = []
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
      const where = `${kind}.${name}`
      if (!NAME.test(name)) errors[where] = ['is not a valid name (letters, digits, _ and -)']
      else if (names.has(name)) errors[where] = ['is a name already used by an earlier entry']
      else if (!isObject(body)) errors[where] = ['must be an object (the create body of its resource)']
      // Enum values in any case, as on the command line: `"currency": "usd"` is USD.
      else
        entries.push({
          body: kind === 'orders' && 'currency' in body ? {...body, currency: canonicalCurrency(body.currency)} : body,
          kind: kind as ScenarioKind,
          name,
        })
      names.add(name)
    }
  }
  if (hasErrors(errors)) throw new ScenarioError(errors)
  return entries
}

function danglingReferences(value: unknown, earlier: ReadonlySet<string>, path = ''): Array<[string, string]> {
  if (typeof value === 'string') {
    return [...value.matchAll(REFERENCE)]
      .filter(([, name]) => !earlier.has(name))
      .map(([ref, name]) => [path || 'body', `refers to ${ref}, which no earlier entry defines (${name})`])
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => danglingReferences(v, earlier, path ? `${path}.${i}` : String(i)))
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => danglingReferences(v, earlier, path ? `${path}.${k}` : k))
  return []
}

/** Whether `value` (a body or any part of it) holds a reference. */
export function hasReference(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('${')
  if (Array.isArray(value)) return value.some(hasReference)
  if (isObject(value)) return Object.values(value).some(hasReference)
  return false
}

/** The created records so far, by name: what references resolve against. */
export type ScenarioRecords = Readonly<Record<string, Readonly<Record<string, unknown>>>>

function fieldOf(record: unknown, path: string): unknown {
  let value = record
  for (const part of path.split('.')) value = isObject(value) || Array.isArray(value) ? (value as Record<string, unknown>)[part] : undefined
  return value
}

/** `value` with each `${name.field}` replaced from `records`; a ScenarioError naming `where` for a field the record lacks. */
export function resolveReferences(value: unknown, records: ScenarioRecords, where: string): unknown {
  const lookup = (name: string, path: string) => {
    const found = fieldOf(records[name], path)
    if (found === undefined || found === null || (isObject(found) && !Array.isArray(found)))
      throw new ScenarioError({[where]: [`refers to \${${name}.${path}}, which the record created for ${name} does not have`]})
    return found
  }
  if (typeof value === 'string') {
    const whole = WHOLE_REFERENCE.exec(value)
    if (whole) return lookup(whole[1], whole[2])
    return value.replace(REFERENCE, (_, name: string, path: string) => {
      const found = lookup(name, path)
      return typeof found === 'string' ? found : JSON.stringify(found)
    })
  }
  if (Array.isArray(value)) return value.map((v, i) => resolveReferences(v, records, `${where}.${i}`))
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveReferences(v, records, `${where}.${k}`)]))
  return value
}

export interface CheckOptions {
  /** The sandbox admits an order's `status` and any event name of its catalogue. */
  sandbox: boolean
  /** Loopback http webhook URLs are admitted (the base URL is the running local sandbox). */
  loopbackWebhooks: boolean
  /** A narrower event-name rule than any non-empty name (the sandbox's: the names it sends); undefined when fine. */
  narrowEvents?: (events: string[]) => string | undefined
}

/** The placeholder a reference to an earlier entry's id stands for while the body is checked. */
function placeholders(body: Record<string, unknown>, kinds: ReadonlyMap<string, ScenarioKind>): Record<string, unknown> {
  const swap = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const whole = WHOLE_REFERENCE.exec(value)
      if (whole && whole[2] === 'id') return kinds.get(whole[1]) === 'webhooks' ? 'we_placeholder' : 1
      return value
    }
    if (Array.isArray(value)) return value.map(swap)
    if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swap(v)]))
    return value
  }
  return swap(body) as Record<string, unknown>
}

/**
 * Every field of every entry by the create commands' rules, before anything is sent. A reference to an earlier
 * id is checked as an id; a field holding any other reference is checked once its value is known.
 */
export function checkScenario(entries: readonly ScenarioEntry[], options: CheckOptions): FieldErrors {
  const errors: FieldErrors = {}
  const kinds = new Map(entries.map((e) => [e.name, e.kind]))
  const earlier = new Set<string>()
  for (const entry of entries) {
    const where = `${entry.kind}.${entry.name}`
    for (const [field, problem] of danglingReferences(entry.body, earlier)) errors[`${where}.${field}`] = [problem]
    earlier.add(entry.name)
    const body = placeholders(entry.body, kinds)
    const found = checkEntry(entry.kind, body, options)
    for (const [field, messages] of Object.entries(found)) {
      const top = field.split('.')[0]
      if (hasReference(body[top])) continue
      errors[`${where}.${field}`] ??= messages
    }
  }
  return errors
}

/** One entry's body (references resolved or replaced) by its kind's create rules. */
export function checkEntry(kind: ScenarioKind, body: Record<string, unknown>, options: CheckOptions): FieldErrors {
  switch (kind) {
    case 'customers':
      return validateCustomerCreate(body)
    case 'orders': {
      const {status, ...create} = body
      const errors = validateOrderCreate(create)
      if (status === undefined) return errors
      if (!options.sandbox)
        errors.status = [
          'is sandbox-only (sandbox seed sets it through the control path): the API creates every order pending, so fixtures cannot set it; leave it out, or seed a sandbox with `commerce sandbox seed`',
        ]
      else {
        const problem = checkOneOf(status, SANDBOX_ORDER_TARGETS)
        if (problem) errors.status = [problem]
      }
      return errors
    }
    case 'refunds': {
      const {order_id: orderId, ...refund} = body
      const errors = validateRefund(refund)
      if (orderId === undefined) errors.order_id = ['is required']
      else if (!Number.isSafeInteger(orderId) || (orderId as number) < 1) errors.order_id = [`must be an order id (got ${JSON.stringify(orderId)})`]
      return errors
    }
    case 'webhooks': {
      return validateWebhookCreate(body, options.loopbackWebhooks, options.narrowEvents)
    }
  }
}

/** Keys that reach an object's prototype when assigned: never a name or field of `--set`. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/**
 * The deepest nesting a scenario file may have: the file, a kind and an entry, then a body of at most MAX_JSON_DEPTH
 * levels (what the service takes). Checked when the file is read, iteratively, so no depth overflows the stack.
 */
export const MAX_SCENARIO_DEPTH = MAX_JSON_DEPTH + 2

/**
 * `--set name.field=value` (VALUE is JSON when it parses as JSON, else a string) applied to the parsed file:
 * a copy with the field set on the entry `name`, nested paths creating objects as needed.
 */
export function applySets(scenario: unknown, sets: readonly string[]): {scenario: unknown; problems: string[]} {
  if (sets.length === 0 || !isObject(scenario)) return {problems: [], scenario}
  const copy = structuredClone(scenario) as Record<string, Record<string, Record<string, unknown>>>
  const problems: string[] = []
  for (const set of sets) {
    const eq = set.indexOf('=')
    const path = eq < 0 ? '' : set.slice(0, eq)
    const parts = path.split('.')
    if (eq < 0 || parts.length < 2 || parts.some((p) => p === '')) {
      problems.push(`${JSON.stringify(set)} must look like NAME.FIELD=VALUE (e.g. alice.name="Ada L.")`)
      continue
    }
    const forbidden = parts.find((p) => FORBIDDEN_KEYS.has(p))
    if (forbidden !== undefined) {
      problems.push(`${JSON.stringify(set)} names ${forbidden}, which is never a field (it would reach every object's prototype)`)
      continue
    }
    const [name, ...fields] = parts
    const group = Object.values(copy).find((g) => isObject(g) && Object.hasOwn(g, name) && isObject(g[name]))
    if (!group) {
      problems.push(`${JSON.stringify(set)} names ${name}, which is not an entry of the file`)
      continue
    }
    let value: unknown = set.slice(eq + 1)
    try {
      value = JSON.parse(value as string)
    } catch {}
    let target = group[name]
    for (const field of fields.slice(0, -1)) {
      if (!Object.hasOwn(target, field) || !isObject(target[field])) target[field] = {}
      target = target[field] as Record<string, unknown>
    }
    target[fields.at(-1)!] = value
  }
  return {problems, scenario: copy}
}
