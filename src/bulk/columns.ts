/**
 * The columns (CSV) and fields (JSON lines) of an import file: which are part of the create body, which the service
 * sets itself (ignored, and named in the summary: an export of any service imports again), and which are near misses
 * of a create field (refused, naming it: a typo is not silently dropped). See rows.ts for the rows themselves.
 */
import type {FieldErrors} from '../domain/validate.js'
import {closest} from '../domain/suggest.js'

export type ImportKind = 'customers' | 'orders'

const KNOWN = {
  customers: {fields: ['email', 'name', 'send_invite', 'plan', 'metadata'], ignored: ['id', 'status', 'created_at']},
  orders: {fields: ['customer_id', 'currency', 'items', 'idempotency_key'], ignored: ['id', 'status', 'total', 'placed_at', 'money_unit']},
} as const

/** The CSV header check: unknown or missing columns end the import at line 1. */
export function checkHeader(kind: ImportKind, columns: string[]): string | undefined {
  const {fields} = KNOWN[kind]
  const names = new Set<string>()
  for (const column of columns) {
    const name = csvName(kind, column)
    if (name === undefined) {
      const near = nearMiss(kind, column.toLowerCase())
      if (near === undefined) continue // a field the service sets: ignored
      const expected = kind === 'customers' ? `${fields.join(', ')}, metadata.<key>` : fields.join(', ')
      return `unknown column "${column}"; did you mean "${near}"? (expected ${expected})`
    }
    if (names.has(name)) return `the header names column "${name}" twice`
    names.add(name)
  }
  const required = kind === 'customers' ? ['email', 'name'] : ['customer_id', 'currency', 'items']
  const missing = required.filter((r) => !names.has(r))
  if (missing.length > 0)
    return `the header has no ${missing.map((m) => `"${m}"`).join(' or ')} column${missing.includes('items') && names.has('placed_at') ? ` (${EXPORT_HAS_NO_ITEMS})` : ''}`
  return undefined
}

/** Why an orders export cannot be imported back as it is. */
export const EXPORT_HAS_NO_ITEMS =
  'an orders export has no items: the service\'s order list does not return them; add them as PRODUCT_ID[:QUANTITY] entries separated by ";" to import it'

/** An order row that looks exported (it has `placed_at`) and has no items: say why, beside the validator's words. */
export function explainMissingItems(record: Record<string, unknown>, errors: FieldErrors): FieldErrors {
  const exported = Object.keys(record).some((key) => key.toLowerCase() === 'placed_at')
  if (!exported || !errors.items?.some((m) => m.startsWith('must have at least'))) return errors
  return {...errors, items: errors.items.map((m) => (m.startsWith('must have at least') ? `${m} (${EXPORT_HAS_NO_ITEMS})` : m))}
}

/** A column's canonical name (known names case-insensitively; metadata keys as written), or undefined when unknown. */
export function csvName(kind: ImportKind, column: string): string | undefined {
  const lower = column.toLowerCase()
  if (kind === 'customers' && lower.startsWith('metadata.') && column.length > 'metadata.'.length) return `metadata.${column.slice(9)}`
  const {fields, ignored} = KNOWN[kind]
  if ((fields as readonly string[]).includes(lower) || (ignored as readonly string[]).includes(lower)) return lower
  return undefined
}

/** The create field a name that is none is a typo of (edit distance), if any. */
function nearMiss(kind: ImportKind, name: string): string | undefined {
  return closest(name, KNOWN[kind].fields)
}

/** A near miss of a create field is an error naming it; any other unknown field is one the service sets (ignored). */
export function unknownFields(kind: ImportKind, record: Record<string, unknown>, errors: FieldErrors): void {
  const {fields, ignored} = KNOWN[kind]
  for (const key of Object.keys(record)) {
    if ((fields as readonly string[]).includes(key) || (ignored as readonly string[]).includes(key)) continue
    const near = nearMiss(kind, key)
    if (near !== undefined)
      (errors[key] ??= []).push(`is not a field of an imported ${kind === 'customers' ? 'customer' : 'order'}; did you mean ${near}?`)
  }
}

/** The fields of a read record that the import does not send: those the service sets. */
export function ignoredFields(kind: ImportKind, csv: boolean, record: Record<string, unknown>): string[] {
  const {fields} = KNOWN[kind]
  return Object.keys(record).filter((key) => {
    if (csv) {
      const name = csvName(kind, key)
      return name === undefined ? nearMiss(kind, key.toLowerCase()) === undefined : (KNOWN[kind].ignored as readonly string[]).includes(name)
    }
    return !(fields as readonly string[]).includes(key) && nearMiss(kind, key) === undefined
  })
}
