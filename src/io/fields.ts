/**
 * `--fields a,b,c`: keep only those fields of each record, in that order, in the table, the tab-separated rows
 * and --json alike. A dotted name (`metadata.plan`) reaches into a nested object; in JSON it stays one key
 * named as given (`{"metadata.plan": "pro"}`), as it is one column in a table. A name must be one of the resource's
 * known fields, or a dotted path under one (`metadata.team`); any other is exit 2 naming the nearest known one, as
 * gh does (a typo must not print an empty column). A known name a record lacks is empty in a table, null in JSON.
 */
import {closest} from '../domain/suggest.js'
import {UsageError} from '../errors.js'

type Row = Record<string, unknown>

/** The names of a --fields value; an empty list, an empty name or one not among `known` (nor under one) is exit 2. */
export function parseFields(input: string, known?: readonly string[]): string[] {
  const names = input.split(',').map((name) => name.trim())
  if (names.every((name) => name === '')) throw new UsageError('--fields: give at least one field name (e.g. --fields id,email)')
  if (names.includes('')) throw new UsageError(`--fields: an empty field name in ${JSON.stringify(input)}`)
  if (known)
    for (const name of names) {
      if (known.includes(name) || known.includes(name.split('.')[0])) continue
      const near = closest(name, known)
      throw new UsageError(`--fields: unknown field ${JSON.stringify(name)}${near ? `; did you mean ${near}?` : ''} Known: ${known.join(', ')}.`)
    }
  return [...new Set(names)]
}

/** The value at a field name: a top-level key first, else a dotted path into nested objects. */
export function fieldValue(record: Row, name: string): unknown {
  if (Object.hasOwn(record, name)) return record[name]
  if (!name.includes('.')) return undefined
  let value: unknown = record
  for (const part of name.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, part)) return undefined
    value = (value as Row)[part]
  }
  return value
}

/** A record with only `fields`, in that order; absent ones are null. */
export function project(record: Row, fields: readonly string[]): Row {
  const out: Row = {}
  for (const name of fields) out[name] = fieldValue(record, name) ?? null
  return out
}
