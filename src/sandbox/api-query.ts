/** What the operations of api.ts read from a request's query, and the errors and headers they share. */
import {hasErrors, validateListQuery} from '../domain/validate.js'
import {DEFAULT_PER_PAGE} from './decisions.js'
import {HttpError, validationError} from './http.js'
import type {RateLimiter} from './rate-limit.js'

export function limited(limiter: RateLimiter, subject: string, what: string): Record<string, string> {
  const r = limiter.take(subject)
  if (!r.ok) {
    throw new HttpError(429, `Too many ${what}; retry in ${r.retryAfterSeconds} s`, undefined, {
      'ratelimit-limit': String(limiter.max),
      'ratelimit-remaining': '0',
      'ratelimit-reset': String(r.retryAfterSeconds),
      'retry-after': String(r.retryAfterSeconds),
    })
  }
  return {'ratelimit-limit': String(limiter.max), 'ratelimit-remaining': String(r.remaining), 'ratelimit-reset': String(r.resetSeconds)}
}

/**
 * Query integers as numbers when they look like integers, else the raw text (so the 422 message shows it). The
 * spec's `integer` has no bound: one past what a number holds exactly is the largest that does (a page past the
 * end, an id no record has), never refused as "not an integer".
 */
export function intParam(query: URLSearchParams, name: string): number | string | undefined {
  const raw = query.get(name)
  if (raw === null) return undefined
  if (!/^-?\d+$/.test(raw)) return raw
  const n = Number(raw)
  return Number.isSafeInteger(n) ? n : n > 0 ? Number.MAX_SAFE_INTEGER : raw
}

export function paging(query: URLSearchParams, extra: Record<string, unknown>, statuses?: readonly string[]) {
  const q = {page: intParam(query, 'page'), per_page: intParam(query, 'per_page'), ...extra}
  const errors = validateListQuery(q, statuses)
  if (hasErrors(errors)) throw validationError(errors)
  return {page: (q.page as number | undefined) ?? 1, perPage: (q.per_page as number | undefined) ?? DEFAULT_PER_PAGE}
}

export function optional(query: URLSearchParams, name: string): string | undefined {
  return query.get(name) ?? undefined
}

export function notFound(kind: string, raw: string): HttpError {
  return new HttpError(404, `No ${kind} has id ${JSON.stringify(raw)}`)
}
