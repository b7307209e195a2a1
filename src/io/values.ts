/**
 * Values a person reads: how a field's value is shown in a terminal table or field/value view.
 * Pipes and --json never come here: they carry the service's values exactly as it sent them.
 *
 * - Timestamps (`created_at`, `placed_at`, `expires_at`, `received_at`, any `*_at` holding an ISO date-time): in
 *   a list, relative like `gh` ("3 minutes ago", "in 59 minutes"; the date past a month); in a single resource,
 *   local time and the relative form ("2026-11-23 14:05 UTC (3 minutes ago)").
 * - Arrays of plain values (scopes, a webhook's events): a comma list.
 * - Money (`total`, `unit_price`, `price`, `amount`, `amount_refunded`): with the record's currency, `13112 EUR`.
 *   Formatted as `€131.12` only when the profile states the service's money unit (`money_unit`: `minor` = cents
 *   and pence, `major` = whole units), because the service's spec does not say it and a guess would show a
 *   hundredfold error.
 * Counts in sentences agree in number through `counted` (src/domain/text.ts).
 */
import type {MoneyUnit} from '../domain/schema.js'
import {sanitize} from './sanitize.js'
import {readTimestamp} from '../domain/timestamp.js'

export interface ValueOptions {
  /** From the profile's `money_unit`; unknown (undefined) shows amounts as integers beside their currency. */
  moneyUnit?: MoneyUnit
  /** The clock, in ms since the epoch (tests pass a fixed one). */
  now?: number
  /** An IANA time zone for local times; the process's own (TZ) when absent. */
  timeZone?: string
}

const MONEY_FIELDS = new Set(['amount', 'amount_refunded', 'price', 'refunded', 'remaining', 'total', 'unit_price'])

/** The field a column shows: `items.0.unit_price` is a `unit_price`. */
function fieldName(column: string): string {
  const dot = column.lastIndexOf('.')
  return dot === -1 ? column : column.slice(dot + 1)
}

export function isMoneyField(column: string): boolean {
  return MONEY_FIELDS.has(fieldName(column))
}

function isTimeField(column: string): boolean {
  return fieldName(column).endsWith('_at')
}

const formatters = new Map<string, Intl.NumberFormat>()
function currencyFormat(currency: string): Intl.NumberFormat | undefined {
  let format = formatters.get(currency)
  if (!format) {
    try {
      format = new Intl.NumberFormat('en', {currency, style: 'currency'})
    } catch {
      return undefined // not an ISO 4217 code: shown as it came
    }
    formatters.set(currency, format)
  }
  return format
}

/**
 * An amount for a person: `13112 EUR` when the unit is unknown; `€131.12` in minor units (the currency's own
 * number of decimals: none for JPY); `€13,112.00` in major units. Without a currency, the integer alone.
 */
export function formatMoney(amount: number, currency: unknown, unit?: MoneyUnit): string {
  if (typeof currency !== 'string' || currency === '') return String(amount)
  const format = unit ? currencyFormat(currency) : undefined
  // A currency code no format knows is shown as the service sent it: escaped, wherever the amount is drawn.
  if (!format || !Number.isFinite(amount)) return `${amount} ${sanitize(currency, 'cell')}`
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2
  return format.format(unit === 'minor' ? amount / 10 ** digits : amount)
}

/** Made on first use: the first Intl object of a kind loads ICU's data for it (4 ms for this one). */
let relative: Intl.RelativeTimeFormat | undefined
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
]

/** Intl formatters are costly to build (a table of 20,000 rows would build 20,000): one per kind and zone. */
const dateFormats = new Map<string, Intl.DateTimeFormat>()
function dateFormat(kind: 'date' | 'day' | 'time', timeZone: string | undefined): Intl.DateTimeFormat {
  const key = `${kind} ${timeZone ?? ''}`
  let format = dateFormats.get(key)
  if (!format) {
    format =
      kind === 'date'
        ? new Intl.DateTimeFormat('en', {day: 'numeric', month: 'short', timeZone, year: 'numeric'})
        : kind === 'day'
          ? new Intl.DateTimeFormat('en-CA', {day: '2-digit', month: '2-digit', timeZone, year: 'numeric'})
          : new Intl.DateTimeFormat('en-GB', {
              day: '2-digit',
              hour: '2-digit',
              hour12: false,
              minute: '2-digit',
              month: '2-digit',
              timeZone,
              timeZoneName: 'short',
              year: 'numeric',
            })
    dateFormats.set(key, format)
  }
  return format
}

