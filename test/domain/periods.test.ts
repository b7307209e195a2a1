/**
 * Periods as people count them in a time zone (src/domain/periods.ts), named cases: the clock changes of New York,
 * London, Berlin and Sydney, Lord Howe's 30-minute change, Kathmandu's +05:45, Samoa's skipped day, a year's end, and
 * --since/--until read strictly. The space around them is walked in periods.property.test.ts.
 */
import {Temporal} from 'temporal-polyfill'
import {describe, expect, it} from 'vitest'

import {chooseTimeZone, type Granularity, MomentError, ZoneCalendar} from '../../src/domain/periods.js'
import {defaultGranularity} from '../../src/domain/window-grammar.js'

const at = (iso: string) => Date.parse(iso)
const iso = (ms: number) => new Date(ms).toISOString()
const cal = (tz: string) => ZoneCalendar.with(Temporal, tz)

/** The labels of the periods of [--since, --until) as the commands read them. */
function labels(tz: string, since: string, until: string, by: Granularity): string[] {
  const c = cal(tz)
  return c.periodsBetween(c.since(since, 0), c.until(until), by).map((p) => c.periodLabel(p, by))
}

describe('periods across clock changes', () => {
  it('New York, autumn: the 25-hour day has 25 hours, its 01:00 twice, told apart by the offset (and the window ends)', () => {
    const hours = labels('America/New_York', '2026-10-31', '2026-11-01', 'hour')
    expect(hours).toHaveLength(24 + 25)
    expect(hours.slice(24, 28)).toEqual(['2026-11-01 00:00', '2026-11-01 01:00-04:00', '2026-11-01 01:00-05:00', '2026-11-01 02:00'])
    expect(hours.at(-1)).toBe('2026-11-01 23:00')
    // The last period ends where the window ends: the start of 2 November in New York.
    expect(iso(cal('America/New_York').until('2026-11-01'))).toBe('2026-11-02T05:00:00.000Z')
  })

  it('New York, spring: the 23-hour day has 23 hours, no 02:00, and nothing past the window', () => {
    const hours = labels('America/New_York', '2026-03-07', '2026-03-08', 'hour')
    expect(hours).toHaveLength(24 + 23)
    expect(hours).not.toContain('2026-03-08 02:00')
    expect(hours.at(-1)).toBe('2026-03-08 23:00')
  })

  it('London, autumn: 49 hours over 24 and 25 October, the repeated 01:00 and the last 23:00 included', () => {
    const hours = labels('Europe/London', '2026-10-24', '2026-10-25', 'hour')
    expect(hours).toHaveLength(49)
    expect(hours.filter((h) => h.startsWith('2026-10-25 01:00'))).toEqual(['2026-10-25 01:00+01:00', '2026-10-25 01:00+00:00'])
    expect(hours.at(-1)).toBe('2026-10-25 23:00')
  })

  it('a day starts at local midnight across a change (Berlin, 29 March 2026, 23 hours long)', () => {
    const c = cal('Europe/Berlin')
    expect(iso(c.periodStart(at('2026-03-29T12:00:00Z'), 'day'))).toBe('2026-03-28T23:00:00.000Z')
    const next = c.nextPeriod(at('2026-03-28T23:00:00Z'), 'day')
    expect(iso(next)).toBe('2026-03-29T22:00:00.000Z')
    expect(c.periodLabel(next, 'day')).toBe('2026-03-30')
  })

  it('Sydney: October, with its clock change on the first Sunday, is 31 days (the stats hang of issue 47)', () => {
    expect(labels('Australia/Sydney', '2026-10-01', '2026-10-31', 'day')).toHaveLength(31)
    expect(labels('Australia/Sydney', '2026-10-03', '2026-10-05', 'hour')).toHaveLength(24 + 23 + 24)
  })

  it('Lord Howe, a 30-minute change: the half hour at the new offset is a period of its own, labelled with it', () => {
    const hours = labels('Australia/Lord_Howe', '2026-04-05', '2026-04-05', 'hour')
    expect(hours.slice(0, 4)).toEqual(['2026-04-05 00:00', '2026-04-05 01:00', '2026-04-05 01:30+10:30', '2026-04-05 02:00'])
    expect(hours).toHaveLength(25)
    const spring = labels('Australia/Lord_Howe', '2026-10-04', '2026-10-04', 'hour')
    expect(spring.slice(1, 4)).toEqual(['2026-10-04 01:00', '2026-10-04 02:30', '2026-10-04 03:00'])
  })

  it('Kathmandu (+05:45): hours start at a quarter past the UTC hour; a half-hour zone (Kolkata) at half past', () => {
    const c = cal('Asia/Kathmandu')
    expect(iso(c.periodStart(at('2026-11-27T10:20:00Z'), 'hour'))).toBe('2026-11-27T10:15:00.000Z')
    expect(iso(c.periodStart(at('2026-11-27T10:00:00Z'), 'day'))).toBe('2026-11-26T18:15:00.000Z')
    expect(iso(cal('Asia/Kolkata').periodStart(at('2026-11-27T10:45:00Z'), 'hour'))).toBe('2026-11-27T10:30:00.000Z')
  })

  it('Samoa skipped 30 December 2011: the days run 29, 31', () => {
    expect(labels('Pacific/Apia', '2011-12-28', '2012-01-01', 'day')).toEqual(['2011-12-28', '2011-12-29', '2011-12-31', '2012-01-01'])
    expect(() => cal('Pacific/Apia').since('2011-12-30T12:00', 0)).toThrow(MomentError)
  })

  it('weeks from Monday and calendar months across a year end', () => {
    expect(labels('Europe/Paris', '2026-12-24', '2027-01-12', 'week')).toEqual(['2026-12-21', '2026-12-28', '2027-01-04', '2027-01-11'])
    expect(labels('America/Santiago', '2026-11-15', '2027-02-03', 'month')).toEqual(['2026-11', '2026-12', '2027-01', '2027-02'])
  })
})

