/**
 * Periods of time as people count them in a time zone (an hour, a calendar day, a week from Monday, a calendar month),
 * for the account's figures over time (`orders stats`, `customers stats`, `products top`). Calendar arithmetic is the
 * Temporal API's (temporal-polyfill until Node ships it), never done by hand: a day is `startOfDay()` of a calendar
 * date, whatever its length; a month is the calendar's.
 *
 * An hour is the part of a wall-clock hour spent at one UTC offset. Across a change of the clocks that makes every
 * period a real, consecutive stretch of time: a 25-hour day has 25 hourly periods (its repeated 01:00 twice, the two
 * labelled with their offsets), a 23-hour day 23, and Lord Howe's 30-minute change gives a half-hour period (01:30 at
 * the new offset) rather than an hour that overlaps the one before it.
 *
 * The periods of a window are a chain: each starts where the one before it ends (`nextPeriod`), and `periodStart`
 * finds the link that holds an instant, so every instant lies in exactly one period
 * (test/domain/periods.property.test.ts walks every zone the system knows).
 *
 * Instants are epoch milliseconds, as everywhere else in the CLI. Temporal is loaded on first use (`loadTemporal`),
 * by the commands that count only.
 */
import type {Temporal as TemporalNS} from 'temporal-polyfill'
import {DATE, DATE_TIME, MomentError, SPAN, type SpanUnit, UNIT_MS, UNIT_NAMES} from './window-grammar.js'

export const GRANULARITIES = ['hour', 'day', 'week', 'month'] as const
export type Granularity = (typeof GRANULARITIES)[number]

type Api = typeof TemporalNS
type PlainDate = TemporalNS.PlainDate
type ZonedDateTime = TemporalNS.ZonedDateTime

const HOUR = 3_600_000

