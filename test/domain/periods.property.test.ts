/**
 * The periods of src/domain/periods.ts over the space people use: every IANA zone the system lists, windows from 1970
 * to 2100 (half of them placed over one of the zone's clock changes, where the arithmetic goes wrong), each
 * granularity. For each window: the periods are strictly increasing and contiguous (each ends where the next starts),
 * they cover the window and no more, every instant lies in exactly one of them (periodStart agrees with the chain,
 * at each edge and at random instants), their labels tell them apart; and records bucketed by them add up to the
 * totals. The named cases are in periods.test.ts.
 */
import assert from 'node:assert/strict'

import fc from 'fast-check'
import {Temporal} from 'temporal-polyfill'
import {describe, expect, it} from 'vitest'

import {GRANULARITIES, type Granularity, ZoneCalendar} from '../../src/domain/periods.js'
import {periodIndex} from '../../src/services/stats.js'

const ZONES = Intl.supportedValuesOf('timeZone')
const FROM = Date.UTC(1970, 0, 1)
const TO = Date.UTC(2100, 0, 1)
const HOUR = 3_600_000
/** How long a window may be, per granularity (enough periods to cross a change, few enough to stay quick). */
const LENGTH: Record<Granularity, number> = {day: 40 * 24 * HOUR, hour: 40 * HOUR, month: 400 * 24 * HOUR, week: 120 * 24 * HOUR}

const calendars = new Map<string, ZoneCalendar>()
const calendarOf = (zone: string) => calendars.get(zone) ?? calendars.set(zone, ZoneCalendar.with(Temporal, zone)).get(zone)!

/** An instant near a clock change of the zone after `ms`, where there is one before 2100; else `ms`. */
function nearChange(zone: string, ms: number, shift: number): number {
  const change = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone).getTimeZoneTransition('next')
  return change && change.epochMilliseconds < TO ? change.epochMilliseconds + shift : ms
}

/** Checks the periods of one window, returning them. */
function checkWindow(zone: string, since: number, until: number, by: Granularity, instants: number[]): number[] {
  const c = calendarOf(zone)
  const periods = c.periodsBetween(since, until, by)
  assert.ok(periods.length > 0, 'no period')
  // The first holds `since`; the last starts before `until` and ends at or after it.
  assert.ok(periods[0] <= since, 'the first period starts after since')
  assert.ok(c.nextPeriod(periods[0], by) > since, 'the first period ends before since')
  assert.ok(c.nextPeriod(periods.at(-1)!, by) >= until, 'the last period ends before until')
  const labels = new Set<string>()
  for (let i = 0; i < periods.length; i++) {
    const start = periods[i]
    const end = c.nextPeriod(start, by)
    // Strictly increasing and contiguous.
    assert.ok(end > start, `period ${i} does not advance`)
    if (i + 1 < periods.length) assert.equal(end, periods[i + 1], `period ${i} does not end where the next starts`)
    // Each edge belongs to the period it starts, the instant before it to the one before.
    assert.equal(c.periodStart(start, by), start, `period ${i}: its start is not its own`)
    assert.equal(c.periodStart(end - 1, by), start, `period ${i}: its last instant is not its own`)
    labels.add(c.periodLabel(start, by))
  }
  assert.equal(labels.size, periods.length, 'labels do not tell periods apart')
  // Random instants of the window lie in exactly the period the chain gives them.
  for (const x of instants) {
    const start = c.periodStart(x, by)
    assert.ok(start <= x && c.nextPeriod(start, by) > x, `${x} is not in the period periodStart gives`)
    assert.ok(periods.includes(start), `${x}: its period is not one of the window's`)
  }
  return periods
}

const windowOf = (by: Granularity) =>
  fc.record({
    instants: fc.array(fc.double({max: 1, min: 0, noNaN: true}), {maxLength: 8, minLength: 1}),
    length: fc.integer({max: LENGTH[by], min: 1}),
    near: fc.boolean(),
    shift: fc.integer({max: LENGTH[by] / 2, min: -LENGTH[by] / 2}),
    start: fc.integer({max: TO - LENGTH[by], min: FROM}),
  })

/** The quick tier (npm run test:quick) walks one zone in eight and fewer samples; `npm test` walks the whole space. */
const QUICK = process.env.COMMERCE_TEST_QUICK === '1'
const WALKED = QUICK ? ZONES.filter((zone, i) => i % 8 === 0 || ['America/New_York', 'Australia/Lord_Howe', 'Pacific/Apia'].includes(zone)) : ZONES

describe('periods, every zone, 1970 to 2100', () => {
  for (const by of GRANULARITIES)
    it(`by ${by}: contiguous, covering, each instant in one period, labels distinct (${WALKED.length} zones)`, () => {
      for (const zone of WALKED)
        fc.assert(
          fc.property(windowOf(by), (w) => {
            const since = Math.min(TO - LENGTH[by], Math.max(FROM, w.near ? nearChange(zone, w.start, w.shift) : w.start))
            const until = since + w.length
            checkWindow(
              zone,
              since,
              until,
              by,
              w.instants.map((f) => since + Math.floor(f * (until - since - 1))),
            )
          }),
          {numRuns: 2, seed: 47_000 + ZONES.indexOf(zone)},
        )
    })

  it('records bucketed by period add up to the totals, in any zone, by any period', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.constantFrom(...GRANULARITIES),
        fc.integer({max: TO - LENGTH.month, min: FROM}),
        fc.array(fc.record({at: fc.double({max: 1, min: 0, noNaN: true}), total: fc.integer({max: 1_000_000, min: 0})}), {maxLength: 200}),
        (zone, by, start, orders) => {
          const c = calendarOf(zone)
          const since = nearChange(zone, start, -LENGTH[by] / 3)
          const until = since + LENGTH[by]
          const periods = c.periodsBetween(since, until, by)
          const sums = periods.map(() => 0)
          let total = 0
          for (const o of orders) {
            const ms = since + Math.floor(o.at * (until - since - 1))
            const i = periodIndex({periods} as never, ms)
            expect(periods[i]).toBeLessThanOrEqual(ms)
            if (i + 1 < periods.length) expect(periods[i + 1]).toBeGreaterThan(ms)
            expect(periods[i]).toBe(c.periodStart(ms, by))
            sums[i] += o.total
            total += o.total
          }
          expect(sums.reduce((a, b) => a + b, 0)).toBe(total)
        },
      ),
      {numRuns: QUICK ? 50 : 300, seed: 4747},
    )
  })
})
