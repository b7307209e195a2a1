/**
 * The byte-level pass under both import readers: the file split at LF bytes into numbered lines, each checked
 * for a size bound and for valid UTF-8 before any text is built from it.
 *
 * - A line longer than `maxLineBytes` is never assembled: its bytes past the bound are dropped as they arrive,
 *   so memory stays bounded whatever the file holds (a 10 GB line costs `maxLineBytes`, not a RangeError).
 * - Invalid UTF-8 is found on the raw bytes (`isUtf8`), so that it is reported instead of being read as U+FFFD.
 * - `quotes`: the count of `"` bytes on each line, for CSV to know whether the line starts and ends outside a
 *   quoted value (RFC 4180: a doubled quote toggles twice).
 */
import {isUtf8} from 'node:buffer'

export interface Line {
  /** 1-based line number. */
  line: number
  /** The line's bytes without its LF (the first `maxLineBytes` only when `tooLong`). */
  bytes: Buffer
  /** The file ends without an LF after this line. */
  last: boolean
  tooLong: boolean
  /** Checked only when not tooLong. */
  utf8: boolean
  /** `"` bytes on the whole line (counted also past the bound). */
  quotes: number
}

function countQuotes(chunk: Buffer, from: number, to: number): number {
  let n = 0
  for (let i = chunk.indexOf(0x22, from); i !== -1 && i < to; i = chunk.indexOf(0x22, i + 1)) n++
  return n
}

/** The lines of a byte stream (see the module comment). */
export async function* splitLines(source: AsyncIterable<Buffer>, maxLineBytes: number): AsyncGenerator<Line> {
  let parts: Buffer[] = []
  let size = 0
  let quotes = 0
  let line = 1
  const finish = (last: boolean): Line => {
    const tooLong = size > maxLineBytes
    const bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts)
    const result = {bytes, last, line: line++, quotes, tooLong, utf8: tooLong || isUtf8(bytes)}
    parts = []
    size = 0
    quotes = 0
    return result
  }
  const keep = (piece: Buffer) => {
    const room = maxLineBytes + 1 - Math.min(size, maxLineBytes + 1)
    if (room > 0) parts.push(piece.length > room ? piece.subarray(0, room) : piece)
    size += piece.length
  }
  for await (const chunk of source) {
    let from = 0
    for (let lf = chunk.indexOf(0x0a); lf !== -1; lf = chunk.indexOf(0x0a, from)) {
      keep(chunk.subarray(from, lf))
      quotes += countQuotes(chunk, from, lf)
      from = lf + 1
      yield finish(false)
    }
    if (from < chunk.length) {
      keep(chunk.subarray(from))
      quotes += countQuotes(chunk, from, chunk.length)
    }
  }
  if (size > 0) yield finish(true)
}
