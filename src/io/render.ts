/**
 * Renderers for the three output modes of the contract:
 * - TTY: borderless tables sized to the terminal (lists) and field/value lines (one resource), one engine: widths
 *   in terminal cells (width.ts), the widest column cut with `…`, a long value wrapped at words;
 * - pipe: tab-separated rows with a header line (lists) or `field<TAB>value` lines, no colour;
 * - --json: one JSON document; lists stream as an array while records arrive (writeJsonArray). Which mode
 *   applies is decided in Output (output.ts), the one path commands print results through.
 */
import {fitTable, GAP, MIN_WIDTH} from './fit.js'
import {write} from './json-array.js'
import {assertCarried, checkedRecords, fieldValue, project} from './fields.js'
import {outPaged} from './pager.js'
import {wrapWords} from './wrap.js'
import {sanitize} from './sanitize.js'
import {Spinner} from './spinner.js'
import type {IOStreams} from './streams.js'
import {humanValue, type ValueOptions} from './values.js'
import {cellWidth, fitCells, fitCellsMiddle, padCells, wrapCells} from './width.js'
import {isObject} from '../domain/json.js'
import type {ListPosition} from '../domain/schema.js'
import {formatCount} from '../domain/text.js'

type Row = Record<string, unknown>

/**
 * A cell as text: nested values as compact JSON; control characters made visible (sanitize.ts: a value from the
 * service never reaches a terminal raw); in TSV, each run of tabs and newlines becomes one space.
 */
export function formatCell(value: unknown, tsv: boolean): string {
  let text: string
  if (value === null || value === undefined) text = ''
  else if (typeof value === 'object') text = JSON.stringify(value)
  else {
    const primitive = value as string | number | boolean | bigint
    text = String(primitive)
  }
  return sanitize(text, tsv ? 'tsv' : 'cell')
}

/** A cell of a terminal table or field/value view: the value's human form (values.ts) when it has one. */
function terminalCell(column: string, value: unknown, record: Row, options: ValueOptions, view: 'list' | 'record'): string {
  const human = humanValue(column, value, record, options, view)
  return human === undefined ? formatCell(value, false) : sanitize(human, 'cell')
}

const STATUS_COLORS: Record<string, 'cyan' | 'gray' | 'green' | 'magenta' | 'yellow'> = {
  active: 'green',
  archived: 'gray',
  invited: 'yellow',
  paid: 'green',
  pending: 'yellow',
  refunded: 'magenta',
  shipped: 'cyan',
}

function styleCell(io: IOStreams, column: string, text: string): string {
  if (!io.color) return text
  if (column === 'status' && STATUS_COLORS[text]) return io.chalk[STATUS_COLORS[text]](text)
  if (column === 'id') return io.chalk.bold(text)
  return text
}

export type {ListPosition}
export {fitTable, fitWidths, isIdColumn} from './fit.js'

/** "Showing 1-30 of 250 (page 1 of 9)". */
export function positionLine(pos: ListPosition): string {
  // Grouped as people read them: "Showing 1-3,255 of 3,255".
  const n = formatCount
  if (pos.shown === 0) return pos.total ? `No records on this page (${n(pos.total)} in all).` : 'No records.'
  const range = `${n(pos.first)}-${n(pos.first + pos.shown - 1)}`
  const of = pos.total === undefined ? '' : ` of ${n(pos.total)}`
  const pages =
    pos.page !== undefined && pos.perPage && pos.total !== undefined
      ? ` (page ${n(pos.page)} of ${n(Math.max(1, Math.ceil(pos.total / pos.perPage)))})`
      : ''
  return `Showing ${range}${of}${pages}`
}

