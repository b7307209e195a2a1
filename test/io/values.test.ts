/** Values a person reads: the human forms of timestamps, arrays and money, and counts. */
import {describe, expect, it} from 'vitest'

import {counted} from '../../src/domain/text.js'
import {formatMoney, humanValue, localTime, relativeTime} from '../../src/io/values.js'

const NOW = Date.parse('2026-11-23T12:00:00Z')
const MIN = 60_000

describe('relativeTime', () => {
  it.each([
    [NOW - 10_000, 'just now'],
    [NOW - 3 * MIN, '3 minutes ago'],
    [NOW - 61 * MIN, '1 hour ago'],
    [NOW - 5 * 60 * MIN, '5 hours ago'],
    [NOW - 24 * 60 * MIN, 'yesterday'],
    [NOW - 3 * 24 * 60 * MIN, '3 days ago'],
    [NOW + 59 * MIN, 'in 59 minutes'],
    [Date.parse('2026-10-02T10:00:00Z'), 'Oct 2, 2026'],
  ])('%s reads as %s', (ms, text) => {
    expect(relativeTime(ms, NOW, 'UTC')).toBe(text)
  })

  it('counts calendar days in the zone: 24 to 48 hours back is "yesterday" only while it is the date before today', () => {
    const sat = Date.parse('2026-11-28T19:38:00Z')
    const thursday = Date.parse('2026-11-26T20:13:00Z') // 47 hours before, two dates back in UTC
    expect(relativeTime(thursday, sat, 'UTC')).toBe('2 days ago')
    expect(relativeTime(thursday, sat, 'Asia/Kolkata')).toBe('2 days ago')
    expect(relativeTime(thursday, sat, 'Australia/Sydney')).toBe('2 days ago')
    expect(relativeTime(Date.parse('2026-11-27T10:00:00Z'), sat, 'UTC')).toBe('yesterday')
    // 25 hours back across two midnights of New York: two dates back there.
    expect(relativeTime(Date.parse('2026-11-27T04:30:00Z'), Date.parse('2026-11-28T05:30:00Z'), 'America/New_York')).toBe('2 days ago')
    // Across a clock change (New York, 2026-11-01): the date before is yesterday, whatever the 25-hour day.
    expect(relativeTime(Date.parse('2026-11-01T04:30:00Z'), Date.parse('2026-11-02T05:10:00Z'), 'America/New_York')).toBe('yesterday')
    expect(relativeTime(Date.parse('2026-11-30T10:00:00Z'), sat, 'UTC')).toBe('in 2 days')
  })
})

describe('localTime', () => {
  it('is the date and time in the given zone, with the zone', () => {
    expect(localTime(NOW, 'UTC')).toBe('2026-11-23 12:00 UTC')
    expect(localTime(NOW, 'Asia/Tokyo')).toBe('2026-11-23 21:00 GMT+9')
  })
})

describe('formatMoney', () => {
  it('shows the integer beside its currency while the unit is unknown', () => {
    expect(formatMoney(13112, 'EUR')).toBe('13112 EUR')
    expect(formatMoney(13112, undefined, 'minor')).toBe('13112')
  })
  it('formats minor units with the currency’s own decimals', () => {
    expect(formatMoney(13112, 'EUR', 'minor')).toBe('€131.12')
    expect(formatMoney(5, 'USD', 'minor')).toBe('$0.05')
    expect(formatMoney(13112, 'GBP', 'minor')).toBe('£131.12')
    expect(formatMoney(500, 'JPY', 'minor')).toBe('¥500')
  })
  it('formats major units as they are', () => {
    expect(formatMoney(13112, 'USD', 'major')).toBe('$13,112.00')
  })
  it('keeps a currency that is not a currency code as it came', () => {
    expect(formatMoney(7, 'not-a-code', 'minor')).toBe('7 not-a-code')
  })
})

describe('humanValue', () => {
  const order = {currency: 'EUR', id: 1, placed_at: '2026-11-23T11:57:00Z', total: 13112}
  it('money with the record’s currency, timestamps relative in a list and local in a record', () => {
    expect(humanValue('total', 13112, order, {now: NOW}, 'list')).toBe('13112 EUR')
    expect(humanValue('total', 13112, order, {moneyUnit: 'minor', now: NOW}, 'list')).toBe('€131.12')
    expect(humanValue('placed_at', order.placed_at, order, {now: NOW}, 'list')).toBe('3 minutes ago')
    expect(humanValue('placed_at', order.placed_at, order, {now: NOW, timeZone: 'UTC'}, 'record')).toBe('2026-11-23 11:57 UTC (3 minutes ago)')
    // Past a month the relative form would be the date again: said once.
    expect(humanValue('created_at', '2026-10-03T06:20:00Z', order, {now: NOW, timeZone: 'UTC'}, 'record')).toBe('2026-10-03 06:20 UTC')
    expect(humanValue('created_at', '2026-10-03T06:20:00Z', order, {now: NOW, timeZone: 'UTC'}, 'list')).toBe('Oct 3, 2026')
  })
  it('arrays of plain values as a comma list; everything else has no special form', () => {
    expect(humanValue('scopes', ['customers:read', 'orders:read'], {}, {}, 'list')).toBe('customers:read, orders:read')
    expect(humanValue('refunds', [], {}, {}, 'record')).toBe('none')
    expect(humanValue('refunds', [], {}, {}, 'list')).toBe('')
    expect(humanValue('name', 'Ana', {}, {}, 'list')).toBeUndefined()
    expect(humanValue('id', 12, order, {moneyUnit: 'minor'}, 'list')).toBeUndefined()
    expect(humanValue('created_at', 'not a date', {}, {}, 'list')).toBeUndefined()
    expect(humanValue('items', [{a: 1}], {}, {}, 'list')).toBeUndefined()
  })
  it('a dotted --fields column is read by its last name', () => {
    expect(humanValue('items.0.unit_price', 250, order, {moneyUnit: 'minor'}, 'list')).toBe('€2.50')
  })
})

describe('counted', () => {
  it('agrees in number and groups thousands', () => {
    expect(counted(1, 'refund')).toBe('1 refund')
    expect(counted(0, 'refund')).toBe('0 refunds')
    expect(counted(20_505, 'customer')).toBe('20,505 customers')
    expect(counted(1, 'delivery', 'deliveries')).toBe('1 delivery')
    expect(counted(2, 'delivery', 'deliveries')).toBe('2 deliveries')
  })
})
