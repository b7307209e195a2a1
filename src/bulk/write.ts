/**
 * Streaming record writers for exports (and the --errors-file): JSONL, CSV or a JSON array, written as
 * records arrive, buffered into chunks of `chunkSize` characters, honouring the stream's backpressure.
 *
 * CSV: a header row of the top-level fields of the first record (then any `columns` it lacks; with no
 * records, `columns` alone, so an empty export is the header row); written by csv-stringify (RFC 4180: a field
 * holding a comma, double quote, CR or LF is quoted, its quotes doubled); null and missing values empty;
 * booleans `true`/`false`; nested values as compact JSON; rows end with LF. Fields that appear only after the
 * first record are not written. `escapeFormulas` (for files meant for spreadsheets): a cell starting with
 * `=`, `+`, `-`, `@`, tab or CR (or their full-width forms) gets a leading `'`, as OWASP advises against
 * formula injection; numbers are left alone. Off by default, so that an export imports back exactly.
 * JSON: `[\n{...},\n{...}\n]\n`, and `[]\n` when empty.
 */
import {once} from 'node:events'
import type {Writable} from 'node:stream'

import {stringify} from 'csv-stringify/sync'

export type RecordFormat = 'jsonl' | 'csv' | 'json'

export interface RecordWriter {
  /** Queues one record; the promise (when there is one) resolves once the stream can take more. */
  write(record: Record<string, unknown>): Promise<void> | void
  /** Writes what is buffered now (e.g. after each page). */
  flush(): Promise<void> | void
  /** Writes the trailer (JSON's `]`, CSV's header when nothing was written) and what is buffered. Does not end `out`. */
  end(): Promise<void>
  /** Records written so far. */
  readonly count: number
}

export interface RecordWriterOptions {
  /** CSV: the resource's fields, for the header of an empty export and fields missing from the first record. */
  columns?: readonly string[]
  /** Characters buffered before a write to the stream; default 64 Ki. */
  chunkSize?: number
  /** CSV: prefix cells that a spreadsheet would run as formulas with `'` (see the module comment). */
  escapeFormulas?: boolean
}

/** CSV rows, quoted by csv-stringify (nested values as compact JSON, booleans as words). */
export function csvRows(rows: unknown[][], options: {escapeFormulas?: boolean} = {}): string {
  return stringify(rows, {
    cast: {boolean: (value) => String(value), object: (value) => JSON.stringify(value)},
    escape_formulas: options.escapeFormulas === true,
    // A lone CR is a line break to many readers: quoted too (csv-stringify quotes only LF with a unix delimiter).
    quoted_match: /\r/,
    record_delimiter: 'unix',
  })
}

export function createRecordWriter(format: RecordFormat, out: Writable, options: RecordWriterOptions = {}): RecordWriter {
  const chunkSize = options.chunkSize ?? 64 * 1024
  let buffer = ''
  /**
   * JSON texts waiting for the next write, joined then: a string grown by `+=` is a tree of pieces that has to be
   * flattened when written (the UTF-8 conversion of an export took twice as long), a join is built flat.
   */
  const parts: string[] = []
  let partChars = 0
  let count = 0
  let columns: string[] | undefined
  /** CSV rows waiting to be stringified together (one csv-stringify call per batch, not per row). */
  let rows: unknown[][] = []
  let rowChars = 0
  const csv = (batch: unknown[][]) => csvRows(batch, {escapeFormulas: options.escapeFormulas})

  function flush(): Promise<void> | void {
    if (rows.length > 0) {
      buffer += csv(rows)
      rows = []
      rowChars = 0
    }
    if (parts.length > 0) {
      buffer += parts.join('')
      parts.length = 0
      partChars = 0
    }
    if (buffer === '') return
    const ok = out.write(buffer)
    buffer = ''
    if (!ok) return once(out, 'drain').then(() => undefined)
  }

  function header(first?: Record<string, unknown>): void {
    columns = [...Object.keys(first ?? {})]
    for (const c of options.columns ?? []) if (!columns.includes(c)) columns.push(c)
    if (columns.length > 0) buffer += csv([columns])
  }

  return {
    get count() {
      return count
    },
    async end() {
      if (format === 'json') parts.push(count === 0 ? '[]\n' : '\n]\n')
      if (format === 'csv' && !columns) header()
      await flush()
    },
    flush,
    write(record) {
      if (format === 'jsonl') {
        const line = JSON.stringify(record) + '\n'
        parts.push(line)
        partChars += line.length
      } else if (format === 'json') {
        const item = (count === 0 ? '[\n' : ',\n') + JSON.stringify(record)
        parts.push(item)
        partChars += item.length
      } else {
        if (!columns) header(record)
        const row = columns!.map((c) => record[c] ?? null)
        rows.push(row)
        for (const v of row) rowChars += typeof v === 'string' ? v.length + 1 : 16
      }
      count++
      if (buffer.length + partChars + rowChars >= chunkSize) return flush()
    },
  }
}