export interface ListRenderOptions {
  columns: readonly string[]
  /** Columns of the human rendering only, computed from each record (the JSON document has the records as they are). */
  computed?: Record<string, (record: Row) => unknown>
  /** Called after the records are consumed, for the TTY footer line. */
  position?: () => ListPosition | undefined
  /** Columns never cut (as ids): what tells rows apart (an event's type); the others narrow or go first. */
  whole?: readonly string[]
  /** Columns cut in the middle, not at the end: URLs and paths, whose start and end are what differ. */
  middle?: readonly string[]
  /** Columns narrowed last and dropped last: what the table is about (a URL, a file). */
  important?: readonly string[]
  /** Columns whose text wraps at spaces onto more lines instead of being cut: an explanation the reader needs whole. */
  wrap?: readonly string[]
}

/** Renders records as they arrive, for people: a table (TTY) or TSV rows (pipe). Returns how many were written. */
export async function renderListHuman(io: IOStreams, records: AsyncIterable<Row> | Iterable<Row>, options: ListRenderOptions): Promise<number> {
  let count = 0
  // --fields: those columns instead, a dotted name reaching into a nested value (fields.ts).
  const columns = [...(io.fields ?? options.columns)]
  if (io.fields) records = checkedRecords(records, io.fields, io.knownFields, {warn: (text) => io.warn(text), whole: io.wholeRecordFields})
  const computed = options.computed ?? {}
  const value = (record: Row, column: string) => (Object.hasOwn(computed, column) ? computed[column](record) : fieldValue(record, column))
  if (!io.tableOutput) {
    // The header goes out with the first row (or alone at the end), so a failed first request prints nothing.
    const header = columns.join('\t') + '\n'
    for await (const record of records) {
      await write(io.stdout, (count === 0 ? header : '') + columns.map((c) => formatCell(value(record, c), true)).join('\t') + '\n')
      count++
    }
    if (count === 0) await write(io.stdout, header)
    return count
  }

  // A terminal table after `gh`: no borders, no rule between rows, the header in capitals (and bold in colour),
  // sized to the terminal, the widest columns cut with `…`. One pass to measure, one to write: linear in rows.
  // While pages arrive (a long --all), a live count on stderr, cleared before the table is written.
  const rows: string[][] = []
  const natural = columns.map((c) => cellWidth(c))
  const progress = new Spinner(io)
  try {
    for await (const record of records) {
      const row = columns.map((c) => terminalCell(c, value(record, c), record, io.values, 'list'))
      for (let i = 0; i < row.length; i++) natural[i] = Math.max(natural[i], cellWidth(row[i]))
      rows.push(row)
      count++
      if (count === 1) progress.start('Fetched 1 record…')
      else if (count % 100 === 0) progress.update(`Fetched ${formatCount(count)} records…`)
    }
  } finally {
    progress.stop()
  }
  if (count > 0) {
    const available = io.width()
    const {keep, widths} = fitTable(columns, natural, available, options)
    const shown = keep.map((i) => columns[i])
    if (shown.length < columns.length) for (const row of rows) row.splice(0, row.length, ...keep.map((i) => row[i]))
    columns.splice(0, columns.length, ...shown)
    const last = columns.length - 1
    const line = (cells: string[], style: (column: string, text: string) => string) =>
      cells
        .map((text, i) => {
          const cut = (options.middle?.includes(columns[i]) ? fitCellsMiddle : fitCells)(text, widths[i])
          return style(columns[i], cut) + (i === last ? '' : ' '.repeat(widths[i] - cellWidth(cut)))
        })
        .join(' '.repeat(GAP))
        .trimEnd()
    const lines = [
      line(
        columns.map((c) => c.toUpperCase()),
        (_, text) => (io.color ? io.chalk.bold(text) : text),
      ),
    ]
    const wrapped = columns.map((c) => options.wrap?.includes(c) ?? false)
    for (const row of rows) {
      // A wrapping column's text on as many lines as it takes, the row's other cells on the first of them.
      const parts = row.map((text, i) => (wrapped[i] ? wrapWords(text, widths[i]).split('\n') : [text]))
      const height = Math.max(...parts.map((p) => p.length))
      for (let k = 0; k < height; k++)
        lines.push(
          line(
            parts.map((p) => p[k] ?? ''),
            (c, text) => styleCell(io, c, text),
          ),
        )
    }
    const footer = io.chalk.dim(positionLine(options.position?.() ?? {first: 1, shown: count}))
    // Taller than the terminal: through the pager (io/pager.ts), the position line with it.
    await outPaged(io, `${lines.join('\n')}\n${footer}`)
    return count
  }
  io.out(io.chalk.dim(positionLine(options.position?.() ?? {first: 1, shown: count})))
  return count
}

