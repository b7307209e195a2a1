/**
 * The CSV reader of read.ts, through csv-parse (RFC 4180): line numbers as an editor shows them (CRLF turned into
 * LF first, see read.ts), a line over the bound or not UTF-8 reported as an invalid row, a syntax error placed on
 * the record it spoils.
 */
import {createReadStream} from 'node:fs'
import {StringDecoder} from 'node:string_decoder'
import {Readable, Transform, type TransformCallback} from 'node:stream'

import {type CsvError, parse} from 'csv-parse'

import {MAX_RECORD_BYTES} from '../domain/bulk-formats.js'
import {formatBytes} from '../domain/text.js'
import {splitLines} from './lines.js'
import {NOT_UTF8, type ReadError, type ReadOptions, type ReadResult, tap, tooLong} from './read-shared.js'

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

/**
 * The parser over the file's guarded bytes. With skip_records_with_error it reports a bad record and goes on,
 * without destroying the stream (which would drop the good records buffered before it); readCsv replays the
 * reports (`skips`) in file order.
 */
function openCsv(file: string, options: ReadOptions) {
  const raw = createReadStream(file)
  const parser = parse({
    bom: true,
    info: true,
    record_delimiter: '\n',
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
  })
  const skips: Skip[] = []
  parser.on('skip', (error: Skip) => skips.push(error))
  const bytes = options.onBytes ? raw.pipe(tap(options.onBytes)) : raw
  if (bytes !== raw) raw.on('error', (error) => bytes.destroy(error))
  const guard = guardCsvLines(bytes as AsyncIterable<Buffer>, options.maxLineBytes ?? MAX_RECORD_BYTES)
  const guarded = Readable.from(guard.bytes, {objectMode: false})
  guarded.on('error', (error) => parser.destroy(error))
  guarded.pipe(new CrlfToLf()).pipe(parser)
  return {guard, parser, raw, skips}
}

function lineBreaks(values: string[]): number {
  let n = 0
  for (const v of values) for (let i = 0; i < v.length; i++) if (v[i] === '\n' || v[i] === '\r') n++
  return n
}

/** A quote inside an unquoted field spoils one record only; other syntax errors leave the rest unreadable. */
const RECOVERABLE = new Set(['INVALID_OPENING_QUOTE', 'CSV_INVALID_OPENING_QUOTE'])

type Skip = CsvError & {records: number; lines: number; empty_lines: number}

export async function* readCsv(file: string, options: ReadOptions): AsyncGenerator<ReadResult> {
  const {guard, parser, raw, skips} = openCsv(file, options)

  let header: string[] | undefined
  // End line of the last record read, and the count of skipped empty lines then (to place a skipped record).
  let lastEnd = 0
  let lastEmpty = 0
  /** The reports of the records the parser skipped before record number `records` + 1. */
  function* skipped(records: number): Generator<ReadError> {
    while (skips.length > 0 && skips[0].records < records) {
      const skip = skips.shift()!
      const line = lastEnd + 1 + Math.max(0, skip.empty_lines - lastEmpty)
      const fatal = !header || !RECOVERABLE.has(skip.code)
      // The bytes stopped at a line over the bound inside quotes: that, not the unclosed quote it leaves, is the cause.
      if (fatal && guard.fatal !== undefined) {
        yield fatalTooLong(guard.fatal, guard.max)
        return
      }
      const error = fatal
        ? `CSV syntax error in the record starting here: ${skip.message}; nothing after it was read`
        : `CSV syntax error: ${skip.message}`
      yield {error, line, ...(fatal ? {fatal} : {})}
      lastEnd = Math.max(line, skip.lines)
      lastEmpty = skip.empty_lines
    }
  }

  /** The lines over the bound (read as empty lines) before `line`, as invalid rows. */
  function* oversized(line: number): Generator<ReadError> {
    while (guard.tooLong.length > 0 && guard.tooLong[0] < line) yield {error: tooLong(guard.max), line: guard.tooLong.shift()!}
  }

  try {
    for await (const {record, info} of parser as AsyncIterable<{record: string[]; info: {lines: number; empty_lines: number; records: number}}>) {
      for (const report of skipped(info.records)) {
        yield* oversized(report.line)
        yield report
        if (report.fatal) return
      }
      const line = info.lines - lineBreaks(record)
      yield* oversized(line)
      lastEnd = info.lines
      lastEmpty = info.empty_lines
      const badText = guard.notUtf8.some((l) => l >= line && l <= info.lines)
      while (guard.notUtf8.length > 0 && guard.notUtf8[0] <= info.lines) guard.notUtf8.shift()
      if (badText) {
        yield {line, error: NOT_UTF8, ...(header ? {} : {fatal: true})}
        if (!header) return
        continue
      }
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
      yield* oversized(report.line)
      yield report
      if (report.fatal) return
    }
    yield* oversized(Number.POSITIVE_INFINITY)
    if (guard.fatal !== undefined) {
      yield fatalTooLong(guard.fatal, guard.max)
      return
    }
  } finally {
    raw.destroy()
    parser.destroy()
  }
  if (!header) yield {line: 1, error: 'the file is empty: a CSV import needs a header row', fatal: true}
}

function fatalTooLong(line: number, max: number): ReadError {
  return {
    error: `a quoted value spanning lines grows past ${formatBytes(max)} here, the most one row may hold; nothing after it was read`,
    fatal: true,
    line,
  }
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

/**
 * CSV's byte pass: the file's bytes again, with each line over the bound read as an empty line (when it starts
 * and ends outside quotes, so the records around it read as before) and noted in `tooLong`; one that does not
 * ends the bytes there and is `fatal` (what follows cannot be placed). Lines that are not UTF-8 go through
 * (decoded with U+FFFD) and are noted in `notUtf8`, so that the record holding them is reported instead.
 */
function guardCsvLines(source: AsyncIterable<Buffer>, max: number) {
  const state = {fatal: undefined as number | undefined, max, notUtf8: [] as number[], tooLong: [] as number[]}
  async function* bytes(): AsyncGenerator<Buffer> {
    const LF = Buffer.from('\n')
    let pending: Buffer[] = []
    let size = 0
    let quoted = false
    let recordBytes = 0
    for await (const l of splitLines(source, max)) {
      const startsQuoted = quoted
      if (l.quotes % 2 === 1) quoted = !quoted
      // A record spanning lines is bounded as a whole: many lines under the bound must not add up past it.
      recordBytes = (startsQuoted ? recordBytes + 1 : 0) + l.bytes.length
      let piece = l.bytes
      if (l.tooLong || (startsQuoted && recordBytes > max)) {
        if (startsQuoted || quoted) {
          state.fatal = l.line
          break
        }
        state.tooLong.push(l.line)
        piece = Buffer.alloc(0)
      } else if (!l.utf8) state.notUtf8.push(l.line)
      pending.push(piece)
      if (!l.last) pending.push(LF)
      size += piece.length + 1
      if (size >= 64 * 1024) {
        yield Buffer.concat(pending)
        pending = []
        size = 0
      }
    }
    if (pending.length > 0) yield Buffer.concat(pending)
  }
  return {
    bytes: bytes(),
    /** The line over the bound inside a quoted value, where the bytes stopped. */
    get fatal() {
      return state.fatal
    },
    max,
    notUtf8: state.notUtf8,
    tooLong: state.tooLong,
  }
}
