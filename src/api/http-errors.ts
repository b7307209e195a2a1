/**
 * Turning an HTTP error response into a typed error, whatever the body looks like: the service documents only
 * its 422 body, and a real deployment (or a proxy in front of it) may answer JSON with `message`, JSON with
 * `error.message`, an `errors` list, HTML, plain text or nothing at all.
 */
import type {FieldErrors} from '../domain/validate.js'
import {ApiError, CliError, exitCodeForStatus} from '../errors.js'
import {isObject} from '../domain/json.js'
import type {Text} from '../domain/phrase.js'

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Request body too large',
  415: 'Unsupported media type',
  422: 'Validation failed',
  429: 'Too many requests',
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
}

function firstString(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === 'string' && v.trim() !== '') return v.trim()
  return undefined
}

/** Field errors from `{errors: {field: [..]|".."}}`, `{error: {errors: ...}}` or `{errors: [{field, message}]}`. */
function fieldErrorsOf(body: Record<string, unknown>): FieldErrors | undefined {
  const raw = body.errors ?? (isObject(body.error) ? body.error.errors : undefined)
  const out: FieldErrors = {}
  if (isObject(raw)) {
    for (const [field, value] of Object.entries(raw)) {
      const messages = (Array.isArray(value) ? value : [value]).filter((m) => typeof m === 'string' || typeof m === 'number')
      if (messages.length > 0) out[field] = messages.map(String)
    }
  } else if (Array.isArray(raw)) {
    for (const item of raw) {
      if (!isObject(item)) continue
      const field = firstString(item.field, item.param, item.name, item.path) ?? 'request'
      const message = firstString(item.message, item.detail, item.msg)
      if (message) (out[field] ??= []).push(message)
    }
  }
  return Object.keys(out).length > 0 ? out : undefined
}

/** The best human message a body offers, or undefined. */
export function messageOf(body: unknown): string | undefined {
  if (isObject(body)) {
    const error = body.error
    return firstString(body.message, isObject(error) ? error.message : error, body.detail, body.title, body.error_description)
  }
  if (typeof body === 'string') {
    const title = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(body)?.[1]
    if (title) return title.trim()
    const text = body.trim()
    if (text && !text.startsWith('<') && text.length <= 300) return text.split('\n')[0]
  }
  return undefined
}

export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? (status >= 500 ? 'Server error' : `HTTP ${status}`)
}

/** The CLI's own words for a status (and the request, when known): what the service did, never what its body claims. */
export function statusMessage(status: number, request?: string): string {
  const text = statusText(status)
  const what = request === undefined ? '' : `: ${request}`
  if (status === 404) return `Not found (HTTP 404)${what}.`
  if (status >= 500) return `The service failed: ${text} (HTTP ${status})${what}.`
  return `The service refused the request: ${text} (HTTP ${status})${what}.`
}

/**
 * A typed error for a non-2xx response: the message the CLI's own (statusMessage), the body's words kept apart as
 * `serviceMessage`, its field errors as they are. `retryAfter` is only descriptive here; retries are the client's job.
 */
export function errorFromResponse(status: number, body: unknown, request?: string): ApiError {
  const fieldErrors = isObject(body) ? fieldErrorsOf(body) : undefined
  return new ApiError(status, statusMessage(status, request), {
    body,
    exitCode: exitCodeForStatus(status),
    fieldErrors,
    serviceMessage: messageOf(body),
  })
}

/** An unexpected 3xx: redirects are not followed (a bearer token must not travel to another host). */
export function redirectError(status: number, location: string | undefined): CliError {
  return new CliError(`Unexpected redirect (HTTP ${status}${location ? ` to ${location}` : ''}); redirects are not followed. Check the base URL.`, {
    status,
  })
}

/** A 2xx body that is a JSON object (a resource). */
export function isResource(body: unknown): body is Record<string, unknown> {
  return isObject(body)
}

/**
 * A 2xx response whose body is not the resource expected (empty, text, an array...): exit 1, said plainly,
 * instead of failing later on a missing field. `hint` says what to do, e.g. how to check whether it took effect.
 */
export function unexpectedResponse(status: number, body: unknown, expected: string, hint?: Text): CliError {
  const got =
    body === undefined
      ? 'an empty body'
      : typeof body === 'string'
        ? 'a body that is not JSON'
        : Array.isArray(body)
          ? 'a JSON array'
          : `JSON ${body === null ? 'null' : typeof body}`
  return new CliError(`Unexpected response (HTTP ${status}): expected ${expected}, got ${got}.`, {code: 'unexpected_response', hint})
}

/** The resource object of a response, or `unexpectedResponse`. */
export function resourceOf<T>(res: {status: number; body: unknown}, expected: string, hint?: Text): T {
  if (isObject(res.body)) return res.body as T
  throw unexpectedResponse(res.status, res.body, expected, hint)
}