/** One resource, for people: field/value lines fitted to the terminal on a TTY, `field<TAB>value` lines on a pipe. */
export async function renderRecordHuman(io: IOStreams, record: Row, fields?: readonly string[]): Promise<void> {
  if (io.fields) {
    assertCarried(io.fields, io.knownFields, [record])
    record = project(record, io.fields)
  }
  const keys = fields ? [...fields, ...Object.keys(record).filter((k) => !fields.includes(k))] : Object.keys(record)
  const present = io.fields ?? keys.filter((k) => k in record)
  if (!io.tableOutput) {
    io.out(present.map((k) => `${sanitize(k, 'tsv')}\t${formatCell(record[k], true)}`).join('\n'))
    return
  }
  // Field names in a column as wide as the longest, values beside them in the rest of the window: a long value
  // wraps at words there, and nested values are shown one entry a line (wrapped too, continued two spaces in).
  const keyWidth = Math.max(...present.map((k) => cellWidth(sanitize(k))), 1)
  const valueWidth = Math.max(MIN_WIDTH, io.width() - keyWidth - GAP)
  const indent = ' '.repeat(keyWidth + GAP)
  const lines: string[] = []
  for (const k of present) {
    const name = padCells(sanitize(k), keyWidth)
    const valueLines = nestedCell(k, record, io.values, valueWidth)
      .split('\n')
      .flatMap((line) => wrapCells(line, valueWidth))
    for (const [i, line] of valueLines.entries())
      lines.push(`${i === 0 ? (io.color ? io.chalk.bold(name) : name) : indent}${' '.repeat(i === 0 ? GAP : 0)}${styleCell(io, k, line)}`.trimEnd())
  }
  io.out(lines.join('\n'))
}

/**
 * A value of a single resource for its field/value table: a collection (an order's `items`, a customer's
 * embedded `orders`) one entry a line as `key: value` pairs, an object (`metadata`) one pair a line, each entry
 * wrapped at words to the column (nothing is cut); anything else as terminalCell. Values inside keep their human form (an item's
 * `unit_price` with the order's currency).
 */
function nestedCell(key: string, record: Row, options: ValueOptions, width: number): string {
  const value = record[key]
  // Entries of a collection are resources (human forms apply); an object's pairs (metadata) are the user's own.
  const pairs = (entry: unknown, human = true): string =>
    isObject(entry)
      ? Object.entries(entry)
          .map(([k, v]) => {
            const shown = human ? humanValue(k, v, {currency: record.currency, ...(entry as Row)}, options, 'list') : undefined
            return `${k}: ${shown ?? (v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v))}`
          })
          .join(', ')
      : typeof entry === 'string'
        ? entry
        : JSON.stringify(entry)
  let lines: string[]
  if (Array.isArray(value) && (value as unknown[]).some((e) => e !== null && typeof e === 'object')) lines = (value as unknown[]).map((e) => pairs(e))
  else if (isObject(value) && Object.keys(value).length > 0) lines = Object.entries(value).map(([k, v]) => pairs({[k]: v}, false))
  else return terminalCell(key, value, record, options, 'record')
  return lines.flatMap((line) => wrapEntry(sanitize(line, 'cell'), Math.max(MIN_WIDTH, width))).join('\n')
}

/** One entry of a nested value wrapped at words to `width`, its continuation lines indented by two. */
function wrapEntry(line: string, width: number): string[] {
  const [first, ...rest] = wrapCells(line, width)
  return rest.length === 0 ? [first] : [first, ...wrapCells(rest.join(' '), width - 2).map((l) => `  ${l}`)]
}

export {JSON_BUFFER_BYTES, writeJsonArray} from './json-array.js'
