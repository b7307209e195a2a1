import {describe, expect, test} from 'vitest'

import {Pacer} from '../../src/bulk/pacer.js'
import {RateLimiter} from '../../src/sandbox/rate-limit.js'
import {FakeClock} from '../helpers/fake-clock.js'

/** A limiter answering each request: ok, or refused with Retry-After in whole seconds (as HTTP sends it). */
interface Limiter {
  take(now: number): {ok: true} | {ok: false; retryAfterSeconds: number}
  /** Which window a 429 at `now` belongs to, to count 429s per window. */
  windowOf(now: number): number
}

/** The sandbox's: a window opens at the first counted request. */
function sandboxLimiter(clock: FakeClock, limit: number, windowSeconds: number): Limiter {
  const limiter = new RateLimiter(clock.now, {limit, windowSeconds})
  const starts: number[] = []
  return {
    take(now) {
      const r = limiter.take('key')
      if (r.ok && (starts.length === 0 || now >= starts.at(-1)! + windowSeconds * 1000)) starts.push(now)
      return r
    },
    windowOf: (now) => starts.filter((s) => s <= now).length,
  }
}

/** Windows aligned on multiples of the window, whenever the import starts. */
function alignedLimiter(limit: number, windowMs: number): Limiter {
  const counts = new Map<number, number>()
  return {
    take(now) {
      const w = Math.floor(now / windowMs)
      const c = counts.get(w) ?? 0
      if (c >= limit) return {ok: false, retryAfterSeconds: Math.max(1, Math.ceil(((w + 1) * windowMs - now) / 1000))}
      counts.set(w, c + 1)
      return {ok: true}
    },
    windowOf: (now) => Math.floor(now / windowMs),
  }
}

/** A sliding log: at most `limit` requests in any span of `windowMs`. */
function slidingLimiter(limit: number, windowMs: number): Limiter {
  const log: number[] = []
  return {
    take(now) {
      while (log.length > 0 && log[0] <= now - windowMs) log.shift()
      if (log.length >= limit) return {ok: false, retryAfterSeconds: Math.max(1, Math.ceil((log[0] + windowMs - now) / 1000))}
      log.push(now)
      return {ok: true}
    },
    windowOf: (now) => Math.floor(now / windowMs),
  }
}

/**
 * `count` requests by `concurrency` workers, each as src/api/client.ts sends one: acquire, request (2 ms each
 * way), and on a 429 tell the pacer, wait Retry-After and try again.
 */
async function simulate(options: {clock: FakeClock; limiter: Limiter; pacer: Pacer; count: number; concurrency: number}) {
  const {clock, limiter, pacer} = options
  const limited: number[] = []
  const succeeded: number[] = []
  let next = 0
  const start = clock.now()
  async function worker() {
    while (next < options.count) {
      next++
      for (;;) {
        await pacer.acquire()
        await clock.sleep(2)
        const r = limiter.take(clock.now())
        const at = clock.now()
        await clock.sleep(2)
        if (r.ok) {
          succeeded.push(at)
          pacer.onSuccess()
          break
        }
        limited.push(at)
        pacer.onRateLimited(r.retryAfterSeconds * 1000)
        await clock.sleep(r.retryAfterSeconds * 1000)
      }
    }
  }
  await clock.run(Promise.all(Array.from({length: options.concurrency}, worker)))
  const perWindow = new Map<number, number>()
  for (const t of limited) perWindow.set(limiter.windowOf(t), (perWindow.get(limiter.windowOf(t)) ?? 0) + 1)
  return {elapsed: clock.now() - start, limited, maxPerWindow: Math.max(0, ...perWindow.values()), succeeded}
}

