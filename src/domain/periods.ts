/**
 * Periods of time as people count them in a time zone (an hour, a day, a week from Monday, a calendar month), for the
 * account's figures over time (`orders stats`, `customers stats`). Calendar arithmetic is done on the wall-clock
 * date and turned into an instant in the zone, so that a day is a day across a change of daylight saving time.
 */
export const GRANULARITIES = ['hour', 'day', 'week', 'month'] as const
export type Granularity = (typeof GRANULARITIES)[number]

interface Wall {
  year: number
  month: number
  day: number
  hour: number
  minute?: number
}

const formats = new Map<string, Intl.DateTimeFormat>()

/** The wall-clock date and hour of an instant in `timeZone`. */
function wallOf(ms: number, timeZone: string): Wall {
  let format = formats.get(timeZone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      day: 'numeric',
      hour: 'numeric',
      hourCycle: 'h23',
      minute: 'numeric',
      month: 'numeric',
      timeZone,
      year: 'numeric',
    })
    formats.set(timeZone, format)
  }
  const parts = Object.fromEntries(format.formatToParts(ms).map((p) => [p.type, p.value]))
  return {day: Number(parts.day), hour: Number(parts.hour) % 24, minute: Number(parts.minute), month: Number(parts.month), year: Number(parts.year)}
}

/** The instant at which the wall clock of `timeZone` reads this date and hour (the earlier one in a repeated hour). */
function instantOf(w: Wall, timeZone: string): number {
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour)
  // The zone's offset at an instant: its wall clock read as UTC, less the instant (to the minute: +05:30 exists).
  const offset = (ms: number) => {
    const x = wallOf(ms, timeZone)
    return Date.UTC(x.year, x.month - 1, x.day, x.hour, x.minute ?? 0) - Math.floor(ms / 60_000) * 60_000
  }
  let guess = asUtc - offset(asUtc)
  const second = asUtc - offset(guess)
  if (second !== guess) guess = Math.min(guess, second)
  return guess
}

/** A calendar date moved by `days` (normalised: the 32nd of one month is the 1st of the next). */
function addDays(w: Wall, days: number): Wall {
  const d = new Date(Date.UTC(w.year, w.month - 1, w.day + days))
  return {day: d.getUTCDate(), hour: 0, month: d.getUTCMonth() + 1, year: d.getUTCFullYear()}
}

/** The start (epoch ms) of the period of `by` holding the instant `ms`, in `timeZone`. */
export function periodStart(ms: number, by: Granularity, timeZone: string): number {
  const w = wallOf(ms, timeZone)
  switch (by) {
    case 'hour':
      return instantOf({...w, minute: 0}, timeZone)
    case 'day':
      return instantOf({...w, hour: 0}, timeZone)
    case 'week': {
      // ISO weeks start on Monday.
      const weekday = new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay()
      return instantOf(addDays(w, -((weekday + 6) % 7)), timeZone)
    }
    case 'month':
      return instantOf({day: 1, hour: 0, month: w.month, year: w.year}, timeZone)
  }
}

/** The start of the period after the one starting at `start`. */
export function nextPeriod(start: number, by: Granularity, timeZone: string): number {
  if (by === 'hour') return periodStart(start + 3_600_000, by, timeZone)
  const w = wallOf(start, timeZone)
  if (by === 'month')
    return instantOf({day: 1, hour: 0, month: w.month === 12 ? 1 : w.month + 1, year: w.month === 12 ? w.year + 1 : w.year}, timeZone)
  return instantOf(addDays({...w, hour: 0}, by === 'week' ? 7 : 1), timeZone)
}

/** Every period start from the one holding `from` to the one holding `to` (inclusive), oldest first. */
export function periodsBetween(from: number, to: number, by: Granularity, timeZone: string): number[] {
  const out: number[] = []
  for (let p = periodStart(from, by, timeZone); p <= to; p = nextPeriod(p, by, timeZone)) out.push(p)
  return out
}

const pad = (n: number) => String(n).padStart(2, '0')

/** A period as people name it: `2026-11-27 14:00`, `2026-11-27`, `2026-11-23` (its Monday), `2026-11`. */
export function periodLabel(start: number, by: Granularity, timeZone: string): string {
  const w = wallOf(start, timeZone)
  const date = `${w.year}-${pad(w.month)}-${pad(w.day)}`
  if (by === 'hour') return `${date} ${pad(w.hour)}:00`
  if (by === 'month') return `${w.year}-${pad(w.month)}`
  return date
}

/**
 * `--since` and `--until`: a span back from now (`24h`, `7d`, `12w`, `6mo`), a date (`2026-11-01`, the start of
 * that day in `timeZone`) or an ISO date-time. Undefined when it is none of these.
 */
export function parseMoment(text: string, now: number, timeZone: string): number | undefined {
  const span = /^(\d+)(h|d|w|mo)$/.exec(text.trim())
  if (span) {
    const n = Number(span[1])
    if (span[2] === 'h') return now - n * 3_600_000
    const today = wallOf(now, timeZone)
    if (span[2] === 'mo') {
      const months = today.year * 12 + (today.month - 1) - (n - 1)
      return instantOf({day: 1, hour: 0, month: (months % 12) + 1, year: Math.floor(months / 12)}, timeZone)
    }
    return instantOf(addDays({...today, hour: 0}, -(n * (span[2] === 'w' ? 7 : 1) - 1)), timeZone)
  }
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim())
  if (date) return instantOf({day: Number(date[3]), hour: 0, month: Number(date[2]), year: Number(date[1])}, timeZone)
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(text.trim()) ? Date.parse(text.trim()) : Number.NaN
  return Number.isNaN(ms) ? undefined : ms
}

/** The time zone of this machine (or UTC with --utc, or when it cannot be told). */
export function localTimeZone(utc: boolean): string {
  return utc ? 'UTC' : (Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC')
}
