/** Periods as people count them in a time zone (src/domain/periods.ts): days across DST, half-hour zones, weeks from Monday. */
import {describe, expect, it} from 'vitest'

import {nextPeriod, parseMoment, periodLabel, periodStart, periodsBetween} from '../../src/domain/periods.js'

const at = (iso: string) => Date.parse(iso)

describe('periods', () => {
  it('a day starts at local midnight, also across a change of daylight saving time (Berlin, 29 March 2026)', () => {
    const tz = 'Europe/Berlin'
    expect(new Date(periodStart(at('2026-03-29T12:00:00Z'), 'day', tz)).toISOString()).toBe('2026-03-28T23:00:00.000Z')
    const next = nextPeriod(at('2026-03-28T23:00:00Z'), 'day', tz)
    // That day has 23 hours.
    expect(new Date(next).toISOString()).toBe('2026-03-29T22:00:00.000Z')
    expect(periodLabel(next, 'day', tz)).toBe('2026-03-30')
  })

  it('a half-hour zone (Kolkata, +05:30): the day starts at 18:30 UTC the day before', () => {
    expect(new Date(periodStart(at('2026-11-27T10:00:00Z'), 'day', 'Asia/Kolkata')).toISOString()).toBe('2026-11-26T18:30:00.000Z')
    expect(new Date(periodStart(at('2026-11-27T10:45:00Z'), 'hour', 'Asia/Kolkata')).toISOString()).toBe('2026-11-27T10:30:00.000Z')
  })

  it('a week starts on Monday; a month on the 1st; hours in UTC', () => {
    // Friday 27 November 2026: its week began on Monday the 23rd.
    expect(periodLabel(periodStart(at('2026-11-27T15:00:00Z'), 'week', 'UTC'), 'week', 'UTC')).toBe('2026-11-23')
    expect(periodLabel(periodStart(at('2026-11-27T15:00:00Z'), 'month', 'UTC'), 'month', 'UTC')).toBe('2026-11')
    expect(periodLabel(periodStart(at('2026-11-27T15:42:00Z'), 'hour', 'UTC'), 'hour', 'UTC')).toBe('2026-11-27 15:00')
    expect(periodsBetween(at('2026-11-01T00:00:00Z'), at('2027-01-15T00:00:00Z'), 'month', 'UTC').map((p) => periodLabel(p, 'month', 'UTC'))).toEqual(
      ['2026-11', '2026-12', '2027-01'],
    )
  })

  it('--since and --until: spans back from now (today included), dates, date-times; anything else is undefined', () => {
    const now = at('2026-11-27T15:00:00Z')
    expect(new Date(parseMoment('7d', now, 'UTC')!).toISOString()).toBe('2026-11-21T00:00:00.000Z')
    expect(new Date(parseMoment('24h', now, 'UTC')!).toISOString()).toBe('2026-11-26T15:00:00.000Z')
    expect(new Date(parseMoment('2w', now, 'UTC')!).toISOString()).toBe('2026-11-14T00:00:00.000Z')
    expect(new Date(parseMoment('3mo', now, 'UTC')!).toISOString()).toBe('2026-09-01T00:00:00.000Z')
    expect(new Date(parseMoment('2026-11-01', now, 'UTC')!).toISOString()).toBe('2026-11-01T00:00:00.000Z')
    expect(parseMoment('2026-11-01T08:00:00Z', now, 'UTC')).toBe(at('2026-11-01T08:00:00Z'))
    for (const bad of ['7', 'yesterday', '7x', '2026-13-45x']) expect(parseMoment(bad, now, 'UTC'), bad).toBeUndefined()
  })
})
