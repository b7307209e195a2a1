/**
 * Validation rules, built from the declarations in `schema.ts`.
 *
 * Each rule answers with a message or `undefined`. The body validators collect messages per service field
 * name (`{email: ['...']}`), which is the shape of the service's 422 body: the sandbox sends it as is, and the
 * CLI maps each field to the flag that sets it and refuses the input before any request (exit 2).
 */
import {CURRENCIES, CUSTOMER_INCLUDES, CUSTOMER_STATUSES, LIMITS, SCOPES} from './schema.js'
import {isObject} from './json.js'
import {closest} from './suggest.js'
import {isEmail} from '@hyperjump/json-schema-formats'

export type FieldErrors = Record<string, string[]>

/** JSON Schema's `format: uuid`: RFC 4122's string form, any version and variant (the nil UUID included). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const POSITIVE_INT = /^[1-9]\d{0,14}$/

export function isUuid(value: string): boolean {
  return UUID.test(value)
}

/** A resource id as typed by a user: a positive integer without sign, spaces or leading zeros. */
export function parseId(value: string): number | undefined {
  return POSITIVE_INT.test(value) ? Number(value) : undefined
}

/** Characters as a limit in characters counts them: code points (an emoji is one), not UTF-16 code units. */
export function characters(value: string): number {
  let n = 0
  for (const _ of value) n++
  return n
}

/**
 * JSON Schema's `format: email`: RFC 5321's Mailbox (a quoted local part and an address literal included), as
 * Hyperjump's format checks define it, within RFC 5321's sizes (a local part of at most 64 octets, a path of 256,
 * so an address of at most 254).
 */
export function checkEmail(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0) return 'is required'
  const local = value.slice(0, value.lastIndexOf('@'))
  if (Buffer.byteLength(value) > 254 || Buffer.byteLength(local) > 64 || !isEmail(value)) return `"${value}" is not a valid email address`
  return undefined
}

export function checkName(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim().length === 0) return 'is required'
  const n = characters(value)
  if (n > LIMITS.customerNameMaxLength) return `must be at most ${LIMITS.customerNameMaxLength} characters (got ${n})`
  return undefined
}

export function checkSearch(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string'
  const n = characters(value)
  if (n > LIMITS.searchMaxLength) return `must be at most ${LIMITS.searchMaxLength} characters (got ${n})`
  return undefined
}

/**
 * A currency as the service names it, whatever the case it was written in (`usd`, `Usd`): enum values are accepted
 * in any case everywhere (flags, fixtures, imports). Anything else is returned as it is, for the validator to refuse.
 */
export function canonicalCurrency(value: unknown): unknown {
  if (typeof value !== 'string') return value
  const upper = value.toUpperCase()
  return (CURRENCIES as readonly string[]).includes(upper) ? upper : value
}

export function checkOneOf(value: unknown, allowed: readonly string[], prefer?: string): string | undefined {
  if (typeof value === 'string' && allowed.includes(value)) return undefined
  return `must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)}${nearestOf(value, allowed, prefer)})`
}

/** `; did you mean X?` for a value one slip from one of `allowed` (a typo of an event name, a status), else nothing. */
function nearestOf(value: unknown, allowed: readonly string[], prefer?: string): string {
  const near = typeof value === 'string' ? closest(value, allowed, prefer) : undefined
  return near === undefined ? '' : `; did you mean ${near}?`
}

export function checkPerPage(value: unknown): string | undefined {
  const {min, max} = LIMITS.perPage
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max)
    return `must be an integer from ${min} to ${max} (got ${String(value)})`
  return undefined
}

export function checkPage(value: unknown): string | undefined {
  if (!Number.isInteger(value) || (value as number) < LIMITS.page.min)
    return `must be an integer of at least ${LIMITS.page.min} (got ${String(value)})`
  return undefined
}

export function checkPositiveInt(value: unknown): string | undefined {
  if (!Number.isSafeInteger(value) || (value as number) < 1) return `must be a positive integer (got ${JSON.stringify(value)})`
  return undefined
}

/** HTTPS only; `allowLoopbackHttp` admits http://127.0.0.1|localhost|[::1] (the sandbox's local listeners). */
export function checkWebhookUrl(value: unknown, allowLoopbackHttp = false): string | undefined {
  if (typeof value !== 'string' || value.length === 0) return 'is required'
  // `format: uri` (RFC 3986): WHATWG's parser would take a space or other characters a URI cannot hold, escaped.
  if (!/^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/.test(value)) return `"${value}" is not a valid URL (a URI has no spaces or such characters)`
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return `"${value}" is not a valid URL`
  }
  if (url.protocol === 'https:') return undefined
  if (allowLoopbackHttp && url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined
  return `must be an HTTPS URL (got ${url.protocol.replace(':', '')})`
}

export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127\.\d+\.\d+\.\d+$/.test(hostname)
}

// ---------------------------------------------------------------------------------------------

function add(errors: FieldErrors, field: string, message: string | undefined): void {
  if (message) (errors[field] ??= []).push(message)
}

function checkMetadata(errors: FieldErrors, metadata: unknown): void {
  if (metadata === undefined) return
  if (!isObject(metadata)) return add(errors, 'metadata', 'must be an object')
  if (metadata.plan !== undefined && typeof metadata.plan !== 'string') add(errors, 'metadata.plan', 'must be a string')
}

