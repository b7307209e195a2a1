/**
 * Widths in terminal cells, for every line the CLI fits to a window (tables, field/value views): an East Asian
 * wide character or an emoji takes two cells, a combining mark none, an escape sequence none. Measured by
 * string-width (the library oclif measures with), cut by grapheme so that no character is split, and wrapped at
 * words by wrap-ansi (which measures with the same string-width).
 */
import stringWidth from 'string-width'
import wrapAnsi from 'wrap-ansi'

/** Printable ASCII only: one cell a character, measured without the library (most cells of most tables). */
const PLAIN = /^[\x20-\x7e]*$/

/** The cells `text` takes on a terminal. */
export function cellWidth(text: string): number {
  return PLAIN.test(text) ? text.length : stringWidth(text)
}

/** Made on first use (only text that is not printable ASCII is cut by grapheme). */
let graphemes: Intl.Segmenter | undefined

/** `text` cut to at most `width` cells, ending with `…` when cut; a wide character that would not fit is left out. */
export function fitCells(text: string, width: number): string {
  if (cellWidth(text) <= width) return text
  if (width <= 0) return ''
  if (PLAIN.test(text)) return `${text.slice(0, width - 1)}…`
  let out = ''
  let used = 0
  for (const {segment} of (graphemes ??= new Intl.Segmenter(undefined, {granularity: 'grapheme'})).segment(text)) {
    const w = stringWidth(segment)
    if (used + w > width - 1) break
    out += segment
    used += w
  }
  return `${out}…`
}

/**
 * `text` cut to at most `width` cells in the middle, `…` where the cut is: for URLs and paths, whose start (a URL's
 * scheme, host and port) and end (the last segment, a file name) are what tell two apart. The end keeps its last
 * segment when it fits, a URL its origin; the rest of the room goes to the start.
 */
export function fitCellsMiddle(text: string, width: number): string {
  if (cellWidth(text) <= width) return text
  if (width <= 2) return fitCells(text, width)
  const room = width - 1
  const origin = /^[a-z][\w+.-]*:\/\/[^/]*/i.exec(text)?.[0] ?? ''
  const slash = text.lastIndexOf('/')
  const last = slash > origin.length - 1 && slash >= 0 ? text.slice(slash) : ''
  const [headWant, tailWant] = [cellWidth(origin), last ? cellWidth(last) : Math.floor(room / 2)]
  let tailRoom = headWant + tailWant <= room ? tailWant : Math.max(room - headWant, Math.min(tailWant, Math.floor(room / 2)))
  tailRoom = Math.min(Math.max(1, tailRoom), room - 1)
  const parts = [...(graphemes ??= new Intl.Segmenter(undefined, {granularity: 'grapheme'})).segment(text)].map((g) => g.segment)
  let tail = ''
  let used = 0
  for (let i = parts.length - 1; i >= 0; i--) {
    const w = cellWidth(parts[i])
    if (used + w > tailRoom) break
    tail = parts[i] + tail
    used += w
  }
  return fitCells(text, width - used).replace(/\u2026$/, '') + '…' + tail
}

/** `text` followed by spaces up to `width` cells. */
export function padCells(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - cellWidth(text)))
}

/** `text` wrapped at words into lines of at most `width` cells (a longer word is broken), without trailing spaces. */
export function wrapCells(text: string, width: number): string[] {
  if (cellWidth(text) <= width) return [text]
  return wrapAnsi(text, Math.max(1, width), {hard: true, trim: true}).split('\n')
}