/**
 * The local date of `ms`, cached by quarter hour: every zone's offset is a multiple of 15 minutes, so all instants
 * of one quarter hour share a date in any zone (a long list's timestamps are mostly far in the past).
 */
const dates = new Map<string, string>()
function calendarDate(ms: number, timeZone: string | undefined): string {
  const key = `${Math.floor(ms / 900_000)} ${timeZone ?? ''}`
  let text = dates.get(key)
  if (text === undefined) {
    if (dates.size >= 50_000) dates.clear()
    text = dateFormat('date', timeZone).format(ms)
    dates.set(key, text)
  }
  return text
}

/** How far from now a time is said relatively; past it, as a date. */
const RELATIVE_LIMIT_MS = 30 * 86_400_000

/** The day number of `ms`'s calendar date in the zone (days since 1970-01-01 of that date): exact, whatever the offset. */
function dayNumber(ms: number, timeZone: string | undefined): number {
  const [year, month, day] = dateFormat('day', timeZone).format(ms).split('-').map(Number)
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return Math.round(date.getTime() / 86_400_000)
}

/**
 * "just now", "3 minutes ago", "in 59 minutes"; a day or more away, in calendar days of the zone ("yesterday" is the
 * date before today's, "2 days ago" the one before it, whatever the hours); past 30 days, the local date ("Oct 2, 2026").
 */
export function relativeTime(ms: number, now: number, timeZone?: string): string {
  const delta = ms - now
  const size = Math.abs(delta)
  if (size < 45_000) return 'just now'
  if (size >= RELATIVE_LIMIT_MS) return calendarDate(ms, timeZone)
  relative ??= new Intl.RelativeTimeFormat('en', {numeric: 'auto'})
  for (const [unit, length] of UNITS) {
    if (size < length) continue
    return unit === 'day'
      ? relative.format(dayNumber(ms, timeZone) - dayNumber(now, timeZone), 'day')
      : relative.format(Math.trunc(delta / length), unit)
  }
  return 'just now'
}

/** "2026-11-23 14:05 UTC": the local date and time with its zone. */
export function localTime(ms: number, timeZone?: string): string {
  const parts = dateFormat('time', timeZone).formatToParts(ms)
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? ''
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')} ${part('timeZoneName')}`
}

const timestamp = readTimestamp

/**
 * The text of one value for a person, or undefined when it has no special form (the caller shows it as it is).
 * `record` is the object the value belongs to (its `currency` goes with its amounts); `view` is a table row
 * (`list`: short forms) or a single resource (`record`: the full local time as well).
 */
export function humanValue(
  column: string,
  value: unknown,
  record: Record<string, unknown>,
  options: ValueOptions,
  view: 'list' | 'record',
): string | undefined {
  // A field of one record with nothing in it says so: a bare name beside an empty cell reads as a rendering fault.
  if (view === 'record' && (value === null || value === '')) return 'none'
  if (typeof value === 'number' && isMoneyField(column)) return formatMoney(value, record.currency, options.moneyUnit)
  if (isTimeField(column)) {
    const ms = timestamp(value)
    if (ms === undefined) return undefined
    const now = options.now ?? Date.now()
    const ago = relativeTime(ms, now, options.timeZone)
    if (view === 'list') return ago
    // Past a month the relative form is the date itself: the local time says it already.
    return Math.abs(ms - now) >= RELATIVE_LIMIT_MS ? localTime(ms, options.timeZone) : `${localTime(ms, options.timeZone)} (${ago})`
  }
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object'))
    return value.length > 0 ? value.map(String).join(', ') : view === 'list' ? '' : 'none'
  return undefined
}
