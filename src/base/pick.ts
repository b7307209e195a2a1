/**
 * A picker in place of an id left out, on a terminal only (gh's way: `gh run view` asks which run): the records come
 * from services/pickers.ts as the person types, each labelled with what a person recognises, a page at a time ("more"
 * loads the next). Without a terminal, or with --json, nothing is asked and nothing sent: exit 2 naming the id.
 */
import {counted} from '../domain/text.js'
import {UsageError} from '../errors.js'
import {promptSearch, type SearchChoice} from '../io/prompt.js'
import {sanitize} from '../io/sanitize.js'
import type {IOStreams} from '../io/streams.js'
import {formatMoney, relativeTime} from '../io/values.js'
import {cellWidth, fitCells, padCells} from '../io/width.js'
import {PICK_KINDS} from '../services/pick-kinds.js'
import {type Candidate, candidates, type PickKind, type PickSource} from '../services/pickers.js'
import {readTimestamp} from '../domain/timestamp.js'

const MORE = Symbol('more')

/** What a person recognises a candidate by, in columns: the id first. */
export function cellsOf(c: Candidate, io: IOStreams, now: number): string[] {
  // Every cell escaped before the columns are measured (an escape is wider than the byte it stands for); the prompt
  // escapes the whole label again (io/prompt.ts), which leaves escaped text as it is.
  const cells = (...values: Array<string | number | null | undefined>) => values.map((v) => sanitize(String(v ?? ''), 'cell'))
  if (c.customer) return cells(c.customer.id, c.customer.name, c.customer.email)
  if (c.order) {
    const o = c.order
    const placed = readTimestamp(o.placed_at)
    return cells(
      o.id,
      `customer ${String(o.customer_id)}`,
      o.status,
      formatMoney(o.total, o.currency, io.values.moneyUnit),
      placed === undefined ? '' : relativeTime(placed, now),
    )
  }
  if (c.product) {
    const p = c.product
    return cells(p.id, p.name, formatMoney(p.price, p.currency, io.values.moneyUnit), p.in_stock === false ? '(out of stock)' : '')
  }
  const e = c.event!
  return cells(
    e.id,
    e.type,
    e.forward_status === null ? 'no answer' : e.forward_status,
    relativeTime(readTimestamp(e.received_at) ?? Number.NaN, now),
  )
}

/** The most a column other than the id takes before it is cut with `…`. */
const MAX_CELL = 32

/**
 * Candidates as lines of aligned columns that fit the terminal (the picker's `❯ ` and a margin aside): the id
 * whole, the other columns as wide as their widest (at most MAX_CELL), the line cut with `…` past the width.
 */
export function labelLines(rows: readonly string[][], columns: number): string[] {
  const widths: number[] = []
  for (const row of rows) row.forEach((text, i) => (widths[i] = Math.max(widths[i] ?? 0, Math.min(i === 0 ? Infinity : MAX_CELL, cellWidth(text)))))
  const room = Math.max(20, columns - 4)
  return rows.map((row) => {
    const [id, ...rest] = row
    const line = rest.map((text, i) => padCells(fitCells(text, widths[i + 1]), widths[i + 1])).join('  ')
    return `${padCells(id, widths[0])}  ${fitCells(line.trimEnd(), Math.max(1, room - widths[0] - 2))}`.trimEnd()
  })
}

/** Whether a person can be asked for a record: a terminal both ways (stdin and stdout) and no --json. */
export function canPick(io: IOStreams): boolean {
  return io.canPrompt() && io.isStdoutTTY && !io.json
}

export interface PickOptions {
  /** The question; default "Which customer? (type to filter, Esc to cancel)". */
  message?: string
  io: IOStreams
  kind: PickKind
  source: PickSource
  /** The command line with ID where the id goes, for the message without a terminal. */
  usage: string
  now: () => number
  /** The message without a terminal, when the default ("Missing order id: ...") does not fit the command. */
  missing?: string
}

/** The id chosen; exit 2 without a terminal or with --json; exit 130 on Esc or Ctrl-C. */
export async function pickId(o: PickOptions): Promise<number | string> {
  const noun: string = PICK_KINDS[o.kind].noun
  if (!canPick(o.io)) throw new UsageError(o.missing ?? `Missing ${noun.split(' ')[0]} id: \`${o.usage}\` (on a terminal, leave it out to pick one).`)
  // The first page before anything is drawn: a service that cannot be reached fails the command as it would without
  // a picker, and an empty list says so (exit 2, as a missing id is), instead of a prompt that can only be cancelled.
  let first: {pages: number; page: Awaited<ReturnType<typeof candidates>>} | undefined = {
    page: await candidates(o.kind, o.source, undefined, 1),
    pages: 1,
  }
  if (first.page.candidates.length === 0) throw new UsageError(`There is no ${noun} to choose from: \`${o.usage}\` needs one.`)
  for (let pages = 1; ; pages++) {
    let offered = 0
    // Every candidate offered so far, by id: searches resolve in any order, and an id names one record.
    const shown = new Map<number | string, string[]>()
    const chosen = await promptSearch<number | string | typeof MORE>(
      o.io,
      o.message ?? `Which ${noun}? (type to filter, Esc to cancel)`,
      async (term) => {
        const {candidates: found, more} = !term && first?.pages === pages ? first.page : await candidates(o.kind, o.source, term, pages)
        offered = found.length
        const rows = found.map((c) => cellsOf(c, o.io, o.now()))
        for (const [i, c] of found.entries()) shown.set(c.id, rows[i])
        const lines = labelLines(rows, o.io.width('stderr'))
        const choices: Array<SearchChoice<number | string | typeof MORE>> = found.map((c, i) => ({name: lines[i], value: c.id}))
        if (more) choices.push({name: `… more (${counted(offered, noun.split(' ')[0])} shown; load the next page)`, value: MORE})
        if (found.length === 0 && !term) throw new Error(`No ${noun} to choose from.`)
        return choices
      },
    )
    first = undefined
    if (chosen === MORE) continue
    // The picker clears itself when done: the choice stays on the screen, as a prompt's answer does.
    const what = noun.split(' ')[0]
    const label = (shown.get(chosen) ?? [String(chosen)]).filter((cell) => cell.trim() !== '').join('  ')
    o.io.info(`${o.io.chalk.green('✔')} ${what[0].toUpperCase()}${what.slice(1)}: ${label}`)
    return chosen
  }
}
