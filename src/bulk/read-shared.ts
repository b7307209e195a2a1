/** What the readers of import files (read.ts, read-csv.ts) share: their options, results and wording. */
import {Transform} from 'node:stream'

import type {ImportFormat} from '../domain/bulk-formats.js'
import {formatBytes} from '../domain/text.js'

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
  /** The bound on one line's bytes (default MAX_RECORD_BYTES): a longer line is an invalid row, never read whole. */
  maxLineBytes?: number
}

export const NOT_UTF8 = 'is not valid UTF-8 text (save the file as UTF-8)'
export const tooLong = (max: number) => `is longer than ${formatBytes(max)}, the most one row may hold`

/** Passes bytes through, showing each chunk to `onBytes`. */
export function tap(onBytes: (chunk: Buffer) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      onBytes(chunk)
      done(null, chunk)
    },
  })
}
