/**
 * Streaming readers of import files, one record at a time with the line number where it starts, in constant
 * memory. CSV goes through csv-parse (RFC 4180); JSONL is one JSON value per line, blank lines skipped.
 *
 * Line numbers are what an editor shows: the CSV header is line 1, a quoted record spanning lines is named by
 * its first line, and CRLF counts as one line break. (csv-parse counts a CRLF inside quotes as two lines, so
 * CRLF is turned into LF before parsing; a CRLF inside a quoted value therefore reads as LF.)
 */
import {createReadStream} from 'node:fs'

import {isObject} from '../domain/json.js'
import {type ImportFormat, MAX_RECORD_BYTES} from '../domain/bulk-formats.js'
import {splitLines} from './lines.js'
import {readCsv} from './read-csv.js'
import {NOT_UTF8, type ReadOptions, type ReadResult, tap, tooLong} from './read-shared.js'

export type {ReadOptions, ReadResult} from './read-shared.js'

export type {ImportFormat}

export function readRows(file: string, options: ReadOptions): AsyncGenerator<ReadResult> {
  return options.format === 'csv' ? readCsv(file, options) : readJsonl(file, options)
}

async function* readJsonl(file: string, options: ReadOptions): AsyncGenerator<ReadResult> {
  const raw = createReadStream(file)
  let source: AsyncIterable<Buffer> = raw
  if (options.onBytes) {
    const tapped = raw.pipe(tap(options.onBytes))
    raw.on('error', (error) => tapped.destroy(error))
    source = tapped
  }
  const max = options.maxLineBytes ?? MAX_RECORD_BYTES
  try {
    for await (const {bytes, line, tooLong: long, utf8} of splitLines(source, max)) {
      if (long) {
        yield {error: tooLong(max), line}
        continue
      }
      if (!utf8) {
        yield {error: NOT_UTF8, line}
        continue
      }
      let text = bytes.toString('utf8')
      if (text.endsWith('\r')) text = text.slice(0, -1)
      if (line === 1 && text.startsWith('\uFEFF')) text = text.slice(1)
      if (text.trim() === '') continue
      if (options.format === 'json') {
        // The array an export writes (`[`, one record a line with a comma between, `]`), read a line at a time.
        text = text.trim()
        if (text === '[' || text === ']' || text === '[]') continue
        text = text.replace(/^,/, '').replace(/,$/, '')
      }
      let record: unknown
      try {
        record = JSON.parse(text)
      } catch (error) {
        yield {
          line,
          error:
            options.format === 'json'
              ? `is not one record of the array an export writes (${(error as Error).message}); other JSON can be made JSONL with \`jq -c '.[]'\``
              : `is not valid JSON (${(error as Error).message})`,
        }
        continue
      }
      if (!isObject(record)) {
        yield {line, error: 'must be a JSON object'}
        continue
      }
      yield {line, record: record}
    }
  } finally {
    raw.destroy()
  }
}
