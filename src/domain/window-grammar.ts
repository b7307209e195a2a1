/**
 * The one grammar of a window's ends, for every `--since`/`--until` and every MCP `since`/`until`: a span back from now
 * (`30s`, `10m`, `24h`, `7d`, `12w`, `6mo`: seconds to months, at least one), a date (`2026-11-01`) or a date-time
 * (`2026-11-01T08:00`, with an offset or in the zone in effect). What a span means is the command's: one that counts by
 * the calendar (the stats) takes the current second, minute, hour, day, week or month and the N−1 before it; one that
 * does not (the webhook inbox) goes back exactly that long (a month: the same wall time N calendar months before).
 * No Temporal here: src/domain/periods.ts reads the values (ZoneCalendar).
 */
import type {Granularity} from './periods.js'

/** Thrown for a --since/--until value that is not a moment; the caller names the flag. */
export class MomentError extends Error {
  /** The text has none of the shapes a moment takes (as opposed to a shape whose values do not exist). */
  static readonly UNREADABLE = 'unreadable'
}

export type SpanUnit = 's' | 'm' | 'h' | 'd' | 'w' | 'mo'

export const SPAN = /^(\d+)(s|m|h|d|w|mo)$/
export const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
export const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/

/** How the forms read in help and messages. */
export const SINCE_FORMS = 'a span back from now (30s, 10m, 24h, 7d, 12w, 6mo), a date (2026-11-01) or a date-time (2026-11-01T08:00)'
export const UNTIL_FORMS = 'a date (2026-11-30) or a date-time (2026-11-30T18:00)'

/** Where a window starts when nothing says: on the CLI and in MCP alike. */
export const DEFAULT_SINCE = '30d'

export const UNIT_NAMES: Record<SpanUnit, string> = {d: 'day', h: 'hour', m: 'minute', mo: 'month', s: 'second', w: 'week'}

/** Milliseconds of the units that have a fixed length (a month has none). */
export const UNIT_MS: Record<Exclude<SpanUnit, 'mo'>, number> = {d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, w: 604_800_000}

/** The default period for a window: hours up to two days (49 hours across a change of the clocks), then days, weeks, months. */
export function defaultGranularity(since: number, until: number): Granularity {
  const span = until - since
  if (span <= 49 * UNIT_MS.h) return 'hour'
  if (span <= 62 * UNIT_MS.d) return 'day'
  if (span <= 366 * UNIT_MS.d) return 'week'
  return 'month'
}

/** A length of time written as a span of fixed length (`90s`, `12h`, `7d`, `4w`; at least 1), in ms; undefined otherwise. */
export function durationMs(text: string): number | undefined {
  const m = SPAN.exec(text.trim().toLowerCase())
  if (!m || m[2] === 'mo' || Number(m[1]) < 1) return undefined
  return Number(m[1]) * UNIT_MS[m[2] as Exclude<SpanUnit, 'mo'>]
}