export function validateCustomerCreate(body: unknown): FieldErrors {
  const errors: FieldErrors = {}
  if (!isObject(body)) return {body: ['must be a JSON object']}
  add(errors, 'email', checkEmail(body.email))
  add(errors, 'name', checkName(body.name))
  if (body.send_invite !== undefined && typeof body.send_invite !== 'boolean') add(errors, 'send_invite', 'must be true or false')
  checkMetadata(errors, body.metadata)
  return errors
}

/** PATCH: every field optional, at least one present. */
export function validateCustomerUpdate(body: unknown): FieldErrors {
  const errors: FieldErrors = {}
  if (!isObject(body)) return {body: ['must be a JSON object']}
  const known = ['email', 'name', 'status', 'metadata']
  if (!known.some((k) => body[k] !== undefined)) add(errors, 'body', `must set at least one of ${known.join(', ')}`)
  if (body.email !== undefined) add(errors, 'email', checkEmail(body.email))
  if (body.name !== undefined) add(errors, 'name', checkName(body.name))
  if (body.status !== undefined) add(errors, 'status', checkOneOf(body.status, CUSTOMER_STATUSES))
  checkMetadata(errors, body.metadata)
  return errors
}

export function validateOrderCreate(body: unknown): FieldErrors {
  const errors: FieldErrors = {}
  if (!isObject(body)) return {body: ['must be a JSON object']}
  if (body.customer_id === undefined) add(errors, 'customer_id', 'is required')
  else add(errors, 'customer_id', checkPositiveInt(body.customer_id))
  if (body.currency === undefined) add(errors, 'currency', 'is required')
  else add(errors, 'currency', checkOneOf(body.currency, CURRENCIES))
  if (!Array.isArray(body.items) || body.items.length < LIMITS.orderMinItems) {
    add(errors, 'items', `must have at least ${LIMITS.orderMinItems} line item`)
  } else {
    body.items.forEach((item: unknown, i: number) => {
      if (!isObject(item)) return add(errors, `items.${i}`, 'must be an object')
      if (item.product_id !== undefined) add(errors, `items.${i}.product_id`, checkPositiveInt(item.product_id))
      if (item.quantity !== undefined) add(errors, `items.${i}.quantity`, checkPositiveInt(item.quantity))
    })
  }
  return errors
}

export function validateRefund(body: unknown): FieldErrors {
  const errors: FieldErrors = {}
  if (body === undefined || body === null) return errors
  if (!isObject(body)) return {body: ['must be a JSON object']}
  if (body.amount !== undefined) add(errors, 'amount', checkPositiveInt(body.amount))
  if (body.reason !== undefined && typeof body.reason !== 'string') add(errors, 'reason', 'must be a string')
  return errors
}

/**
 * Event names are any non-empty strings: the service documents one (EVENT_TYPES) and may send more, so a name is
 * for the service to judge; undefined when fine.
 */
export function checkEventNames(events: unknown): string | undefined {
  if (!Array.isArray(events) || events.length < LIMITS.webhookMinEvents) return `must have at least ${LIMITS.webhookMinEvents} event`
  if (events.some((name) => typeof name !== 'string' || name.trim() === '')) return 'must be non-empty names'
  return undefined
}

/**
 * A webhook endpoint's body. `narrowEvents` is a narrower rule of a service that knows which names it sends (the
 * sandbox), applied to names that pass checkEventNames.
 */
export function validateWebhookCreate(
  body: unknown,
  allowLoopbackHttp = false,
  narrowEvents?: (events: string[]) => string | undefined,
): FieldErrors {
  const errors: FieldErrors = {}
  if (!isObject(body)) return {body: ['must be a JSON object']}
  add(errors, 'url', checkWebhookUrl(body.url, allowLoopbackHttp))
  add(errors, 'events', checkEventNames(body.events) ?? narrowEvents?.(body.events as string[]))
  return errors
}

export function validateTokenRequest(body: unknown): FieldErrors {
  const errors: FieldErrors = {}
  if (!isObject(body)) return {body: ['must be a JSON object']}
  if (typeof body.key_id !== 'string' || body.key_id === '') add(errors, 'key_id', 'is required')
  if (typeof body.key_secret !== 'string' || body.key_secret === '') add(errors, 'key_secret', 'is required')
  if (body.scopes !== undefined) {
    if (!Array.isArray(body.scopes)) add(errors, 'scopes', 'must be an array')
    else for (const s of body.scopes) add(errors, 'scopes', checkOneOf(s, SCOPES))
  }
  return errors
}

/** Query parameters shared by list operations. Values are already numbers/strings. */
export interface ListQuery {
  page?: unknown
  per_page?: unknown
  q?: unknown
  status?: unknown
  currency?: unknown
  customer_id?: unknown
}

export function validateListQuery(query: ListQuery, statuses?: readonly string[]): FieldErrors {
  const errors: FieldErrors = {}
  if (query.per_page !== undefined) add(errors, 'per_page', checkPerPage(query.per_page))
  if (query.page !== undefined) add(errors, 'page', checkPage(query.page))
  if (query.q !== undefined) add(errors, 'q', checkSearch(query.q))
  if (query.status !== undefined && statuses) add(errors, 'status', checkOneOf(query.status, statuses))
  if (query.currency !== undefined) add(errors, 'currency', checkOneOf(query.currency, CURRENCIES))
  if (query.customer_id !== undefined) add(errors, 'customer_id', checkPositiveInt(query.customer_id))
  return errors
}

export function checkInclude(value: unknown): string | undefined {
  return checkOneOf(value, CUSTOMER_INCLUDES)
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0
}
