/**
 * The one reader of a timestamp that came from a service (`placed_at`, `created_at`, `received_at`, `expires_at`):
 * an RFC 3339 date-time string, and nothing else. `Date.parse` is lenient (`0` is 2000-01-01, `"12"` December 2001,
 * an array its element, `2026-02-30` the 2nd of March): a value it reads wrongly would put a record in the wrong
 * period, or make a newest-first list look older than a window and end a read early. Anything that is not a
 * date-time is undefined here, for the caller to report as malformed.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/

const leap = (year: number): boolean => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
const daysIn = (year: number, month: number): number => (month === 2 ? (leap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31)

/** Milliseconds since the epoch of an RFC 3339 date-time, or undefined for anything else. */
export function readTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string' || value.length > 40) return undefined
  const m = RFC3339.exec(value)
  if (!m) return undefined
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number)
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined
  // A leap second (:60) is the instant before the next minute, as RFC 3339 allows it.
  if (hour > 23 || minute > 59 || second > 60) return undefined
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined
  const ms = Date.parse(second === 60 ? value.replace(/:60(?=[.Zz+-])/, ':59') : value.replace(' ', 'T'))
  return Number.isNaN(ms) ? undefined : ms
}
