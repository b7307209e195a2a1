/**
 * Fixed-window rate limiting on the injected clock. A window opens at a subject's first counted request
 * and lasts `windowSeconds`; a refused request is not counted.
 */
export interface Limit {
  limit: number
  windowSeconds: number
}

export type LimitResult = {ok: true; remaining: number; resetSeconds: number} | {ok: false; retryAfterSeconds: number}

export class RateLimiter {
  private readonly windows = new Map<string, {start: number; count: number}>()

  constructor(
    private readonly now: () => number,
    private readonly limit: Limit,
  ) {}

  get max(): number {
    return this.limit.limit
  }

  take(subject: string): LimitResult {
    const now = this.now()
    const windowMs = this.limit.windowSeconds * 1000
    let w = this.windows.get(subject)
    if (!w || now >= w.start + windowMs) {
      if (this.windows.size > 10_000) this.prune(now, windowMs)
      w = {count: 0, start: now}
      this.windows.set(subject, w)
    }
    const resetSeconds = Math.max(1, Math.ceil((w.start + windowMs - now) / 1000))
    if (w.count >= this.limit.limit) return {ok: false, retryAfterSeconds: resetSeconds}
    w.count++
    return {ok: true, remaining: this.limit.limit - w.count, resetSeconds}
  }

  /** Seconds until a subject's full window ends; undefined while it may take more. */
  blockedFor(subject: string): number | undefined {
    const w = this.windows.get(subject)
    const end = w ? w.start + this.limit.windowSeconds * 1000 : 0
    return w && w.count >= this.limit.limit && this.now() < end ? Math.max(1, Math.ceil((end - this.now()) / 1000)) : undefined
  }

  private prune(now: number, windowMs: number): void {
    for (const [k, w] of this.windows) if (now >= w.start + windowMs) this.windows.delete(k)
  }
}
