/**
 * What `orders stats` and `customers stats` share above their services: the window flags (--since, --until, --by,
 * --utc) made into a StatsWindow (exit 2 for one that is not), a live count while pages are read, and the human
 * rendering: a summary line, then a bar chart of the periods on a terminal, tab-separated rows on a pipe.
 */
import {Flags} from '@oclif/core'

import {GRANULARITIES, type Granularity, localTimeZone, parseMoment} from '../domain/periods.js'
import {formatCount} from '../domain/text.js'
import {UsageError} from '../errors.js'
import {type Bar, barChart} from '../io/chart.js'
import {Spinner} from '../io/spinner.js'
import type {IOStreams} from '../io/streams.js'
import type {StatsWindow} from '../services/stats.js'

export const statsFlags = {
  by: Flags.option({
    description: 'The period of each bar and row (default: day up to 62 days, week up to a year, else month).',
    options: GRANULARITIES,
  })(),
  since: Flags.string({default: '30d', description: 'From: a span back from now, today included (24h, 7d, 12w, 6mo), or a date (2026-11-01).'}),
  until: Flags.string({description: 'To (default: now): a date (its whole day) or a date-time.'}),
  utc: Flags.boolean({description: 'Count periods in UTC instead of the local time zone.'}),
}

const DAY = 86_400_000

/** The window the flags say, in the local time zone (or UTC); exit 2 naming the flag for a value it cannot read. */
export function windowOf(flags: {since: string; until?: string; by?: Granularity; utc: boolean}, now: number): StatsWindow {
  const timeZone = localTimeZone(flags.utc)
  const moment = (name: string, text: string) => {
    const ms = parseMoment(text, now, timeZone)
    if (ms === undefined)
      throw new UsageError(`--${name} must be a span (24h, 7d, 12w, 6mo), a date (2026-11-01) or a date-time (got ${JSON.stringify(text)}).`)
    return ms
  }
  const since = moment('since', flags.since)
  // A date as --until means its whole day.
  const until = flags.until === undefined ? now : moment('until', flags.until) + (/^\d{4}-\d{2}-\d{2}$/.test(flags.until) ? DAY - 1 : 0)
  if (until < since) throw new UsageError(`--until is before --since: nothing to count.`)
  const days = (until - since) / DAY
  const by = flags.by ?? (days <= 62 ? 'day' : days <= 366 ? 'week' : 'month')
  if (by === 'hour' && days > 31) throw new UsageError('--by hour covers at most 31 days: narrow --since, or count by day.')
  return {by, since, timeZone, until}
}

/** `work` with a live count of the records it reads on a terminal (`onRecord`), cleared when it ends, however. */
export async function reading<T>(io: IOStreams, what: string, work: (onRecord: (n: number) => void) => Promise<T>): Promise<T> {
  const spinner = new Spinner(io)
  try {
    return await work((n) => {
      if (n === 1) spinner.start(`Reading ${what}…`)
      else if (n % 500 === 0) spinner.update(`Reading ${what}: ${formatCount(n)} so far…`)
    })
  } finally {
    spinner.stop()
  }
}

/** The chart of one series on a terminal, fit to its width, the bars coloured where colour is on. */
export function chartLines(io: IOStreams, bars: readonly Bar[]): string[] {
  return barChart(bars, io.stdout.columns || 80, (bar) => (io.color ? io.chalk.cyan(bar) : bar))
}