describe('pacer', () => {
  test('50 orders at 10 per 2 s (the sandbox limiter) take close to the floor of 8 s, with one 429', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer({clock, expectedLimit: 10})
    const r = await simulate({clock, concurrency: 4, count: 50, limiter: sandboxLimiter(clock, 10, 2), pacer})
    expect(r.succeeded).toHaveLength(50)
    expect(r.limited).toHaveLength(1)
    expect(r.elapsed).toBeGreaterThanOrEqual(8000)
    expect(r.elapsed).toBeLessThanOrEqual(8000 * 1.15)
    expect(pacer.limit).toBe(10)
    expect(pacer.windowMs).toBeGreaterThanOrEqual(2000)
  })

  test('without the documented limit, the first window may see one 429 per worker, and none after', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer({clock})
    const limiter = sandboxLimiter(clock, 10, 2)
    const r = await simulate({clock, concurrency: 4, count: 50, limiter, pacer})
    expect(r.succeeded).toHaveLength(50)
    expect(r.limited.length).toBeLessThanOrEqual(4)
    expect(r.limited.every((t) => limiter.windowOf(t) === 1)).toBe(true)
    expect(r.elapsed).toBeLessThanOrEqual(8000 * 1.15)
  })

  test('a sliding-window limiter: at most one 429 per window, near the floor', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer({clock, expectedLimit: 10})
    const r = await simulate({clock, concurrency: 4, count: 50, limiter: slidingLimiter(10, 2000), pacer})
    expect(r.succeeded).toHaveLength(50)
    expect(r.maxPerWindow).toBeLessThanOrEqual(1)
    expect(r.elapsed).toBeLessThanOrEqual(8000 * 1.15)
  })

  test('windows aligned on the clock, the import starting mid-window: it relearns the window with one 429 per window', async () => {
    const clock = new FakeClock(1500)
    const pacer = new Pacer({clock, expectedLimit: 10})
    const r = await simulate({clock, concurrency: 4, count: 50, limiter: alignedLimiter(10, 2000), pacer})
    expect(r.succeeded).toHaveLength(50)
    expect(r.maxPerWindow).toBeLessThanOrEqual(1)
    // The floor from 1.5 s: windows open at 2, 4, 6 and 8 s.
    expect(clock.now()).toBeLessThanOrEqual(8000 + 6500 * 0.15)
    expect(pacer.windowMs).toBeGreaterThanOrEqual(2000)
  })

  test('a documented limit larger than the real one still ends with one 429 in the first window', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer({clock, expectedLimit: 10})
    const r = await simulate({clock, concurrency: 4, count: 30, limiter: sandboxLimiter(clock, 6, 2), pacer})
    expect(r.succeeded).toHaveLength(30)
    expect(pacer.limit).toBe(6)
    expect(r.maxPerWindow).toBeLessThanOrEqual(4)
  })

  test('no limit met: requests are never held back', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer({clock})
    const r = await simulate({clock, concurrency: 4, count: 100, limiter: {take: () => ({ok: true}), windowOf: () => 0}, pacer})
    expect(r.limited).toHaveLength(0)
    expect(r.elapsed).toBe(100) // 25 rounds of 4 ms
  })

  test('a lone request whose peers never report back goes anyway after the settle timeout', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer({clock, expectedLimit: 1, settleTimeoutMs: 500})
    await clock.run(pacer.acquire()) // granted, never reported (a client that does not call onSuccess/onError)
    await clock.run(pacer.acquire())
    expect(clock.now()).toBe(500)
  })

  test('onRateLimited pauses every worker until Retry-After passes', async () => {
    const clock = new FakeClock()
    const pacer = new Pacer({clock})
    await clock.run(pacer.acquire())
    pacer.onRateLimited(3000)
    expect(pacer.resumesAt).toBe(3000)
    const times: number[] = []
    await clock.run(
      Promise.all(
        [1, 2, 3].map(async () => {
          await pacer.acquire()
          times.push(clock.now())
          pacer.onSuccess()
        }),
      ),
    )
    expect(times.every((t) => t >= 3000)).toBe(true)
    expect(pacer.resumesAt).toBeUndefined()
  })
})
