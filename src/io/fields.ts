/**
 * `--fields a,b,c`: keep only those fields of each record, in that order, in the table, the tab-separated rows
 * and --json alike. A dotted name (`metadata.plan`) reaches into a nested object; in JSON it stays one key
 * named as given (`{"metadata.plan": "pro"}`), as it is one column in a table. A name is taken when it is one of the
 * resource's known fields (or a dotted path under one), or when a record carries it: a real service sends fields the
 * spec does not show (`updated_at`, `object`), and they are as selectable as the known ones. A name that is neither
 * is exit 2 naming the nearest, as gh does (a typo must not print an empty column); it can be judged only once the
 * records are there, so the human renderers hold records back (checkedRecords) until every such name has been seen.
 * A known name a record lacks is empty in a table, null in JSON. With no record to judge by, a name one slip from a
 * known one (`emial`) is still exit 2, so that a script's typo fails on an empty account too; any other unknown name
 * is said on stderr.
 */
import {closest, oneSlip} from '../domain/suggest.js'
import {UsageError} from '../errors.js'
import {MONEY_FIELDS} from '../domain/schema.js'

type Row = Record<string, unknown>

/** The names of a --fields value; an empty list or an empty name is exit 2 (which names exist is judged later). */
export function parseFields(input: string): string[] {
  const names = input.split(',').map((name) => name.trim())
  if (names.every((name) => name === '')) throw new UsageError('--fields: give at least one field name (e.g. --fields id,email)')
  if (names.includes('')) throw new UsageError(`--fields: an empty field name in ${JSON.stringify(input)}`)
  return [...new Set(names)]
}

const isKnown = (name: string, known: readonly string[]) => known.includes(name) || known.includes(name.split('.')[0])
const carries = (record: Row, name: string) => Object.hasOwn(record, name) || fieldValue(record, name) !== undefined

/** The names that are not known and that `record` does not carry either. */
function unseen(names: readonly string[], known: readonly string[], record: Row | undefined, pending?: readonly string[]): string[] {
  return (pending ?? names.filter((n) => !isKnown(n, known))).filter((n) => record === undefined || !carries(record, n))
}

/** A field a list's records do not carry, asked of a list. */
function wholeOnly(name: string): UsageError {
  return new UsageError(`--fields: a list's records do not carry ${JSON.stringify(name)}; \`get\` reads a whole record, with it.`)
}

/** Exit 2 for the first name that no record carried: the nearest among the known fields and those the records carry. */
function refusal(name: string, known: readonly string[], records: readonly Row[], o: FieldJudging = {}): UsageError {
  if (o.whole?.includes(name)) return wholeOnly(name)
  const offered = [...new Set([...known, ...records.flatMap((r) => Object.keys(r))])]
  const near = closest(name, offered)
  return new UsageError(
    `--fields: no record has a field ${JSON.stringify(name)}${near ? `; did you mean ${near}?` : ''} Fields: ${offered.join(', ')}.`,
  )
}

/** How names are judged beyond the known ones: where a warning goes (IOStreams.warn), and the fields only a whole record has. */
export interface FieldJudging {
  warn?: (text: string) => void
  /** A list's records lack these (an order's items): a name among them is refused saying so. */
  whole?: readonly string[]
}

/** Names not known, and no record to judge them by: exit 2 for one a slip from a known field, else a warning. */
function judgedWithoutRecords(pending: readonly string[], known: readonly string[], o: FieldJudging): void {
  for (const name of pending) {
    if (o.whole?.includes(name)) throw wholeOnly(name)
    const meant = known.find((k) => oneSlip(name, k))
    if (meant !== undefined)
      throw new UsageError(`--fields: ${JSON.stringify(name)} is not a field; did you mean ${meant}? Fields: ${known.join(', ')}.`)
  }
  for (const name of pending) o.warn?.(`--fields: ${JSON.stringify(name)} is not a documented field, and there is no record to judge it by.`)
}

/** Checks `names` against the records of a whole document (--json, or one record): exit 2 for a name none carries. */
export function assertCarried(names: readonly string[], known: readonly string[], records: readonly Row[], o: FieldJudging = {}): void {
  if (records.length === 0) return judgedWithoutRecords(unseen(names, known, undefined), known, o)
  let pending = unseen(names, known, undefined)
  for (const record of records) {
    if (pending.length === 0) return
    pending = unseen(names, known, record, pending)
  }
  if (pending.length > 0) throw refusal(pending[0], known, records, o)
}

/**
 * `records` as they come, once every name that is not known has been seen in some record: until then they are held
 * back (nothing is printed before a refusal), and at the end a name never seen is exit 2.
 */
export async function* checkedRecords(
  records: AsyncIterable<Row> | Iterable<Row>,
  names: readonly string[],
  known: readonly string[],
  o: FieldJudging = {},
): AsyncIterable<Row> {
  let pending = unseen(names, known, undefined)
  const held: Row[] = []
  for await (const record of records) {
    if (pending.length === 0) {
      yield record
      continue
    }
    held.push(record)
    pending = unseen(names, known, record, pending)
    if (pending.length === 0) yield* held.splice(0)
  }
  if (pending.length > 0 && held.length > 0) throw refusal(pending[0], known, held, o)
  if (pending.length > 0) judgedWithoutRecords(pending, known, o)
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
  // An amount kept keeps the unit it is in (io/output.ts labels every record that carries money).
  if (Object.hasOwn(record, 'money_unit') && fields.some((name) => MONEY_FIELDS.includes(name))) out.money_unit = record.money_unit
  return out
}
