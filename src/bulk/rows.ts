/**
 * Import rows: from a read record (a CSV row keyed by column, or a JSONL object) to the create body the
 * service takes, validated by the domain's rules. A bad row becomes a RowError naming its line.
 *
 * Customers: CSV columns `email`, `name`, optional `send_invite` (true/false/1/0/yes/no), `plan`,
 * `metadata.<key>` and `metadata` (a JSON object, as `customers export --format csv` writes it); JSONL objects
 * shaped like the create body, `plan` also accepted at the top level. Orders: CSV columns `customer_id`,
 * `currency`, `items` (`PRODUCT_ID[:QUANTITY]` entries separated by `;`) and optional `idempotency_key`;
 * JSONL objects `{customer_id, currency, items: [{product_id, quantity}], idempotency_key?}`.
 * Columns and fields that are not part of the create body are what the service sets itself (`id`, `status`, and the
 * fields a real service adds: `object`, `updated_at`, `_links`...): ignored, and named once in the import's summary,
 * so that every format an export writes imports again, against any service. A near miss of a create field (`nmae`)
 * is still an error naming the nearest, so that a typo is not silently dropped.
 * CSV column names match case-insensitively (metadata keys keep their case); empty optional cells are omitted.
 */
import {canonicalCurrency, type FieldErrors, hasErrors, isUuid, parseId, validateCustomerCreate, validateOrderCreate} from '../domain/validate.js'
import {orderRowKey} from './uuid.js'
import {isObject} from '../domain/json.js'
import {MAX_JSON_DEPTH, type OrderItemInput, parseItemSpec} from '../domain/bulk-formats.js'
import {nestsDeeper} from '../domain/json.js'
import {csvName, explainMissingItems, ignoredFields, type ImportKind, unknownFields} from './columns.js'

export {checkHeader, type ImportKind} from './columns.js'

export interface CustomerCreateBody {
  email: string
  name: string
  send_invite?: boolean
  metadata?: Record<string, unknown>
}

export interface OrderCreateBody {
  customer_id: number
  currency: string
  items: OrderItemInput[]
}

/** A valid row, ready to send. Orders carry their Idempotency-Key. */
export type ImportRow =
  {kind: 'customers'; line: number; body: CustomerCreateBody} | {kind: 'orders'; line: number; body: OrderCreateBody; idempotencyKey: string}

export interface RowError {
  line: number
  errors: FieldErrors
  /** `email "x" is not a valid email address; name is required` */
  reason: string
  /** One line for humans: `line 7: ` and the reason. */
  message: string
  /** Nothing after this line could be read: the import must stop, even with --skip-invalid. */
  fatal?: boolean
}

export function rowError(line: number, errors: FieldErrors, fatal?: boolean): RowError {
  const parts = Object.entries(errors).flatMap(([field, messages]) => messages.map((m) => (field === 'row' ? m : `${fieldLabel(field)} ${m}`)))
  const reason = parts.join('; ')
  return {errors, line, message: `line ${line}: ${reason}`, reason, ...(fatal ? {fatal} : {})}
}

/** `items.0.product_id` reads better as `item 1 product_id`. */
function fieldLabel(field: string): string {
  const m = /^items\.(\d+)(?:\.(.+))?$/.exec(field)
  return m ? `item ${Number(m[1]) + 1}${m[2] ? ` ${m[2]}` : ''}` : field
}

function parseBoolean(text: string): boolean | undefined {
  if (/^(true|1|yes)$/i.test(text)) return true
  if (/^(false|0|no)$/i.test(text)) return false
  return undefined
}

type Mapped<T> = {body: T; errors: FieldErrors; idempotencyKey?: string}

