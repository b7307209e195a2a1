/**
 * The request policy as small wrappers around the function that makes one exchange (as Octokit's plugins and
 * undici's RetryHandler do). Each takes the next handler and returns one that does a single thing more:
 *
 *   renewing(…)( retrying(…)( gated(…)( exchange ) ) )
 *
 * - `gated`: waits for a shared RequestGate before each attempt and tells it how the attempt went (bulk imports);
 * - `retrying`: asks the pure policy (src/api/policy.ts) after each attempt: wait out a 429, back off after no
 *   answer or a 5xx, give up on a 429 (exit 5), or settle;
 * - `renewing`: on a 401, a new token once and the request repeated once.
 *
 * They share one `Call` per request (the token in use and the retries used up), so a renewal does not restart
 * the retry budget.
 */
import {option, phrase} from '../domain/phrase.js'
import {RateLimitError} from '../errors.js'
import {
  type Attempt,
  type Decision,
  type RetryState,
  DEFAULT_429_WAIT_MS,
  MAX_429_RETRIES,
  advance,
  decide,
  initialState,
  mayHaveBeenSent,
  parseRetryAfter,
  shouldRenew,
} from './policy.js'

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: unknown
}

/** One request's state across its attempts. */
export interface Call {
  /** The bearer token to send, if any. */
  token?: string
  renewed: boolean
  retry: RetryState
  /** An attempt so far may have reached the service (it answered, or the connection failed after it was made). */
  maybeSent?: boolean
}

export const newCall = (token?: string): Call => ({renewed: false, retry: initialState(), token})

export type Handler = (call: Call) => Promise<RawResponse>
export type Wrapper = (next: Handler) => Handler

/**
 * A gate shared by many requests (the bulk engine's pacer): waits before each request, learns from 429s. After
 * each `acquire()` exactly one of: `onSuccess()` (any answer but a 429: the request counted), `onRateLimited()`,
 * `onError()` (no answer).
 */
export interface RequestGate {
  acquire(): Promise<void>
  onRateLimited(retryAfterMs: number): void
  onSuccess(): void
  onError(): void
}

export function gated(gate: RequestGate | undefined, now: () => number): Wrapper {
  if (!gate) return (next) => next
  return (next) => async (call) => {
    await gate.acquire()
    let res: RawResponse
    try {
      res = await next(call)
    } catch (error) {
      gate.onError()
      throw error
    }
    if (res.status === 429) gate.onRateLimited(parseRetryAfter(res.headers['retry-after'], now()) ?? DEFAULT_429_WAIT_MS)
    else gate.onSuccess()
    return res
  }
}

export interface RetryingOptions {
  idempotent: boolean
  /** --max-wait, in seconds. */
  maxWaitSeconds: number
  loopback: boolean
  /** What an exchange that threw came to; undefined for an error that is final as it is (a CliError). */
  classify(error: unknown): Attempt | undefined
  /** Words for the --debug line of a backoff after no answer, e.g. `network error (connection reset)`. */
  describe(error: unknown): string
  now: () => number
  random: () => number
  sleep: (ms: number) => Promise<void>
  /**
   * Shows a status while waiting on a 429; returns the function that ends it. `status()` is the text at the
   * moment it is called (the seconds left count down), for a spinner to redraw.
   */
  onWait?: (status: () => string) => () => void
  /** A backoff after no answer or a 5xx, before retry `retry` of `of`: `why` says what happened. */
  onBackoff?: (why: string, retry: number, of: number) => void
  debug?: (line: string) => void
}

export function retrying(options: RetryingOptions): Wrapper {
  return (next) => async (call) => {
    for (;;) {
      let attempt: Attempt
      let res: RawResponse | undefined
      let failure: unknown
      try {
        res = await next(call)
        attempt = {kind: 'answer', retryAfter: res.headers['retry-after'], status: res.status}
        call.maybeSent = true
      } catch (error) {
        const classified = options.classify(error)
        if (!classified) throw error
        attempt = classified
        failure = error
        if (mayHaveBeenSent(classified)) call.maybeSent = true
      }
      const decision = decide(attempt, call.retry, {
        idempotent: options.idempotent,
        loopback: options.loopback,
        maxWaitMs: options.maxWaitSeconds * 1000,
        now: options.now(),
        random: options.random(),
      })
      if (decision.action === 'settle') {
        if (res) return res
        throw failure
      }
      if (decision.action === 'give-up') throw rateLimitError(decision, res?.body, options)
      call.retry = advance(call.retry, decision)
      await carryOut(decision, res ? `HTTP ${res.status}` : options.describe(failure), options)
    }
  }
}

async function carryOut(decision: Extract<Decision, {action: 'backoff' | 'wait'}>, why: string, options: RetryingOptions): Promise<void> {
  if (decision.action === 'backoff') {
    options.debug?.(`* ${why}: retry ${decision.retry} of ${decision.of} in ${decision.waitMs} ms`)
    options.onBackoff?.(why, decision.retry, decision.of)
    await options.sleep(decision.waitMs)
    return
  }
  const until = options.now() + decision.waitMs
  const done = options.onWait?.(
    () => `Rate limited; retrying in ${Math.max(0, Math.ceil((until - options.now()) / 1000))} s (retry ${decision.retry} of ${decision.of})`,
  )
  options.debug?.(`* 429: waiting ${decision.waitMs} ms before retry ${decision.retry}`)
  try {
    await options.sleep(decision.waitMs)
  } finally {
    done?.()
  }
}

function rateLimitError(decision: Extract<Decision, {action: 'give-up'}>, body: unknown, options: RetryingOptions): RateLimitError {
  const {exhausted, retryAfterGiven, waitMs, waitedMs} = decision
  const maxWait = options.maxWaitSeconds
  const seconds = Math.ceil(waitMs / 1000)
  const retryAt = new Date(options.now() + waitMs)
  const why = exhausted
    ? `still rate limited after ${MAX_429_RETRIES} retries`
    : retryAfterGiven
      ? phrase`the service asks to wait ${seconds} s, which${waitedMs > 0 ? ' with the waits so far' : ''} would pass ${option('maxWait')} (${maxWait} s)`
      : phrase`another ${seconds} s wait would pass ${option('maxWait')} (${maxWait} s)`
  return new RateLimitError(phrase`Rate limited (HTTP 429): ${why}.`, {
    body,
    hint: phrase`Try again after ${retryAt.toISOString()} (in ${seconds} s)${exhausted ? '' : phrase`, or raise ${option('maxWait')}`}.`,
    retryAt,
  })
}

export interface RenewingOptions {
  /** A fresh token after a 401 on `stale`, or undefined when the credentials cannot renew (a static token). */
  renew?: (stale: string) => Promise<string | undefined>
  /** Checks a token before it is sent (throws). */
  check?: (token: string) => void
  debug?: (line: string) => void
}

export function renewing(options: RenewingOptions): Wrapper {
  return (next) => async (call) => {
    for (;;) {
      const res = await next(call)
      if (!shouldRenew(res.status, {canRenew: Boolean(options.renew), renewedAlready: call.renewed, tokenSent: call.token !== undefined})) return res
      call.renewed = true
      const fresh = await options.renew!(call.token!)
      if (!fresh) return res
      options.debug?.('* 401: issued a new token, repeating the request once')
      options.check?.(fresh)
      call.token = fresh
    }
  }
}

/** `compose(a, b, c)(h)` is `a(b(c(h)))`: the first wrapper is the outermost. */
export function compose(...wrappers: Wrapper[]): Wrapper {
  return (handler) => wrappers.reduceRight((next, wrap) => wrap(next), handler)
}
