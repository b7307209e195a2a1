/**
 * Streaming record writers for exports (and the --errors-file): JSONL, CSV or a JSON array, written as
 * records arrive, buffered into chunks of `chunkSize` characters, honouring the stream's backpressure.
 *
 * CSV: a header row of the top-level fields of the first record (then any `columns` it lacks; with no
 * records, `columns` alone, so an empty export is the header row); RFC 4180 quoting (a field holding a comma,
 * double quote, CR or LF is quoted, its quotes doubled); null and missing values empty; nested values as
 * compact JSON; rows end with LF. Fields that appear only after the first record are not written.
 * JSON: `[\n{...},\n{...}\n]\n`, and `[]\n` when empty.
 */
import {once} from 'node:events'
import type {Writable} from 'node:stream'

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
}

export function csvField(value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

export function createRecordWriter(format: RecordFormat, out: Writable, options: RecordWriterOptions = {}): RecordWriter {
  const chunkSize = options.chunkSize ?? 64 * 1024
  let buffer = ''
  let count = 0
  let columns: string[] | undefined

  function flush(): Promise<void> | void {
    if (buffer === '') return
    const ok = out.write(buffer)
    buffer = ''
    if (!ok) return once(out, 'drain').then(() => undefined)
  }

  function header(first?: Record<string, unknown>): void {
    columns = [...Object.keys(first ?? {})]
    for (const c of options.columns ?? []) if (!columns.includes(c)) columns.push(c)
    if (columns.length > 0) buffer += columns.map(csvField).join(',') + '\n'
  }

  return {
    get count() {
      return count
    },
    async end() {
      if (format === 'json') buffer += count === 0 ? '[]\n' : '\n]\n'
      if (format === 'csv' && !columns) header()
      await flush()
    },
    flush,
    write(record) {
      if (format === 'jsonl') buffer += JSON.stringify(record) + '\n'
      else if (format === 'json') buffer += (count === 0 ? '[\n' : ',\n') + JSON.stringify(record)
      else {
        if (!columns) header(record)
        buffer += columns!.map((c) => csvField(record[c])).join(',') + '\n'
      }
      count++
      if (buffer.length >= chunkSize) return flush()
    },
  }
}
