/**
 * A pacer shared by every request of a bulk import, so that concurrent workers slow down together when the
 * service rate-limits them instead of each meeting its own 429.
 *
 * The HTTP client calls `acquire()` before each request, then exactly one of `onSuccess()` (any answer but a
 * 429: the request counted), `onRateLimited(retryAfterMs)` or `onError()` (no answer).
 *
 * It learns the limit from the first 429 that follows a success: the requests that succeeded since the start
 * (or since the end of the last pause) make the limit L, and the time from the first of them to the end of the
 * Retry-After pause makes the window W. A 429 before any success (a window already used up, say by an earlier
 * run of the same import) teaches nothing: the pacer only waits for the next window. From then on it keeps
 * the times of the last L requests and lets a request go only once the oldest of them is W (plus a margin)
 * old: at most L requests in any span of W, which keeps both fixed-window and sliding-window limiters happy,
 * and sends each window's requests as soon as the window opens (close to the floor of the limit).
 *
 * So that a wrong guess costs one 429 and not one per worker, a request that may meet the limit goes alone
 * (a "probe": it waits for those in flight to report back, and the others wait for it): before the first 429,
 * each request past `expectedLimit` (the documented limit, when the caller knows one); after it, the first
 * request of each burst (after a quarter of a window without requests). A 429 despite the model means the
 * window is longer than thought: W grows to span the last L requests and the new pause (and L falls if fewer
 * than L succeeded in that window).
 */
import {setTimeout as delay} from 'node:timers/promises'

export interface Clock {
  now(): number
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, {signal}).catch(() => {}),
}

export interface PacerOptions {
  clock?: Clock
  /** The documented number of requests per window, if any: past it, before a 429, requests go one at a time. */
  expectedLimit?: number
  /** How long a lone request waits for those in flight to report back before it goes anyway; default 2 s. */
  settleTimeoutMs?: number
}

export class Pacer {
  /** Learned: requests per window, and the window in ms. */
  limit?: number
  windowMs?: number
  /** Counters, for reports and tests. */
  readonly stats = {granted: 0, rateLimited: 0}

  private readonly clock: Clock
  private pausedUntil = 0
  private lessonPending = false
  private last429At = 0
  /** Since the start, or since the end of the last pause. */
  private epochFirstGrant?: number
  private epochGrants = 0
  private epochSuccesses = 0
  /** Once learned: times of the last grants and successes (about `limit` of each). */
  private grants: number[] = []
  private successes: number[] = []
  private lastGrant?: number
  private inFlight = 0
  private probeOutstanding = false
  private settleWaiters: Array<() => void> = []

  constructor(private readonly options: PacerOptions = {}) {
    this.clock = options.clock ?? systemClock
  }

  /** When a Retry-After pause ends (epoch ms), or undefined when not paused. */
  get resumesAt(): number | undefined {
    return this.pausedUntil > this.clock.now() ? this.pausedUntil : undefined
  }

  async acquire(): Promise<void> {
    for (;;) {
      const now = this.clock.now()
      if (now < this.pausedUntil) {
        await this.clock.sleep(this.pausedUntil - now)
        continue
      }
      if (this.lessonPending) this.learn()
      const slot = this.nextSlot()
      if (slot > now) {
        await this.clock.sleep(slot - now)
        continue
      }
      if (this.probeOutstanding) {
        await this.settled()
        continue
      }
      const alone = this.mustGoAlone(now)
      if (alone && this.inFlight > 0) {
        await this.settled()
        continue
      }
      this.probeOutstanding = alone
      this.grant(now)
      return
    }
  }

  onSuccess(): void {
    this.settle()
    this.epochSuccesses++
    if (this.limit !== undefined) keepLast(this.successes, this.clock.now(), this.limit)
  }

  onRateLimited(retryAfterMs: number): void {
    this.settle()
    this.stats.rateLimited++
    const now = this.clock.now()
    this.pausedUntil = Math.max(this.pausedUntil, now + Math.max(0, retryAfterMs))
    this.last429At = now
    this.lessonPending = true
    this.grants.pop() // the refused request (the newest: it went alone) did not count against the limit
  }

  onError(): void {
    this.settle()
  }

  private grant(now: number): void {
    this.inFlight++
    this.stats.granted++
    this.epochGrants++
    this.epochFirstGrant ??= now
    this.lastGrant = now
    // One more than the limit, so that a refused request (dropped on its 429) leaves the L before it.
    if (this.limit !== undefined) keepLast(this.grants, now, this.limit + 1)
  }

  /** The earliest time the next request may go by the learned limit (0 when free). */
  private nextSlot(): number {
    if (this.limit === undefined || this.windowMs === undefined || this.grants.length < this.limit) return 0
    const margin = Math.max(10, this.windowMs * 0.01)
    return this.grants[this.grants.length - this.limit] + this.windowMs + margin
  }

  private mustGoAlone(now: number): boolean {
    if (this.limit === undefined || this.windowMs === undefined) {
      const expected = this.options.expectedLimit
      return expected !== undefined && this.epochGrants >= expected
    }
    return this.lastGrant === undefined || now - this.lastGrant >= this.windowMs / 4
  }

  /** At the end of a pause: what the 429 taught. */
  private learn(): void {
    this.lessonPending = false
    if (this.limit === undefined || this.windowMs === undefined) {
      // Refused before any request of ours counted: the window was used up by someone else (e.g. the run of this
      // import that was just interrupted). That says nothing of the limit: wait it out and learn from the next.
      if (this.epochSuccesses > 0) {
        this.limit = this.epochSuccesses
        this.windowMs = this.pausedUntil - (this.epochFirstGrant ?? this.last429At)
      }
    } else {
      const oldest = this.grants.slice(-this.limit)[0] ?? this.last429At
      this.windowMs = Math.max(this.windowMs, this.pausedUntil - oldest)
      const from = this.last429At - this.windowMs
      this.limit = Math.max(1, Math.min(this.limit, this.successes.filter((t) => t > from).length))
      this.grants = this.grants.slice(-(this.limit + 1))
      this.successes = this.successes.slice(-this.limit)
    }
    this.epochFirstGrant = undefined
    this.epochGrants = 0
    this.epochSuccesses = 0
  }

  private settle(): void {
    this.inFlight = Math.max(0, this.inFlight - 1)
    this.probeOutstanding = false
    const waiters = this.settleWaiters
    this.settleWaiters = []
    for (const wake of waiters) wake()
  }

  /** Until a request in flight reports back; after `settleTimeoutMs`, those in flight are taken as lost. */
  private async settled(): Promise<void> {
    const timeout = new AbortController()
    let reported = false
    const report = new Promise<void>((resolve) => this.settleWaiters.push(resolve)).then(() => {
      reported = true
      timeout.abort()
    })
    await Promise.race([report, this.clock.sleep(this.options.settleTimeoutMs ?? 2000, timeout.signal)])
    if (reported) return
    this.inFlight = 0
    this.probeOutstanding = false
  }
}

function keepLast(list: number[], value: number, size: number): void {
  list.push(value)
  if (list.length > size) list.splice(0, list.length - size)
}
