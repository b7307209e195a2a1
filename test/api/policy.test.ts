/**
 * The request policy (src/api/policy.ts), one block per row of docs/output.md's "Retries" table, and the wrappers
 * that carry it out (src/api/wrappers.ts) around a scripted exchange, with an injected clock and sleep.
 */
import {describe, expect, it} from 'vitest'

import {
  type Attempt,
  type PolicyInput,
  type RetryState,
  advance,
  backoffMs,
  decide,
  initialState,
  isRedirect,
  mayHaveBeenSent,
  parseRetryAfter,
  shouldRenew,
} from '../../src/api/policy.js'
import {type Handler, type RawResponse, type RequestGate, compose, gated, newCall, renewing, retrying} from '../../src/api/wrappers.js'
import {RateLimitError} from '../../src/errors.js'

const NOW = Date.parse('2026-01-01T00:00:00Z')
const GET: PolicyInput = {idempotent: true, loopback: false, maxWaitMs: 120_000, now: NOW, random: 0}
const POST: PolicyInput = {...GET, idempotent: false}
const answer = (status: number, retryAfter?: string): Attempt => ({kind: 'answer', retryAfter, status})
const noAnswer = (cause: 'deadline' | 'other' | 'refused' = 'other'): Attempt => ({cause, kind: 'no-answer'})

/** Applies `decide` until it settles or gives up; returns the decisions taken. */
function play(attempts: Attempt[], input: PolicyInput) {
  let state: RetryState = initialState()
  const decisions = []
  for (const attempt of attempts) {
    const d = decide(attempt, state, input)
    decisions.push(d)
    if (d.action === 'settle' || d.action === 'give-up') break
    state = advance(state, d)
  }
  return decisions
}

describe('row "429 Too Many Requests": wait Retry-After and retry, every method, 3 retries, within --max-wait', () => {
  it('waits the Retry-After in seconds (a fraction too), or until an HTTP date, for GET and POST alike', () => {
    for (const input of [GET, POST]) {
      expect(decide(answer(429, '2'), initialState(), input)).toEqual({action: 'wait', of: 3, retry: 1, waitMs: 2000})
      expect(decide(answer(429, '0.5'), initialState(), input)).toMatchObject({action: 'wait', waitMs: 500})
      expect(decide(answer(429, 'Thu, 01 Jan 2026 00:00:20 GMT'), initialState(), input)).toMatchObject({action: 'wait', waitMs: 20_000})
    }
  })

  it('no or an unreadable Retry-After: 1 s; a date in the past: at once', () => {
    expect(decide(answer(429), initialState(), GET)).toMatchObject({action: 'wait', waitMs: 1000})
    expect(decide(answer(429, 'soon'), initialState(), GET)).toMatchObject({action: 'wait', waitMs: 1000})
    expect(decide(answer(429, 'Wed, 31 Dec 2025 23:00:00 GMT'), initialState(), GET)).toMatchObject({action: 'wait', waitMs: 0})
  })

  it('after 3 retries, gives up (exit 5) however short the wait', () => {
    const decisions = play([answer(429, '0'), answer(429, '0'), answer(429, '0'), answer(429, '0')], GET)
    expect(decisions.map((d) => d.action)).toEqual(['wait', 'wait', 'wait', 'give-up'])
    expect(decisions[3]).toMatchObject({exhausted: true})
  })

  it('gives up at once when the next wait would pass --max-wait, counting the waits so far', () => {
    expect(decide(answer(429, '5'), initialState(), {...GET, maxWaitMs: 0})).toMatchObject({
      action: 'give-up',
      exhausted: false,
      retryAfterGiven: true,
      waitMs: 5000,
    })
    expect(decide(answer(429), initialState(), {...GET, maxWaitMs: 500})).toMatchObject({action: 'give-up', retryAfterGiven: false})
    const decisions = play([answer(429, '60'), answer(429, '61')], GET)
    expect(decisions.map((d) => d.action)).toEqual(['wait', 'give-up'])
    expect(decisions[1]).toMatchObject({waitedMs: 60_000, waitMs: 61_000})
    // Exactly at the bound is still within it.
    expect(play([answer(429, '60'), answer(429, '60')], GET).map((d) => d.action)).toEqual(['wait', 'wait'])
  })

  it('Retry-After values: seconds or an HTTP date, anything else unreadable', () => {
    expect(parseRetryAfter('30', NOW)).toBe(30_000)
    expect(parseRetryAfter(' 1.5 ', NOW)).toBe(1500)
    for (const v of [undefined, '', 'soon', '-1', '2 5', '30s']) expect(parseRetryAfter(v, NOW), String(v)).toBeUndefined()
  })
})

