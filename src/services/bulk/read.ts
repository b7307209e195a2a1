/**
 * Streaming readers of import files, one record at a time with the line number where it starts, in constant
 * memory. CSV goes through csv-parse (RFC 4180); JSONL is one JSON value per line, blank lines skipped.
 *
 * Line numbers are what an editor shows: the CSV header is line 1, a quoted record spanning lines is named by
 * its first line, and CRLF counts as one line break. (csv-parse counts a CRLF inside quotes as two lines, so
 * CRLF is turned into LF before parsing; a CRLF inside a quoted value therefore reads as LF.)
 */
import {createReadStream} from 'node:fs'
import {createInterface} from 'node:readline'
import {StringDecoder} from 'node:string_decoder'
import {Transform, type TransformCallback} from 'node:stream'

import {type CsvError, parse} from 'csv-parse'

export type ImportFormat = 'csv' | 'jsonl'

/**
 * One record, or a reason it could not be read. A `fatal` error ends the file: nothing after it was read
 * (a CSV syntax error such as an unclosed quote, or a bad header), so an import must not go on.
 */
export type ReadError = {line: number; error: string; fatal?: boolean}
export type ReadResult = {line: number; record: Record<string, unknown>} | ReadError

export interface ReadOptions {
  format: ImportFormat
  /** Every chunk of the file's bytes as read (e.g. to hash the file in the same pass). */
  onBytes?: (chunk: Buffer) => void
  /** CSV: checks the header's column names; a message makes it a fatal error on the header's line. */
  checkHeader?: (columns: string[]) => string | undefined
}

export function readRows(file: string, options: ReadOptions): AsyncGenerator<ReadResult> {
  return options.format === 'csv' ? readCsv(file, options) : readJsonl(file, options)
}

/** Passes bytes through, showing each chunk to `onBytes`. */
function tap(onBytes: (chunk: Buffer) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      onBytes(chunk)
      done(null, chunk)
    },
  })
}

/** UTF-8 bytes in, text out with every CRLF turned into LF (a CR at a chunk's end waits for the next chunk). */
class CrlfToLf extends Transform {
  private readonly decoder = new StringDecoder('utf8')
  private heldCr = false

  constructor() {
    super({decodeStrings: true, encoding: 'utf8'})
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    done(null, this.fix(this.decoder.write(chunk)))
  }

  override _flush(done: TransformCallback): void {
    const rest = this.fix(this.decoder.end())
    done(null, this.heldCr ? rest + '\r' : rest)
  }

  private fix(text: string): string {
    if (this.heldCr) {
      text = '\r' + text
      this.heldCr = false
    }
    if (text.endsWith('\r')) {
      this.heldCr = true
      text = text.slice(0, -1)
    }
    return text.replaceAll('\r\n', '\n')
  }
}

function lineBreaks(values: string[]): number {
  let n = 0
  for (const v of values) for (let i = 0; i < v.length; i++) if (v[i] === '\n' || v[i] === '\r') n++
  return n
}

/** A quote inside an unquoted field spoils one record only; other syntax errors leave the rest unreadable. */
const RECOVERABLE = new Set(['INVALID_OPENING_QUOTE', 'CSV_INVALID_OPENING_QUOTE'])

type Skip = CsvError & {records: number; lines: number; empty_lines: number}

async function* readCsv(file: string, options: ReadOptions): AsyncGenerator<ReadResult> {
  const raw = createReadStream(file)
  // With skip_records_with_error the parser reports a bad record and goes on, without destroying the stream
  // (which would drop the good records buffered before it); the reports are replayed here in file order.
  const parser = parse({bom: true, info: true, record_delimiter: '\n', relax_column_count: true, skip_empty_lines: true, skip_records_with_error: true})
  const skips: Skip[] = []
  parser.on('skip', (error: Skip) => skips.push(error))
  raw.on('error', (error) => parser.destroy(error))
  const bytes = options.onBytes ? raw.pipe(tap(options.onBytes)) : raw
  bytes.pipe(new CrlfToLf()).pipe(parser)

  let header: string[] | undefined
  // End line of the last record read, and the count of skipped empty lines then (to place a skipped record).
  let lastEnd = 0
  let lastEmpty = 0
  /** The reports of the records the parser skipped before record number `records` + 1. */
  function* skipped(records: number): Generator<ReadError> {
    while (skips.length > 0 && skips[0]!.records < records) {
      const skip = skips.shift()!
      const line = lastEnd + 1 + Math.max(0, skip.empty_lines - lastEmpty)
      const fatal = !header || !RECOVERABLE.has(skip.code)
      const error = fatal ? `CSV syntax error in the record starting here: ${skip.message}; nothing after it was read` : `CSV syntax error: ${skip.message}`
      yield {error, line, ...(fatal ? {fatal} : {})}
      lastEnd = Math.max(line, skip.lines)
      lastEmpty = skip.empty_lines
    }
  }

  try {
    for await (const {record, info} of parser as AsyncIterable<{record: string[]; info: {lines: number; empty_lines: number; records: number}}>) {
      for (const report of skipped(info.records)) {
        yield report
        if (report.fatal) return
      }
      const line = info.lines - lineBreaks(record)
      lastEnd = info.lines
      lastEmpty = info.empty_lines
      if (!header) {
        header = record.map((c) => c.trim())
        const problem = checkColumns(header) ?? options.checkHeader?.(header)
        if (problem) {
          yield {line, error: problem, fatal: true}
          return
        }
        continue
      }
      if (record.every((v) => v.trim() === '')) continue // a row of empty cells, as spreadsheets leave at the end
      if (record.length !== header.length) {
        yield {line, error: `has ${record.length} field${record.length === 1 ? '' : 's'}, the header has ${header.length}`}
        continue
      }
      yield {line, record: Object.fromEntries(header.map((name, i) => [name, record[i]]))}
    }
    for (const report of skipped(Number.POSITIVE_INFINITY)) {
      yield report
      if (report.fatal) return
    }
  } finally {
    raw.destroy()
    parser.destroy()
  }
  if (!header) yield {line: 1, error: 'the file is empty: a CSV import needs a header row', fatal: true}
}

function checkColumns(columns: string[]): string | undefined {
  const seen = new Set<string>()
  for (const [i, c] of columns.entries()) {
    if (c === '') return `column ${i + 1} of the header has no name`
    if (seen.has(c)) return `the header names column "${c}" twice`
    seen.add(c)
  }
  return undefined
}

async function* readJsonl(file: string, options: ReadOptions): AsyncGenerator<ReadResult> {
  const raw = createReadStream(file)
  let source: NodeJS.ReadableStream = raw
  if (options.onBytes) {
    const tapped = raw.pipe(tap(options.onBytes))
    raw.on('error', (error) => tapped.destroy(error))
    source = tapped
  }
  const lines = createInterface({input: source, crlfDelay: Number.POSITIVE_INFINITY})
  let line = 0
  try {
    for await (let text of lines) {
      line++
      if (line === 1 && text.startsWith('\uFEFF')) text = text.slice(1)
      if (text.trim() === '') continue
      let record: unknown
      try {
        record = JSON.parse(text)
      } catch (error) {
        yield {line, error: `is not valid JSON (${(error as Error).message})`}
        continue
      }
      if (typeof record !== 'object' || record === null || Array.isArray(record)) {
        yield {line, error: 'must be a JSON object'}
        continue
      }
      yield {line, record: record as Record<string, unknown>}
    }
  } finally {
    lines.close()
    raw.destroy()
  }
}
