/**
 * How a terminal table fits its width (render.ts draws it): which columns stay, how wide each is. Ids and `whole`
 * columns are never cut; the others narrow first, `important` ones last; a column is dropped only when narrowing is
 * not enough.
 */
import {cellWidth} from './width.js'

/** Columns are this many spaces apart; a truncated column keeps at least this many characters. */
export const GAP = 2
export const MIN_WIDTH = 6

/**
 * Column widths that fit `available` characters: the natural widths when they fit; otherwise the widest column is
 * narrowed first (to the next widest, then the two together, and so on), never below MIN_WIDTH (or its header).
 * Independent of the number of rows.
 */
export function fitWidths(natural: readonly number[], available: number, minimum: readonly number[]): number[] {
  const widths = [...natural]
  const total = () => widths.reduce((sum, w) => sum + w, 0) + GAP * Math.max(0, widths.length - 1)
  let excess = total() - available
  while (excess > 0) {
    let widest = -1
    for (let i = 0; i < widths.length; i++) if (widths[i] > minimum[i] && (widest === -1 || widths[i] > widths[widest])) widest = i
    if (widest === -1) break
    // Down to the next widest column (one character at a time once they are level), never below the minimum.
    let next = minimum[widest]
    for (let i = 0; i < widths.length; i++) if (i !== widest && widths[i] <= widths[widest] && widths[i] > next) next = widths[i]!
    const cut = Math.min(excess, Math.max(1, widths[widest] - next), widths[widest] - minimum[widest])
    widths[widest] -= cut
    excess -= cut
  }
  return widths
}

/** Ids are what people copy into the next command: a table never cuts one. */
export function isIdColumn(column: string): boolean {
  return column === 'id' || column.endsWith('_id') || column === 'run'
}

/** An important column (ListRenderOptions.important) is narrowed to no less than this, when it is wider. */
const IMPORTANT_MIN_WIDTH = 24

/**
 * The columns kept and their widths for `available` cells. Other columns are narrowed first (never an id, nor a
 * column of `whole`), then the `important` ones (to no less than IMPORTANT_MIN_WIDTH); when even that does not fit,
 * the rightmost column that is none of these is dropped, then an important one, while two or more remain.
 */
export function fitTable(
  columns: readonly string[],
  natural: readonly number[],
  available: number,
  options: {whole?: readonly string[]; important?: readonly string[]} = {},
): {keep: number[]; widths: number[]} {
  let keep = columns.map((_, i) => i)
  const fixed = (i: number) => isIdColumn(columns[i]) || (options.whole ?? []).includes(columns[i])
  const important = (i: number) => (options.important ?? []).includes(columns[i])
  const total = (widths: readonly number[]) => widths.reduce((sum, w) => sum + w, 0) + GAP * Math.max(0, widths.length - 1)
  for (;;) {
    const floor = keep.map((i) => {
      if (fixed(i)) return natural[i]
      const least = Math.max(MIN_WIDTH, cellWidth(columns[i]), important(i) ? IMPORTANT_MIN_WIDTH : 0)
      return Math.min(natural[i], least)
    })
    // The others first (the important ones at their natural width), then the important ones from there.
    const first = fitWidths(
      keep.map((i) => natural[i]),
      available,
      keep.map((i, k) => (important(i) ? natural[i] : floor[k])),
    )
    const widths = total(first) <= available ? first : fitWidths(first, available, floor)
    let drop = keep.findLastIndex((i) => !fixed(i) && !important(i))
    if (drop === -1) drop = keep.findLastIndex((i) => !fixed(i))
    if (total(widths) <= available || keep.length <= 2 || drop <= 0) return {keep, widths}
    keep = keep.filter((_, k) => k !== drop)
  }
}