describe('row "network error or 5xx": backoff 0.5 s doubling with jitter, at most 5 s, 2 retries, idempotent requests only', () => {
  it('GET, DELETE and a request marked idempotent (v2 order create) are retried twice, then settle', () => {
    for (const failure of [answer(500), answer(503), noAnswer('other')]) {
      const decisions = play([failure, failure, failure], GET)
      expect(decisions.map((d) => d.action)).toEqual(['backoff', 'backoff', 'settle'])
      expect(decisions[0]).toEqual({action: 'backoff', of: 2, retry: 1, waitMs: 500})
      expect(decisions[1]).toEqual({action: 'backoff', of: 2, retry: 2, waitMs: 1000})
    }
  })

  it('the backoff: 0.5 s, 1 s, 2 s… plus up to half again of jitter, never more than 5 s', () => {
    expect([0, 1, 2, 3, 4].map((n) => backoffMs(n, 0))).toEqual([500, 1000, 2000, 4000, 5000])
    expect(backoffMs(0, 0.999)).toBe(750)
    expect(backoffMs(1, 0.5)).toBe(1250)
    expect(backoffMs(3, 0.999)).toBe(5000)
  })

  it('429s and 5xx keep separate budgets', () => {
    const decisions = play([answer(503), answer(429, '0'), answer(503), answer(429, '0'), answer(503)], GET)
    expect(decisions.map((d) => d.action)).toEqual(['backoff', 'wait', 'backoff', 'wait', 'settle'])
  })

  it('a refused connection to a host that is not loopback is retried like any network error', () => {
    expect(decide(noAnswer('refused'), initialState(), GET)).toMatchObject({action: 'backoff'})
  })
})

describe('row "network error or 5xx on any other POST or PATCH": never retried', () => {
  it('settles at once: the outcome is unknown', () => {
    for (const failure of [answer(500), answer(502), noAnswer('other'), noAnswer('refused')])
      expect(decide(failure, initialState(), POST)).toEqual({action: 'settle'})
  })

  it('but a refused connection is known not to have been sent', () => {
    expect(mayHaveBeenSent(noAnswer('refused'))).toBe(false)
    expect(mayHaveBeenSent(noAnswer('other'))).toBe(true)
    expect(mayHaveBeenSent(noAnswer('deadline'))).toBe(true)
    expect(mayHaveBeenSent(answer(500))).toBe(true)
  })
})

describe('row "401 on a cached token": a new token once, the request repeated once', () => {
  it('only for a 401, with a token sent that can be renewed, and only once', () => {
    const ok = {canRenew: true, renewedAlready: false, tokenSent: true}
    expect(shouldRenew(401, ok)).toBe(true)
    expect(shouldRenew(403, ok)).toBe(false)
    expect(shouldRenew(401, {...ok, renewedAlready: true})).toBe(false)
    expect(shouldRenew(401, {...ok, tokenSent: false})).toBe(false)
    expect(shouldRenew(401, {...ok, canRenew: false})).toBe(false)
  })
})

describe('row "redirect": not followed', () => {
  it('every 3xx is a redirect the client refuses; 2xx and 4xx are not', () => {
    expect([301, 302, 303, 307, 308].every(isRedirect)).toBe(true)
    expect([200, 204, 400, 404].some(isRedirect)).toBe(false)
    expect(decide(answer(302), initialState(), GET)).toEqual({action: 'settle'})
  })
})

describe('rows "no complete response within COMMERCE_HTTP_TIMEOUT" and "nothing listening on loopback": never retried', () => {
  it('a deadline passed settles at once, for GET too', () => {
    expect(decide(noAnswer('deadline'), initialState(), GET)).toEqual({action: 'settle'})
  })

  it('a refused connection to loopback settles at once (the local sandbox is not running)', () => {
    expect(decide(noAnswer('refused'), initialState(), {...GET, loopback: true})).toEqual({action: 'settle'})
    expect(decide(noAnswer('other'), initialState(), {...GET, loopback: true})).toMatchObject({action: 'backoff'})
  })
})

