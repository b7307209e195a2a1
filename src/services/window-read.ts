/**
 * Reading a window of a newest-first list whatever the service sends (services/stats.ts and services/top.ts):
 * - reading stops at a record older than the window only while the list has kept that order and has shown it (a
 *   record older than the one before it): an oldest-first list, or one whose first record is already older than the
 *   window, is read whole;
 * - a record met again (offset pages shift when orders are placed during the read) is counted once: the keys of the
 *   last `RECENT_IDS` records read are kept, which is where such a repeat comes back (memory stays flat);
 * - a record that does not hold together is counted as malformed, not taken; sums are exact or refused;
 * - the documented currencies and at most `MAX_OTHER_CURRENCIES` others, refused past it.
 */
import {option, phrase} from '../domain/phrase.js'
import {CURRENCIES} from '../domain/schema.js'
import {CliError} from '../errors.js'

export interface StatsOptions {
  /** Told of every record read (a progress line on a terminal). */
  onRecord?: (read: number) => void
}

export interface Read {
  /** Records read, in the window or not. */
  records: number
  /** Every page was read (the service's order could not be relied on), or reading stopped past the window. */
  all_pages: boolean
  /** Records met again while reading (counted once). */
  duplicates: number
  /** Records that did not hold together, not counted. */
  malformed: number
}

const RECENT_IDS = 5_000
const MAX_OTHER_CURRENCIES = 16

/**
 * The ids of the last `size` records read, with when each happened, to know a record met again: the same id at the
 * same time (a service that reuses an id for another record still has both counted). A ring, so nothing grows and no
 * string is made per record.
 */
export class RecentRecords {
  private readonly ring: unknown[]
  private next = 0
  /** Each id's latest time, and the ring slot that holds it (an id met again at another time moves to a new slot). */
  private readonly times = new Map<unknown, {ms: number; slot: number}>()
  constructor(private readonly size: number) {
    this.ring = new Array<unknown>(size)
  }

  /** True when the record was met among the recent ones; else remembers it. */
  seen(record: unknown, ms: number): boolean {
    const id = (record as {id?: unknown}).id
    if (typeof id !== 'number' && typeof id !== 'string') return false
    if (this.times.get(id)?.ms === ms) return true
    const slot = this.next
    const evicted = this.ring[slot]
    // Forgotten only when this slot is still where it is remembered (a reused id may have moved on).
    if (evicted !== undefined && this.times.get(evicted)?.slot === slot) this.times.delete(evicted)
    this.ring[slot] = id
    this.next = (slot + 1) % this.size
    this.times.set(id, {ms, slot})
    return false
  }
}

/**
 * The records of a newest-first list that fall in the window, handed to `take` (which answers false for a record it
 * finds malformed); stops past the window while the list has shown and kept its order. `at` is when a record
 * happened (NaN when it does not say).
 */
export async function readWindow<T>(
  records: AsyncIterable<T>,
  at: (r: T) => number,
  w: {since: number; until: number},
  take: (r: T, ms: number) => boolean | Promise<boolean>,
  o: StatsOptions,
): Promise<Read> {
  const read: Read = {all_pages: true, duplicates: 0, malformed: 0, records: 0}
  const recent = new RecentRecords(RECENT_IDS)
  let ordered = true
  let descended = false
  let oldest = Number.POSITIVE_INFINITY
  for await (const record of records) {
    read.records++
    o.onRecord?.(read.records)
    const ms = typeof record === 'object' && record !== null ? at(record) : Number.NaN
    if (!Number.isFinite(ms)) {
      read.malformed++
      continue
    }
    if (recent.seen(record, ms)) {
      read.duplicates++
      continue
    }
    if (ms > oldest) ordered = false
    else if (ms < oldest && oldest !== Number.POSITIVE_INFINITY) descended = true
    oldest = Math.min(oldest, ms)
    if (ms < w.since) {
      if (ordered && descended) return {...read, all_pages: false}
      continue
    }
    // A taker may make the reading wait (products top: a bounded number of orders fetched at once).
    if (ms < w.until && !(await take(record, ms))) read.malformed++
  }
  return read
}

/** A count or an amount that stays exact: refused past 2^53 − 1 rather than rounded. */
export function addExact(a: number, b: number, what: string): number {
  const sum = a + b
  if (!Number.isSafeInteger(sum))
    throw new CliError(`The ${what} add up past ${Number.MAX_SAFE_INTEGER}, beyond what can be counted exactly: narrow the window.`)
  return sum
}

/** A whole, non-negative amount or count as the service must send it; undefined for anything else. */
export function wholeAmount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined
}

/**
 * A report's figures per currency (`S` each, made on first use): the documented currencies and at most
 * MAX_OTHER_CURRENCIES others, refused past that (tooManyCurrencies); with `only`, that currency alone.
 */
export class CurrencySlots<S> {
  private readonly slots = new Map<string, S>()
  private others = 0
  constructor(
    private readonly make: () => S,
    private readonly only?: string,
  ) {}

  /** The currency's slot, made when first met; undefined for a currency the report leaves out (`only`). */
  of(currency: string): S | undefined {
    if (this.only !== undefined && currency !== this.only) return undefined
    let slot = this.slots.get(currency)
    if (slot) return slot
    if (this.only === undefined && !(CURRENCIES as readonly string[]).includes(currency) && ++this.others > MAX_OTHER_CURRENCIES)
      throw tooManyCurrencies()
    this.slots.set(currency, (slot = this.make()))
    return slot
  }

  /** Every slot made, by currency code (code-unit order: the same whatever the locale). */
  sorted(): Array<[string, S]> {
    return [...this.slots].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  }
}

/** Refused: more currencies than a report keeps a series for. */
function tooManyCurrencies(): CliError {
  return new CliError(
    phrase`The service sent orders in more than ${MAX_OTHER_CURRENCIES} currencies besides ${CURRENCIES.join(', ')}: count one at a time with ${option('currency')}.`,
  )
}