/** Temporal itself where the runtime has it, else the polyfill (loaded once, on first use). */
let api: Promise<Api> | undefined
export function loadTemporal(): Promise<Api> {
  const native = (globalThis as {Temporal?: Api}).Temporal
  if (native) return Promise.resolve(native)
  return (api ??= import('temporal-polyfill').then((m) => m.Temporal))
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')
const dateText = (d: {year: number; month: number; day: number}) => `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`

/** Whether `timeZone` names a zone the system knows (IANA names and offsets such as +05:30). */
function isTimeZone(T: Api, timeZone: string): boolean {
  if (timeZone === '') return false
  try {
    T.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(timeZone)
    return true
  } catch {
    return false
  }
}

export {MomentError}

export class ZoneCalendar {
  private constructor(
    private readonly T: Api,
    readonly timeZone: string,
  ) {}

  /** The calendar of `timeZone` (which must be one `isTimeZone` accepts), with Temporal from `loadTemporal`. */
  static with(T: Api, timeZone: string): ZoneCalendar {
    if (!isTimeZone(T, timeZone)) throw new RangeError(`Unknown time zone: ${timeZone}`)
    return new ZoneCalendar(T, timeZone)
  }

  private zoned(ms: number): ZonedDateTime {
    return this.T.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(this.timeZone)
  }

  /** The first instant of a calendar date in the zone (after the gap, where midnight is skipped). */
  private startOf(date: PlainDate): number {
    return date.toZonedDateTime(this.timeZone).epochMilliseconds
  }

  /** The calendar date naming the day, week (its Monday) or month (its 1st) that holds `date`. */
  private nominal(date: PlainDate, by: Exclude<Granularity, 'hour'>): PlainDate {
    if (by === 'week') return date.subtract({days: date.dayOfWeek - 1})
    if (by === 'month') return date.with({day: 1})
    return date
  }

  private step(date: PlainDate, by: Exclude<Granularity, 'hour'>, n = 1): PlainDate {
    return date.add(by === 'day' ? {days: n} : by === 'week' ? {weeks: n} : {months: n})
  }

  /**
   * The stretch of time at one offset that holds an instant: from the last change of offset at or before it to the
   * first after it (±Infinity where there is none). Consecutive hours fall in the same stretch, so the time zone data
   * is asked once per change, not once per hour.
   */
  private stretch = {from: Number.NaN, to: Number.NaN}
  private stretchOf(ms: number): {from: number; to: number} {
    if (ms >= this.stretch.from && ms < this.stretch.to) return this.stretch
    const from = this.zoned(ms + 1).getTimeZoneTransition('previous')?.epochMilliseconds ?? Number.NEGATIVE_INFINITY
    const to = this.zoned(ms).getTimeZoneTransition('next')?.epochMilliseconds ?? Number.POSITIVE_INFINITY
    return (this.stretch = {from, to})
  }

  /** How far `ms` is into its wall-clock hour (at its own offset). */
  private intoHour(z: ZonedDateTime): number {
    const wall = z.epochMilliseconds + z.offsetNanoseconds / 1e6
    return ((wall % HOUR) + HOUR) % HOUR
  }

  /** The start (epoch ms) of the period of `by` holding the instant `ms`. */
  periodStart(ms: number, by: Granularity): number {
    const z = this.zoned(ms)
    if (by === 'hour') return Math.max(ms - this.intoHour(z), this.stretchOf(ms).from)
    let date = this.nominal(z.toPlainDate(), by)
    // Where the clocks go back over midnight, a date comes again after the next one began: the instant belongs to
    // the period that began last. (And, defensively, never a start after the instant.)
    while (this.startOf(date) > ms) date = this.step(date, by, -1)
    for (let next = this.step(date, by); this.startOf(next) <= ms; next = this.step(next, by)) date = next
    return this.startOf(date)
  }

  /** The start of the period after the one starting at `start` (always later than `start`). */
  nextPeriod(start: number, by: Granularity): number {
    const z = this.zoned(start)
    if (by === 'hour') {
      return Math.min(start - this.intoHour(z) + HOUR, this.stretchOf(start).to)
    }
    let next = this.step(this.nominal(z.toPlainDate(), by), by)
    // A skipped calendar day (Samoa, 2011-12-30) starts where the day after it does: go on to a later start.
    while (this.startOf(next) <= start) next = this.step(next, by)
    return this.startOf(next)
  }

  /**
   * The starts of the periods that overlap the window [since, until), oldest first; the first may begin before
   * `since`. Refused (a RangeError) past `max` periods, before building them all.
   */
  periodsBetween(since: number, until: number, by: Granularity, max = Number.POSITIVE_INFINITY): number[] {
    const out: number[] = []
    for (let p = this.periodStart(since, by); p < until; p = this.nextPeriod(p, by)) {
      if (out.length >= max) throw new RangeError(`more than ${max} periods`)
      out.push(p)
    }
    return out
  }

  /**
   * A period as people name it: `2026-11-27 14:00`, `2026-11-27`, `2026-11-23` (its Monday), `2026-11`. An hour whose
   * wall-clock time comes twice (the clocks went back) carries its offset: `2026-11-01 01:00-04:00`.
   */
  periodLabel(start: number, by: Granularity): string {
    const z = this.zoned(start)
    if (by === 'month') return `${pad(z.year, 4)}-${pad(z.month)}`
    if (by === 'week') return dateText(this.nominal(z.toPlainDate(), 'week'))
    if (by === 'day') return dateText(z)
    const text = `${dateText(z)} ${pad(z.hour)}:${pad(z.minute)}`
    const wall = z.toPlainDateTime()
    const earlier = wall.toZonedDateTime(this.timeZone, {disambiguation: 'earlier'}).epochMilliseconds
    const later = wall.toZonedDateTime(this.timeZone, {disambiguation: 'later'}).epochMilliseconds
    return earlier === later ? text : `${text}${z.offset}`
  }

  /** An instant as a person reads it in the zone: `2026-11-01` at the start of a day, else `2026-11-01 14:05`. */
  describe(ms: number): string {
    const z = this.zoned(ms)
    if (this.startOf(z.toPlainDate()) === ms) return dateText(z)
    return `${dateText(z)} ${pad(z.hour)}:${pad(z.minute)}`
  }

  /** The window's end as a person reads it: an exclusive end at the start of a day is the day before, inclusive. */
  describeEnd(until: number): string {
    const z = this.zoned(until)
    const date = z.toPlainDate()
    if (this.startOf(date) === until) return dateText(date.subtract({days: 1}))
    return this.describe(until)
  }

  /**
   * A calendar date typed by a person, strictly: `2026-02-30` and `2026-13-01` do not exist (MomentError), nor does a
   * year 0000.
   */
  private date(year: string, month: string, day: string): PlainDate {
    try {
      if (Number(year) < 1) throw new RangeError('year 0')
      return this.T.PlainDate.from({day: Number(day), month: Number(month), year: Number(year)}, {overflow: 'reject'})
    } catch {
      throw new MomentError(`${year}-${month}-${day} is not a date`)
    }
  }

  /**
   * `--since` (domain/window-grammar.ts): a span back from now. `aligned` (a command that counts by the calendar): it
   * includes the current unit (`24h`: this hour and the 23 before it; `7d`: today and the 6 days before; `12w`: this
   * week from Monday and the 11 before; `6mo`: this month and the 5 before); else exactly that long back. A date is the
   * start of that day in the zone, a date-time with an offset that instant, without one in the zone.
   */
  since(text: string, now: number, aligned = true): number {
    const span = SPAN.exec(text)
    if (span) return aligned ? this.spanBack(Number(span[1]), span[2] as SpanUnit, now) : this.exactlyBack(Number(span[1]), span[2] as SpanUnit, now)
    return this.moment(text, 'start')
  }

  /** N units back from now exactly: a fixed length, or N calendar months at the same wall time in the zone. */
  private exactlyBack(n: number, unit: SpanUnit, now: number): number {
    if (n < 1) throw new MomentError(`a span counts at least one ${UNIT_NAMES[unit]}`)
    const back = unit === 'mo' ? undefined : now - n * UNIT_MS[unit]
    try {
      const ms = back ?? this.zoned(now).subtract({months: n}).epochMilliseconds
      if (!Number.isFinite(ms) || ms < MIN_MS) throw new RangeError('too far')
      return ms
    } catch {
      throw new MomentError(`${n}${unit} reaches back before the year 1`)
    }
  }

  /** `--until`: a date (its whole day: the window ends where the next day starts) or a date-time. */
  until(text: string): number {
    if (SPAN.test(text)) throw new MomentError('a span is for --since; --until takes a date or a date-time')
    return this.moment(text, 'end')
  }

  private spanBack(n: number, unit: SpanUnit, now: number): number {
    if (n < 1) throw new MomentError(`a span counts at least one ${UNIT_NAMES[unit]} (1${unit} is the current one)`)
    try {
      if (unit === 's' || unit === 'm') {
        // n−1 before the current second or minute, from its start in the zone.
        const back = now - (n - 1) * UNIT_MS[unit]
        if (!Number.isFinite(back) || back < MIN_MS) throw new RangeError('too far')
        return this.zoned(back).round({roundingMode: 'floor', smallestUnit: unit === 's' ? 'second' : 'minute'}).epochMilliseconds
      }
      if (unit === 'h') {
        // n−1 real hours before the current one, then to the start of the period that holds that instant.
        const back = now - (n - 1) * HOUR
        if (!Number.isFinite(back) || back < MIN_MS) throw new RangeError('too far')
        return this.periodStart(back, 'hour')
      }
      const by = unit === 'd' ? 'day' : unit === 'w' ? 'week' : 'month'
      const first = this.step(this.nominal(this.zoned(now).toPlainDate(), by), by, -(n - 1))
      if (first.year < 1) throw new RangeError('too far')
      return this.startOf(first)
    } catch (error) {
      if (error instanceof MomentError) throw error
      throw new MomentError(`${n}${unit} reaches back before the year 1`)
    }
  }

  private moment(text: string, edge: 'start' | 'end'): number {
    const d = DATE.exec(text)
    if (d) {
      const date = this.date(d[1], d[2], d[3])
      return this.startOf(edge === 'start' ? date : date.add({days: 1}))
    }
    const t = DATE_TIME.exec(text)
    if (!t) throw new MomentError(MomentError.UNREADABLE)
    const [, year, month, day, hour, minute, second = '0', fraction = '', offset] = t
    const date = this.date(year, month, day)
    let wall: TemporalNS.PlainDateTime
    try {
      // PlainDateTime.from with 'reject': toPlainDateTime would quietly make 25:00 into 23:00.
      wall = this.T.PlainDateTime.from(
        {day: date.day, hour: Number(hour), minute: Number(minute), month: date.month, second: Number(second), year: date.year},
        {overflow: 'reject'},
      )
    } catch {
      throw new MomentError(`${hour}:${minute}${t[6] === undefined ? '' : `:${second}`} is not a time of day`)
    }
    const ms = Number(fraction.padEnd(3, '0').slice(0, 3) || '0')
    if (offset) {
      const sign = offset[0] === '-' ? -1 : 1
      const digits = offset.replace(/[^0-9]/g, '')
      const offsetMs = /^z$/i.test(offset) ? 0 : sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0')) * 60_000
      if (Math.abs(offsetMs) >= 24 * HOUR) throw new MomentError(`${offset} is not a UTC offset`)
      return wall.toZonedDateTime('UTC').epochMilliseconds + ms - offsetMs
    }
    // A wall-clock time in the zone: one the clocks skip does not exist there; one they pass twice is the first.
    const earlier = wall.toZonedDateTime(this.timeZone, {disambiguation: 'earlier'})
    if (!earlier.toPlainDateTime().equals(wall))
      throw new MomentError(`${dateText(wall)} ${hour}:${minute} does not exist in ${this.timeZone} (the clocks skip it)`)
    return earlier.epochMilliseconds + ms
  }
}

/** The earliest instant a window may start at: the first day of the year 1, UTC. */
const MIN_MS = -62_135_596_800_000

/**
 * The time zone to count in: UTC with --utc; else `TZ` as given when it names a zone the system knows (so
 * `Asia/Kolkata` stays that, where Intl would say `Asia/Calcutta`); else the system's own zone; else UTC, with the
 * reason (an empty or unknown TZ) for a warning.
 */
export function chooseTimeZone(T: Api, o: {utc: boolean; tz?: string; system?: string}): {timeZone: string; unknown?: string} {
  if (o.utc) return {timeZone: 'UTC'}
  if (o.tz !== undefined) {
    const tz = o.tz.startsWith(':') ? o.tz.slice(1) : o.tz
    if (isTimeZone(T, tz)) return {timeZone: tz}
    // TZ set but not a zone: libc counts such a TZ as UTC, and so do we, saying so.
    return {timeZone: 'UTC', unknown: o.tz}
  }
  if (o.system && isTimeZone(T, o.system)) return {timeZone: o.system}
  return {timeZone: 'UTC', unknown: o.system ?? ''}
}
