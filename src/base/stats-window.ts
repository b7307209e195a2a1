/**
 * What `orders stats`, `customers stats` and `products top` share above their services: the window flags (--since,
 * --until, --by, --utc) made into a StatsWindow in the time zone in effect (exit 2 naming the flag for a value that is
 * not a moment, or a window too long to count), a live count while pages are read, the one heading that names the
 * window as asked, and the chart. The calendar (Temporal) is loaded here, by these commands only.
 */
import {Flags} from '@oclif/core'

import type {ValueShape} from './flags.js'

import {GRANULARITIES, type Granularity} from '../domain/periods.js'
import {defaultGranularity, DEFAULT_SINCE} from '../domain/window-grammar.js'
import {option, phrase} from '../domain/phrase.js'
import {formatCount} from '../domain/text.js'
import {UsageError} from '../errors.js'
import {type Bar, barChart} from '../io/chart.js'
import {Spinner} from '../io/spinner.js'
import type {IOStreams} from '../io/streams.js'
import type {Read, StatsWindow} from '../services/stats.js'
import {momentOf, zoneCalendar} from './window.js'

/** The most periods one report holds (a series per currency): 27 years by day, 416 days by hour. */
export const MAX_PERIODS = 10_000

export const statsFlags = {
  by: Flags.option({
    description:
      'The period of each bar and row: real hours of the local clock (a 25-hour day has 25), calendar days, weeks from Monday, calendar months (default: hour up to two days, day up to 62 days, week up to a year, else month).',
    options: GRANULARITIES,
  })(),
  since: Flags.string({
    ...({valueType: 'window'} satisfies ValueShape),
    default: DEFAULT_SINCE,
    description:
      'From: a span back from now that includes the current second, minute, hour, day, week or month (24h: this hour and the 23 before; 7d: today and the 6 days before; 12w: from Monday 11 weeks ago; 6mo: from the 1st 5 months ago; 30m, 90s; at least 1), a date (2026-11-01: from its start) or a date-time (2026-11-01T08:00, with an offset or in the zone).',
  }),
  until: Flags.string({
    ...({valueType: 'date'} satisfies ValueShape),
    description:
      'To (default: now): a date (2026-11-30: up to the end of that day) or a date-time (2026-11-30T18:00: up to, not including, that moment).',
  }),
  utc: Flags.boolean({
    description: 'Count periods in UTC instead of the local time zone (TZ); dates and date-times without an offset are read in UTC too.',
  }),
}

/** A report's window with what a person reads of it. */
export interface StatsRequest {
  window: StatsWindow
  /** The window as asked, in the zone: `2026-09-06 to now (2026-11-28 05:14)`, `2026-11-01`. */
  span: string
}

/**
 * The window the flags say, in the local time zone (TZ when it names a zone, else the system's, else UTC with a
 * warning) or UTC; exit 2 naming the flag for a value it cannot read, or for a window of more than MAX_PERIODS.
 */
export async function windowOf(
  flags: {since: string; until?: string; by?: Granularity; utc: boolean},
  now: number,
  env: NodeJS.ProcessEnv,
  io: IOStreams,
): Promise<StatsRequest> {
  const calendar = await zoneCalendar(env, flags.utc, io)
  const since = momentOf(calendar, 'since', flags.since, now)
  const until = flags.until === undefined ? now + 1 : momentOf(calendar, 'until', flags.until, now)
  if (until <= since)
    throw new UsageError(
      phrase`${option('until')} (${calendar.describeEnd(until)}) is not after ${option('since')} (${calendar.describe(since)}) in ${calendar.timeZone}: the window is empty.`,
    )
  const by = flags.by ?? defaultGranularity(since, until)
  let periods: number[]
  try {
    periods = calendar.periodsBetween(since, until, by, MAX_PERIODS)
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
    throw new UsageError(
      phrase`That window holds more than ${formatCount(MAX_PERIODS)} periods by ${by}: narrow ${option('since')} and ${option('until')}, or count by a longer period (${option('by')}).`,
    )
  }
  const from = calendar.describe(since)
  const to = flags.until === undefined ? `now (${calendar.describe(now)})` : calendar.describeEnd(until)
  return {
    span: from === to ? from : `${from} to ${to}`,
    window: {by, labels: periods.map((p) => calendar.periodLabel(p, by)), periods, since, timeZone: calendar.timeZone, until},
  }
}

/**
 * `work` with a live count of the records it reads on a terminal (`onRecord`), cleared when it ends, however; then
 * what the reading met that a person should know (readNotes).
 */
export async function reading<T extends {read: Pick<Read, 'duplicates' | 'malformed'>}>(
  io: IOStreams,
  what: string,
  work: (onRecord: (n: number) => void) => Promise<T>,
): Promise<T> {
  const spinner = new Spinner(io)
  let result: T
  try {
    result = await work((n) => {
      if (n === 1) spinner.start(`Reading ${what}…`)
      else if (n % 500 === 0) spinner.update(`Reading ${what}: ${formatCount(n)} so far…`)
    })
  } finally {
    spinner.stop()
  }
  readNotes(io, result.read, what)
  return result
}

/** What the reading met that a person should know: records met twice, records that did not hold together. */
function readNotes(io: IOStreams, read: Pick<Read, 'duplicates' | 'malformed'>, what: string): void {
  if (read.malformed > 0)
    io.warn(
      `${formatCount(read.malformed)} ${what} from the service did not hold together (an amount, date or item that is not one) and were not counted.`,
    )
  if (read.duplicates > 0)
    io.info(`${formatCount(read.duplicates)} ${what} came twice while pages were read (new ones arrived) and were counted once.`)
}

/** The heading of a report: what was counted, over the window as asked, by what period, in which zone. */
export function heading(what: string, span: string, zone: string, by?: Granularity): string {
  return `${what} ${span}${by ? `, by ${by}` : ''} (${zone}).`
}

/** The chart of one series on a terminal, fit to its width, the bars coloured where colour is on. */
export function chartLines(io: IOStreams, bars: readonly Bar[]): string[] {
  return barChart(bars, io.width(), (bar) => (io.color ? io.chalk.cyan(bar) : bar))
}