describe('the wrappers carry the policy out', () => {
  const res = (status: number, headers: Record<string, string> = {}): RawResponse => ({body: {status}, headers, status})

  function scripted(steps: Array<Error | RawResponse>) {
    const seen: Array<string | undefined> = []
    const handler: Handler = async (call) => {
      seen.push(call.token)
      const step = steps[seen.length - 1]
      if (step === undefined) throw new Error('no more steps')
      if (step instanceof Error) throw step
      return step
    }
    return {handler, seen}
  }

  function retryOptions(input: Partial<Parameters<typeof retrying>[0]> = {}) {
    const slept: number[] = []
    let now = NOW
    return {
      options: {
        classify: (e: unknown) => (e instanceof RateLimitError ? undefined : ({cause: 'other', kind: 'no-answer'} as const)),
        describe: () => 'network error',
        idempotent: true,
        loopback: false,
        maxWaitSeconds: 120,
        now: () => now,
        random: () => 0,
        async sleep(ms: number) {
          slept.push(ms)
          now += ms
        },
        ...input,
      },
      slept,
    }
  }

  it('retrying: backs off after 5xx and no answer, then returns the answer', async () => {
    const {handler} = scripted([res(503), Object.assign(new Error('reset'), {code: 'ECONNRESET'}), res(200)])
    const {options, slept} = retryOptions()
    expect((await retrying(options)(handler)(newCall())).status).toBe(200)
    expect(slept).toEqual([500, 1000])
  })

  it('retrying: a POST settles with the first 5xx; the last error is thrown as is', async () => {
    const {options, slept} = retryOptions({idempotent: false})
    expect((await retrying(options)(scripted([res(500)]).handler)(newCall())).status).toBe(500)
    const failure = new Error('reset')
    await expect(retrying(options)(scripted([failure]).handler)(newCall())).rejects.toBe(failure)
    expect(slept).toEqual([])
  })

  it('retrying: 429s waited out with a status shown and ended, then exit 5 naming when to try again', async () => {
    const shown: string[] = []
    let ended = 0
    const {options, slept} = retryOptions({
      onWait(status) {
        shown.push(status())
        return () => ended++
      },
    })
    const limited = res(429, {'retry-after': '2'})
    const error = await retrying(options)(scripted([limited, limited, limited, limited]).handler)(newCall()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RateLimitError)
    expect((error as RateLimitError).exitCode).toBe(5)
    expect((error as RateLimitError).message).toBe('Rate limited (HTTP 429): still rate limited after 3 retries.')
    expect((error as RateLimitError).hint).toBe('Try again after 2026-01-01T00:00:08.000Z (in 2 s).')
    expect(slept).toEqual([2000, 2000, 2000])
    expect(shown).toEqual([
      'Rate limited; retrying in 2 s (retry 1 of 3)',
      'Rate limited; retrying in 2 s (retry 2 of 3)',
      'Rate limited; retrying in 2 s (retry 3 of 3)',
    ])
    expect(ended).toBe(3)
  })

  it('retrying: the 429 status counts down as the clock moves', async () => {
    let clock = NOW
    const seen: string[] = []
    const {options} = retryOptions({
      now: () => clock,
      onWait(status) {
        seen.push(status())
        clock += 1500
        seen.push(status())
        clock += 1500
        seen.push(status())
        return () => {}
      },
      async sleep() {},
    })
    await retrying(options)(scripted([res(429, {'retry-after': '3'}), res(200)]).handler)(newCall())
    expect(seen).toEqual([
      'Rate limited; retrying in 3 s (retry 1 of 3)',
      'Rate limited; retrying in 2 s (retry 1 of 3)',
      'Rate limited; retrying in 0 s (retry 1 of 3)',
    ])
  })

  it('renewing: one new token after a 401, the request repeated once with it; a second 401 is final', async () => {
    const {handler, seen} = scripted([res(401), res(401), res(200)])
    const renewed: string[] = []
    const wrapped = renewing({
      async renew(stale) {
        renewed.push(stale)
        return 'fresh'
      },
    })(handler)
    expect((await wrapped(newCall('stale'))).status).toBe(401)
    expect(seen).toEqual(['stale', 'fresh'])
    expect(renewed).toEqual(['stale'])
  })

  it('renewing: a source that cannot renew (a static token) leaves the 401 as it is', async () => {
    const {handler, seen} = scripted([res(401)])
    expect((await renewing({})(handler)(newCall('static'))).status).toBe(401)
    expect(seen).toEqual(['static'])
  })

  it('gated: acquire before each attempt, then exactly one of onSuccess, onRateLimited (with the wait), onError', async () => {
    const events: string[] = []
    const gate: RequestGate = {
      async acquire() {
        events.push('acquire')
      },
      onError: () => events.push('error'),
      onRateLimited: (ms) => events.push(`limited ${ms}`),
      onSuccess: () => events.push('success'),
    }
    const {options} = retryOptions()
    const {handler} = scripted([res(429, {'retry-after': '3'}), new Error('reset'), res(404)])
    const policy = compose(
      retrying(options),
      gated(gate, () => NOW),
    )
    expect((await policy(handler)(newCall())).status).toBe(404)
    expect(events).toEqual(['acquire', 'limited 3000', 'acquire', 'error', 'acquire', 'success'])
  })

  it('compose: a renewal does not restart the retry budget (one Call per request)', async () => {
    const {options, slept} = retryOptions()
    const {handler, seen} = scripted([res(503), res(401), res(503), res(503), res(200)])
    const policy = compose(renewing({renew: async () => 'fresh'}), retrying(options))
    // 503 (retry 1), 401 -> renewed, 503 (retry 2), 503: the budget of 2 is spent, so that answer is final.
    expect((await policy(handler)(newCall('stale'))).status).toBe(503)
    expect(seen).toEqual(['stale', 'stale', 'fresh', 'fresh'])
    expect(slept).toEqual([500, 1000])
  })
})