describe('--since and --until, strictly', () => {
  const now = at('2026-11-27T15:00:00Z')
  const c = cal('UTC')

  it('spans count the current unit and the N−1 before it; 0 is refused', () => {
    expect(iso(c.since('7d', now))).toBe('2026-11-21T00:00:00.000Z')
    expect(iso(c.since('24h', now))).toBe('2026-11-26T16:00:00.000Z')
    // Friday 27 November: this week began on Monday the 23rd, the one before on the 16th.
    expect(iso(c.since('2w', now))).toBe('2026-11-16T00:00:00.000Z')
    expect(iso(c.since('3mo', now))).toBe('2026-09-01T00:00:00.000Z')
    for (const zero of ['0d', '0h', '0w', '0mo']) expect(() => c.since(zero, now), zero).toThrow(/at least one/)
    expect(() => c.since('99999999d', now)).toThrow(/before the year 1/)
  })

  it('one grammar, seconds to months: 30m and 90s count the current minute or second too; unaligned, a span is exactly that long', () => {
    const odd = now + 17 * 60_000 + 42_500 // 15:17:42.5
    expect(iso(c.since('30m', odd))).toBe('2026-11-27T14:48:00.000Z')
    expect(iso(c.since('90s', odd))).toBe('2026-11-27T15:16:13.000Z')
    for (const zero of ['0s', '0m']) expect(() => c.since(zero, now), zero).toThrow(/at least one/)
    // The inbox does not count by the calendar: back exactly that long, a month the same wall time a calendar month before.
    expect(iso(c.since('30m', odd, false))).toBe('2026-11-27T14:47:42.500Z')
    expect(iso(c.since('1d', now, false))).toBe('2026-11-26T15:00:00.000Z')
    expect(iso(cal('America/New_York').since('1mo', at('2026-11-15T12:00:00Z'), false))).toBe('2026-10-15T11:00:00.000Z')
    expect(iso(c.since('2026-11-01', now, false))).toBe('2026-11-01T00:00:00.000Z')
    expect(() => c.since('1y', now)).toThrow(MomentError)
  })

  it('a date is its day; --until DATE ends where the next day starts; a date that does not exist is refused, naming it', () => {
    expect(iso(c.since('2026-11-01', now))).toBe('2026-11-01T00:00:00.000Z')
    expect(iso(c.until('2026-11-01'))).toBe('2026-11-02T00:00:00.000Z')
    expect(iso(c.since('0001-01-01', now))).toBe('0001-01-01T00:00:00.000Z')
    for (const bad of ['2026-02-30', '2026-13-01', '2026-11-31', '0000-01-01', '2025-02-29'])
      expect(() => c.since(bad, now), bad).toThrow(new MomentError(`${bad} is not a date`))
    expect(() => c.until('30d')).toThrow(/a span is for --since/)
    for (const bad of ['7', 'yesterday', '7x', '2026-13-45x', '2026-11-01T25:00']) expect(() => c.since(bad, now), bad).toThrow(MomentError)
  })

  it('a date-time with an offset is that instant; without one it is read in the zone (so --utc applies); a skipped one is refused', () => {
    expect(c.since('2026-11-01T08:00:00Z', now)).toBe(at('2026-11-01T08:00:00Z'))
    expect(cal('America/New_York').since('2026-11-27T10:00+01:00', now)).toBe(at('2026-11-27T09:00:00Z'))
    expect(cal('America/New_York').since('2026-11-27T10:00', now)).toBe(at('2026-11-27T15:00:00Z'))
    expect(c.since('2026-11-27T10:00', now)).toBe(at('2026-11-27T10:00:00Z'))
    // The repeated 01:30 is the first one.
    expect(cal('America/New_York').since('2026-11-01T01:30', now)).toBe(at('2026-11-01T05:30:00Z'))
    expect(() => cal('America/New_York').since('2026-03-08T02:30', now)).toThrow(/does not exist in America\/New_York/)
  })

  it('the zone: TZ as given when known (Asia/Kolkata stays so), UTC when empty or unknown, with the reason', () => {
    expect(chooseTimeZone(Temporal, {tz: 'Asia/Kolkata', utc: false})).toEqual({timeZone: 'Asia/Kolkata'})
    expect(chooseTimeZone(Temporal, {tz: ':Europe/Paris', utc: false})).toEqual({timeZone: 'Europe/Paris'})
    expect(chooseTimeZone(Temporal, {tz: '', utc: false})).toEqual({timeZone: 'UTC', unknown: ''})
    expect(chooseTimeZone(Temporal, {tz: 'Mars/Olympus', utc: false})).toEqual({timeZone: 'UTC', unknown: 'Mars/Olympus'})
    expect(chooseTimeZone(Temporal, {system: 'Etc/Unknown', utc: false})).toEqual({timeZone: 'UTC', unknown: 'Etc/Unknown'})
    expect(chooseTimeZone(Temporal, {tz: 'Asia/Kolkata', utc: true})).toEqual({timeZone: 'UTC'})
  })

  it('the default period follows the window: hours up to two days (49 hours across a change), then days, weeks, months', () => {
    const h = 3_600_000
    expect(defaultGranularity(0, 24 * h)).toBe('hour')
    expect(defaultGranularity(0, 49 * h)).toBe('hour')
    expect(defaultGranularity(0, 7 * 24 * h)).toBe('day')
    expect(defaultGranularity(0, 84 * 24 * h)).toBe('week')
    expect(defaultGranularity(0, 400 * 24 * h)).toBe('month')
  })
})