export function customerFromCsv(record: Record<string, unknown>): Mapped<CustomerCreateBody> {
  const errors: FieldErrors = {}
  const body: Record<string, unknown> = {}
  let metadata: Record<string, unknown> | undefined
  let plan: string | undefined
  const extra: Record<string, string> = {}
  for (const [column, raw] of Object.entries(record)) {
    const value = String(raw)
    const name = csvName('customers', column)
    if (name === 'email') body.email = value.trim()
    else if (name === 'name') body.name = value
    else if (name === 'send_invite') {
      if (value.trim() === '') continue
      const b = parseBoolean(value.trim())
      if (b === undefined) (errors.send_invite ??= []).push(`must be true or false (or 1/0, yes/no; got ${JSON.stringify(value)})`)
      else body.send_invite = b
    } else if (name === 'plan') {
      if (value !== '') plan = value
    } else if (name === 'metadata') {
      if (value.trim() === '') continue
      try {
        const parsed: unknown = JSON.parse(value)
        if (isObject(parsed)) metadata = parsed
        else (errors.metadata ??= []).push('must be a JSON object')
      } catch {
        ;(errors.metadata ??= []).push('must be a JSON object')
      }
    } else if (name?.startsWith('metadata.') && value !== '') extra[name.slice(9)] = value
  }
  // The `metadata` column first, then metadata.<key> columns, then `plan`: the more specific column wins.
  if (Object.keys(extra).length > 0 || plan !== undefined) metadata = {...metadata, ...extra, ...(plan === undefined ? {} : {plan})}
  if (metadata) body.metadata = metadata
  return {body: body as unknown as CustomerCreateBody, errors: mergeErrors(errors, validateCustomerCreate(body))}
}

export function customerFromJson(record: Record<string, unknown>): Mapped<CustomerCreateBody> {
  const errors: FieldErrors = {}
  unknownFields('customers', record, errors)
  const body: Record<string, unknown> = {email: record.email, name: record.name}
  if (record.send_invite !== undefined) body.send_invite = record.send_invite
  let metadata = record.metadata
  if (record.plan !== undefined) metadata = {...(isObject(metadata) ? metadata : {}), plan: record.plan}
  if (metadata !== undefined) body.metadata = metadata
  return {body: body as unknown as CustomerCreateBody, errors: mergeErrors(errors, validateCustomerCreate(body))}
}

export function orderFromCsv(record: Record<string, unknown>): Mapped<OrderCreateBody> {
  const errors: FieldErrors = {}
  const body: Record<string, unknown> = {}
  let idempotencyKey: string | undefined
  for (const [column, raw] of Object.entries(record)) {
    const value = String(raw).trim()
    const name = csvName('orders', column)
    if (name === 'customer_id') {
      if (value !== '') body.customer_id = parseId(value) ?? value
    } else if (name === 'currency') {
      if (value !== '') body.currency = canonicalCurrency(value)
    } else if (name === 'items') {
      const items: OrderItemInput[] = []
      for (const spec of value.split(';')) {
        if (spec.trim() === '') continue
        const item = parseItemSpec(spec)
        if (item) items.push(item)
        else {
          ;(errors.items ??= []).push(`has ${JSON.stringify(spec.trim())}, expected PRODUCT_ID[:QUANTITY] entries separated by ";"`)
        }
      }
      if (!errors.items) body.items = items
    } else if (name === 'idempotency_key' && value !== '') idempotencyKey = value
  }
  if (idempotencyKey !== undefined && !isUuid(idempotencyKey))
    (errors.idempotency_key ??= []).push(`must be a UUID (got ${JSON.stringify(idempotencyKey)})`)
  // An unreadable items cell was reported above; the validator would only add "must have at least 1 line item".
  const domain = validateOrderCreate(body)
  return {
    body: body as unknown as OrderCreateBody,
    errors: explainMissingItems(record, mergeErrors(errors, errors.items ? withoutItems(domain) : domain)),
    idempotencyKey,
  }
}

export function orderFromJson(record: Record<string, unknown>): Mapped<OrderCreateBody> {
  const errors: FieldErrors = {}
  unknownFields('orders', record, errors)
  const body = {customer_id: record.customer_id, currency: canonicalCurrency(record.currency), items: record.items}
  const key = record.idempotency_key
  if (key !== undefined && (typeof key !== 'string' || !isUuid(key)))
    (errors.idempotency_key ??= []).push(`must be a UUID (got ${JSON.stringify(key)})`)
  return {
    body: body as unknown as OrderCreateBody,
    errors: explainMissingItems(record, mergeErrors(errors, validateOrderCreate(body))),
    idempotencyKey: typeof key === 'string' ? key : undefined,
  }
}

/** A field whose value would make the request body nest deeper than the service takes (the body is level 1). */
function tooDeep(errors: FieldErrors, field: string, value: unknown): void {
  if (value !== undefined && nestsDeeper(value, MAX_JSON_DEPTH - 1))
    (errors[field] ??= []).push(`nests deeper than the service takes (at most ${MAX_JSON_DEPTH} levels in a request body)`)
}

