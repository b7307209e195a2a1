/**
 * The request policy, as pure functions: what is retried and how long to wait (docs/output.md, "Retries"; cli-contract.md,
 * "Requests"). No I/O, no clock of its own: the client's wrappers (src/api/wrappers.ts) ask `decide` after each
 * attempt and do what it says. Unit tests: test/api/policy.test.ts, one per row of docs/output.md's table.
 *
 * - 429: wait Retry-After (seconds or an HTTP date; 1 s when absent or unreadable) and retry, for every method
 *   (the service refused the request, so nothing was created), up to 3 retries and `maxWaitMs` of waiting in
 *   all; when the next wait would pass the bound, give up at once (exit 5).
 * - No answer (a network error) or a 5xx: retried with backoff (0.5 s doubling, plus up to half as much again of
 *   jitter, at most 5 s; 2 retries) only when the request is idempotent: GET, DELETE, or one that says so (v2
 *   order creation with its Idempotency-Key). Any other POST/PATCH is never retried: its outcome is unknown.
 * - Never retried: a whole exchange past COMMERCE_HTTP_TIMEOUT (a retry would multiply the wait the user set), and
 *   a refused connection to a loopback host (nothing listens there: the local sandbox is not running).
 * - 401 with a token that can be renewed: a new token once, and the request repeated once (`shouldRenew`).
 */

export const MAX_429_RETRIES = 3
export const MAX_TRANSIENT_RETRIES = 2
export const BACKOFF_BASE_MS = 500
export const BACKOFF_CAP_MS = 5000
/** The wait after a 429 without a readable Retry-After. */
export const DEFAULT_429_WAIT_MS = 1000
export const DEFAULT_MAX_WAIT_SECONDS = 120

/** What one attempt came to. */
export type Attempt =
  | {kind: 'answer'; status: number; retryAfter?: string}
  /** No HTTP answer. `refused`: the connection was refused (nothing sent); `deadline`: COMMERCE_HTTP_TIMEOUT passed. */
  | {kind: 'no-answer'; cause: 'deadline' | 'other' | 'refused'}

/** What the attempts so far used up; `decide` never changes it, the caller applies a decision with `advance`. */
export interface RetryState {
  rateRetries: number
  transientRetries: number
  /** Milliseconds waited on 429s so far. */
  waitedMs: number
}

export interface PolicyInput {
  /** Safe to repeat after no answer or a 5xx. */
  idempotent: boolean
  /** --max-wait in ms: the bound on all 429 waits of one request. */
  maxWaitMs: number
  /** The host is loopback (127.x, localhost, ::1). */
  loopback: boolean
  /** Now, in ms since the epoch (an HTTP-date Retry-After is relative to it). */
  now: number
  /** A number in [0, 1) for the jitter. */
  random: number
}

export type Decision =
  /** The attempt is final: return its answer, or turn it into the error it is. */
  | {action: 'settle'}
  /** A 429 to wait out, then retry (`retry` counts from 1). */
  | {action: 'wait'; waitMs: number; retry: number; of: number}
  /** A 429 that will not be waited out: `exhausted` (3 retries done) or the wait would pass --max-wait. */
  | {action: 'give-up'; waitMs: number; exhausted: boolean; retryAfterGiven: boolean; waitedMs: number}
  /** No answer or a 5xx on an idempotent request: back off, then retry. */
  | {action: 'backoff'; waitMs: number; retry: number; of: number}

export const initialState = (): RetryState => ({rateRetries: 0, transientRetries: 0, waitedMs: 0})

/** Retry-After as milliseconds from `now`: delta seconds or an HTTP date. Undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined
  const v = value.trim()
  // Delta seconds (a fraction is taken too, rather than read as a date by Date.parse's leniency).
  if (/^\d+(?:\.\d+)?$/.test(v)) return Math.ceil(Number(v) * 1000)
  // An HTTP date names its day and month; anything else Date.parse might still read (`-1`, `2 5`) is unreadable.
  const date = /[a-z]/i.test(v) ? Date.parse(v) : Number.NaN
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** The wait before transient retry number `attempt + 1`: 0.5 s, 1 s, 2 s… plus up to half again of jitter, at most 5 s. */
export function backoffMs(attempt: number, random: number): number {
  const base = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt)
  return Math.min(BACKOFF_CAP_MS, Math.round(base + (random * base) / 2))
}

/** Whether a request that is not idempotent may have reached the service (its outcome is then unknown). */
export function mayHaveBeenSent(attempt: Attempt): boolean {
  return !(attempt.kind === 'no-answer' && attempt.cause === 'refused')
}

export function decide(attempt: Attempt, state: RetryState, input: PolicyInput): Decision {
  if (attempt.kind === 'answer' && attempt.status === 429) {
    const retryAfter = parseRetryAfter(attempt.retryAfter, input.now)
    const waitMs = retryAfter ?? DEFAULT_429_WAIT_MS
    const exhausted = state.rateRetries >= MAX_429_RETRIES
    if (exhausted || state.waitedMs + waitMs > input.maxWaitMs)
      return {action: 'give-up', exhausted, retryAfterGiven: retryAfter !== undefined, waitMs, waitedMs: state.waitedMs}
    return {action: 'wait', of: MAX_429_RETRIES, retry: state.rateRetries + 1, waitMs}
  }
  const transient = attempt.kind === 'answer' ? attempt.status >= 500 : attempt.cause === 'other' || (attempt.cause === 'refused' && !input.loopback)
  if (transient && input.idempotent && state.transientRetries < MAX_TRANSIENT_RETRIES)
    return {action: 'backoff', of: MAX_TRANSIENT_RETRIES, retry: state.transientRetries + 1, waitMs: backoffMs(state.transientRetries, input.random)}
  return {action: 'settle'}
}

/** The state after a decision was carried out. */
export function advance(state: RetryState, decision: Decision): RetryState {
  if (decision.action === 'wait') return {...state, rateRetries: state.rateRetries + 1, waitedMs: state.waitedMs + decision.waitMs}
  if (decision.action === 'backoff') return {...state, transientRetries: state.transientRetries + 1}
  return state
}

/** A 401 is answered by renewing the token once and repeating the request once, when a token was sent and can be renewed. */
export function shouldRenew(status: number, input: {tokenSent: boolean; renewedAlready: boolean; canRenew: boolean}): boolean {
  return status === 401 && input.tokenSent && !input.renewedAlready && input.canRenew
}

/** A 3xx is never followed (a bearer token must not travel to another host). */
export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400
}
