/**
 * A pacer shared by every request of a bulk import, so that concurrent workers slow down together when the
 * service rate-limits them instead of each meeting its own 429.
 *
 * The HTTP client calls `acquire()` before each request, then exactly one of `onSuccess()` (any answer but a
 * 429: the request counted), `onRateLimited(retryAfterMs)` or `onError()` (no answer).
 *
 * It learns the limit from the first 429: the requests that succeeded since the start make the limit L, and the
 * time from the first request to the end of the Retry-After pause makes the window W. From then on it keeps
 * the times of the last L requests and lets a request go only once the oldest of them is W (plus a margin)
 * old: at most L requests in any span of W, which keeps both fixed-window and sliding-window limiters happy,
 * and sends each window's requests as soon as the window opens (close to the floor of the limit). Another 429
 * means the model was wrong: it recounts from the window that ended in it (L can only fall, W only grow).
 *
 * Before the first 429 nothing is known, so every worker with a request may meet it at once. When the caller
 * knows the documented limit (`expectedLimit`, e.g. 10 order creations per window), requests past that many
 * go one at a time (each after those in flight have settled), so that only one of them meets the 429.
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
  /** Once learned: times of the last `limit` grants and successes. */
  private grants: number[] = []
  private successes: number[] = []
  private inFlight = 0
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
      if (this.mustGoAlone() && this.inFlight > 0) {
        await this.settled()
        continue
      }
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
  }

  onError(): void {
    this.settle()
  }

  private grant(now: number): void {
    this.inFlight++
    this.stats.granted++
    this.epochGrants++
    this.epochFirstGrant ??= now
    if (this.limit !== undefined) keepLast(this.grants, now, this.limit)
  }

  /** The earliest time the next request may go by the learned limit (0 when free). */
  private nextSlot(): number {
    if (this.limit === undefined || this.windowMs === undefined || this.grants.length < this.limit) return 0
    const margin = Math.max(10, this.windowMs * 0.01)
    return this.grants[this.grants.length - this.limit]! + this.windowMs + margin
  }

  private mustGoAlone(): boolean {
    const expected = this.options.expectedLimit
    return this.limit === undefined && expected !== undefined && this.epochGrants >= expected
  }

  /** At the end of a pause: what the 429 taught. */
  private learn(): void {
    this.lessonPending = false
    if (this.limit === undefined || this.windowMs === undefined) {
      this.limit = Math.max(1, this.epochSuccesses)
      this.windowMs = this.pausedUntil - (this.epochFirstGrant ?? this.last429At)
    } else {
      const from = this.last429At - this.windowMs
      const succeeded = this.successes.filter((t) => t > from).length
      const firstGrant = this.grants.find((t) => t > from) ?? this.last429At
      this.limit = Math.max(1, Math.min(this.limit, succeeded))
      this.windowMs = Math.max(this.windowMs, this.pausedUntil - firstGrant)
      this.grants = this.grants.slice(-this.limit)
      this.successes = this.successes.slice(-this.limit)
    }
    this.epochFirstGrant = undefined
    this.epochGrants = 0
    this.epochSuccesses = 0
  }

  private settle(): void {
    this.inFlight = Math.max(0, this.inFlight - 1)
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
    if (!reported) this.inFlight = 0
  }
}

function keepLast(list: number[], value: number, size: number): void {
  list.push(value)
  if (list.length > size) list.splice(0, list.length - size)
}