function withoutItems(errors: FieldErrors): FieldErrors {
  return Object.fromEntries(Object.entries(errors).filter(([field]) => field !== 'items' && !field.startsWith('items.')))
}

function mergeErrors(a: FieldErrors, b: FieldErrors): FieldErrors {
  const out: FieldErrors = {...a}
  for (const [field, messages] of Object.entries(b)) out[field] = [...(out[field] ?? []), ...messages]
  return out
}

/**
 * Maps and validates the rows of one file, in order. Stateful: a customer's email, or an order's explicit
 * idempotency_key, seen on an earlier valid row makes a later row invalid (the service would see a conflict,
 * or replay the first order for the second row). Both passes over a file use a fresh checker, so they agree.
 */
export interface Invitations {
  sent: number
  unset: number
  sentLines: number[]
  unsetLines: number[]
}

/** The invitations of the rows not yet done: what a run (or a rerun) will actually send. */
export function pendingInvitations(all: Invitations, isDone: (line: number) => boolean): Invitations {
  const sentLines = all.sentLines.filter((l) => !isDone(l))
  const unsetLines = all.unsetLines.filter((l) => !isDone(l))
  return {sent: sentLines.length, sentLines, unset: unsetLines.length, unsetLines}
}

export class RowChecker {
  private readonly seen = new Map<string, number>()

  /**
   * Valid customer rows that will email an invitation, and those of them that left send_invite unset, with
   * their lines (so that a rerun counts only the rows its journal does not have as done).
   */
  readonly invitations: Invitations = {sent: 0, sentLines: [], unset: 0, unsetLines: []}

  /** The fields the rows carried that the import does not send (the service sets them), each once, in the order met. */
  readonly ignored = new Set<string>()

  /** Rows whose status a create cannot give back (an archived customer, a paid order): created as new ones are. */
  statusNotCarried = 0

  constructor(
    private readonly kind: ImportKind,
    private readonly format: 'csv' | 'jsonl' | 'json',
    private readonly fileSha256: string,
    /** Customers: send_invite for the rows that leave it unset (--send-invite / --no-send-invite). */
    private readonly sendInvite?: boolean,
  ) {}

  check(line: number, record: Record<string, unknown>): {row: ImportRow} | {error: RowError} {
    const csv = this.format === 'csv'
    for (const field of ignoredFields(this.kind, csv, record)) this.ignored.add(field)
    const status = typeof record.status === 'string' ? record.status.trim().toLowerCase() : ''
    if (status !== '' && !(this.kind === 'customers' ? ['active', 'invited'] : ['pending']).includes(status)) this.statusNotCarried++
    if (this.kind === 'customers') {
      const {body, errors} = csv ? customerFromCsv(record) : customerFromJson(record)
      if (!hasErrors(errors)) tooDeep(errors, 'metadata', body.metadata)
      if (!hasErrors(errors)) this.noteDuplicate(errors, 'email', body.email.toLowerCase(), line, `"${body.email}" is also on line`)
      if (hasErrors(errors)) return {error: rowError(line, errors)}
      if (body.send_invite === undefined && this.sendInvite !== undefined) body.send_invite = this.sendInvite
      if (body.send_invite !== false) {
        this.invitations.sent++
        this.invitations.sentLines.push(line)
        if (body.send_invite === undefined) {
          this.invitations.unset++
          this.invitations.unsetLines.push(line)
        }
      }
      return {row: {kind: 'customers', line, body}}
    }
    const {body, errors, idempotencyKey} = csv ? orderFromCsv(record) : orderFromJson(record)
    if (!hasErrors(errors)) tooDeep(errors, 'items', body.items)
    if (!hasErrors(errors) && idempotencyKey !== undefined)
      this.noteDuplicate(errors, 'idempotency_key', idempotencyKey.toLowerCase(), line, 'is also used on line')
    if (hasErrors(errors)) return {error: rowError(line, errors)}
    return {row: {kind: 'orders', line, body, idempotencyKey: idempotencyKey ?? orderRowKey(this.fileSha256, line, body)}}
  }

  private noteDuplicate(errors: FieldErrors, field: string, value: string, line: number, text: string): void {
    const first = this.seen.get(value)
    if (first === undefined) this.seen.set(value, line)
    else errors[field] = [`${text} ${first}`]
  }
}
