/**
 * The one HTTP client (undici, a pooled dispatcher that honours HTTP(S)_PROXY/NO_PROXY).
 *
 * It owns: URL building (`{base}/api/{version}{path}`), the contract's headers, JSON bodies, typed errors,
 * the retry rules, the token (attach, and on a 401 renew once and repeat once), the --debug trace with
 * redaction, and the deprecation notices. Retry rules (cli-contract.md, "Requests"):
 * - 429: wait Retry-After (seconds or HTTP date) and retry, for every method (nothing was created), up to 3
 *   retries and `maxWaitSeconds` of waiting in all; if the next wait would pass the bound, fail at once (exit 5).
 * - network error or 5xx: retried (backoff from 0.5 s doubling with jitter, at most 5 s; 2 retries) only when
 *   the request is idempotent: GET, DELETE, or a request that says so (v2 order creation with its
 *   Idempotency-Key). Any other POST/PATCH is never retried: its outcome is unknown.
 * Redirects are not followed.
 */
import type {Dispatcher} from 'undici'

import {type ApiVersion, type HttpMethod, V1_SUNSET_DATE} from '../domain/schema.js'
import {ApiError, CliError, NetworkError, RateLimitError} from '../errors.js'
import {errorFromResponse, redirectError, statusText} from './errors.js'
import {redactBody, redactHeaders} from './redact.js'
import {checkBaseUrl, checkHeaderValue, checkRequestPath} from './url.js'

export interface TokenSource {
  /** A token to send, issuing one when needed. Throws AuthError when there are no credentials. */
  getToken(client: ApiClient): Promise<string>
  /** After a 401 with `stale`: a fresh token, or undefined when this source cannot renew (static token). */
  renew(client: ApiClient, stale: string): Promise<string | undefined>
}

/**
 * A shared pacer (bulk imports): waits before each request, learns from 429s. After each `acquire()` exactly
 * one of: `onSuccess()` (any answer but a 429: the request counted), `onRateLimited()`, `onError()` (no answer).
 */
export interface Pacer {
  acquire(): Promise<void>
  onRateLimited(retryAfterMs: number): void
  onSuccess(): void
  onError(): void
}

export interface ClientOptions {
  baseUrl: string
  apiVersion: ApiVersion
  userAgent: string
  tokens?: TokenSource
  /** --max-wait: the bound on time spent waiting for 429s, in seconds. */
  maxWaitSeconds?: number
  /** COMMERCE_HTTP_TIMEOUT: the deadline of one whole exchange (connection, headers and body), in ms. Default 30 s. */
  timeoutMs?: number
  /** The most bytes a response body may have (COMMERCE_HTTP_MAX_BYTES); default 16 MiB. */
  maxResponseBytes?: number
  /** Plain http:// to a host that is not loopback is allowed (--allow-insecure-http, `allow_insecure_http`). */
  allowInsecureHttp?: boolean
  /** --debug trace lines (already redacted). */
  debug?: (line: string) => void
  /** Warnings shown once per process (deprecation). */
  warnOnce?: (key: string, text: string) => void
  /** The v2 command to name in the v1 deprecation warning. */
  v2Hint?: string
  /** Called while waiting on a 429: returns a function that ends the status display. */
  onWait?: (text: string) => () => void
  pacer?: Pacer
  /** Injectable for tests. */
  sleep?: (ms: number) => Promise<void>
  now?: () => number
  random?: () => number
  dispatcher?: Dispatcher
}

export type Query = Record<string, boolean | number | string | undefined>

export interface ApiRequest {
  method: HttpMethod
  /** Path after `/api/{version}`, e.g. `/customers/12`; or a full path starting with `/api/` (raw `api` command). */
  path: string
  version?: ApiVersion
  query?: Query
  body?: unknown
  /** A JSON body sent byte for byte as given (`api --input`), instead of `body`. */
  rawBody?: string
  headers?: Record<string, string>
  /** Send the bearer token. `'optional'` sends it when credentials exist (raw `api` command). */
  auth: 'optional' | boolean
  /** Safe to repeat after a network error or 5xx. Defaults to true for GET and DELETE only. */
  idempotent?: boolean
}

export interface ApiResponse<T = unknown> {
  status: number
  headers: Record<string, string>
  body: T
}

const MAX_429_RETRIES = 3
const MAX_TRANSIENT_RETRIES = 2
const BACKOFF_BASE_MS = 500
const BACKOFF_CAP_MS = 5000
export const DEFAULT_TIMEOUT_MS = 30_000
/**
 * 16 MiB: a page holds at most 100 records (a customer or an order is well under 10 KiB), so this is over a
 * hundred times the largest page; and the CLI stays under 100 MB of memory against a server that streams without
 * end (about 87 MB measured; with 32 MiB it was 109 MB). COMMERCE_HTTP_MAX_BYTES raises it.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024

/** The whole exchange passed COMMERCE_HTTP_TIMEOUT: never retried (that would multiply the wait the user set). */
class DeadlineExceeded extends Error {
  readonly code = 'COMMERCE_DEADLINE'
  constructor(readonly timeoutMs: number) {
    super(`no complete response within ${timeoutMs / 1000} s`)
  }
}

/** `32 MiB`, `1.5 KiB`, `12 bytes`. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${+(n / 1024 / 1024).toFixed(1)} MiB`
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB`
  return `${n} bytes`
}

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

function describeNetworkError(error: unknown): string {
  const e = error as NodeJS.ErrnoException & {cause?: NodeJS.ErrnoException}
  const code = e?.code ?? e?.cause?.code
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    ENOTFOUND: 'host not found',
    ETIMEDOUT: 'connection timed out',
    UND_ERR_BODY_TIMEOUT: 'timed out reading the response',
    UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
    UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the response',
    UND_ERR_SOCKET: 'the connection closed before the response was complete',
  }
  if (error instanceof DeadlineExceeded) return `timed out: ${error.message} (COMMERCE_HTTP_TIMEOUT)`
  return (code && known[code]) ?? e?.message ?? String(error)
}

export class ApiClient {
  readonly baseUrl: string
  readonly apiVersion: ApiVersion
  private dispatcher?: Dispatcher
  private readonly sleep: (ms: number) => Promise<void>
  private readonly now: () => number
  private readonly random: () => number
  private baseUrlChecked = false

  constructor(readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.apiVersion = options.apiVersion
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)))
    this.now = options.now ?? Date.now
    this.random = options.random ?? Math.random
    this.dispatcher = options.dispatcher
  }

  url(path: string, version: ApiVersion, query?: Query): string {
    const full = path.startsWith('/api/') ? path : `/api/${version}${path}`
    const url = new URL(this.baseUrl + full)
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
    return url.toString()
  }

  async request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>> {
    // Before anything is sent: the base URL, the path and every header value (exit 2, no retry).
    if (!this.baseUrlChecked) {
      checkBaseUrl(this.options.baseUrl, {allowInsecureHttp: this.options.allowInsecureHttp})
      this.baseUrlChecked = true
    }
    checkRequestPath(req.path)
    for (const [name, value] of Object.entries(req.headers ?? {})) checkHeaderValue(`the ${name} header`, value)
    const version = req.version ?? this.apiVersion
    const url = this.url(req.path, version, req.query)
    const idempotent = req.idempotent ?? (req.method === 'GET' || req.method === 'DELETE')
    const isV1 = req.path.startsWith('/api/v1/') || (!req.path.startsWith('/api/') && version === 'v1')
    if (isV1) this.warnV1()

    let token = req.auth === false ? undefined : await this.tokenFor(req.auth)
    if (token !== undefined) checkHeaderValue('the access token', token)
    let renewed = false
    let rateRetries = 0
    let transientRetries = 0
    let waitedMs = 0

    for (;;) {
      await this.options.pacer?.acquire()
      let res: {status: number; headers: Record<string, string>; body: unknown}
      try {
        res = await this.send(req, url, token)
      } catch (error) {
        this.options.pacer?.onError()
        if (error instanceof CliError) throw error
        if (idempotent && !(error instanceof DeadlineExceeded) && transientRetries < MAX_TRANSIENT_RETRIES) {
          await this.backoff(transientRetries++, `network error (${describeNetworkError(error)})`)
          continue
        }
        throw this.networkError(error, idempotent, req)
      }

      if (res.status !== 429) this.options.pacer?.onSuccess()
      this.noticeDeprecation(res.headers, isV1)
      if (res.status < 300) return res as ApiResponse<T>
      if (res.status < 400) throw redirectError(res.status, res.headers.location)

      if (res.status === 429) {
        const retryAfter = parseRetryAfter(res.headers['retry-after'], this.now())
        // No (readable) Retry-After: wait 1 s.
        const waitMs = retryAfter ?? 1000
        this.options.pacer?.onRateLimited(waitMs)
        const retryAt = new Date(this.now() + waitMs)
        const maxWait = this.options.maxWaitSeconds ?? 120
        const exhausted = rateRetries >= MAX_429_RETRIES
        if (exhausted || waitedMs + waitMs > maxWait * 1000) {
          const seconds = Math.ceil(waitMs / 1000)
          const why = exhausted
            ? `still rate limited after ${MAX_429_RETRIES} retries`
            : retryAfter === undefined
              ? `another ${seconds} s wait would pass --max-wait (${maxWait} s)`
              : `the service asks to wait ${seconds} s, which${waitedMs > 0 ? ' with the waits so far' : ''} would pass --max-wait (${maxWait} s)`
          throw new RateLimitError(`Rate limited (HTTP 429): ${why}.`, {
            body: res.body,
            hint: `Try again after ${retryAt.toISOString()} (in ${seconds} s)${exhausted ? '' : ', or raise --max-wait'}.`,
            retryAt,
          })
        }
        rateRetries++
        waitedMs += waitMs
        const done = this.options.onWait?.(`Rate limited; retrying in ${Math.ceil(waitMs / 1000)} s (retry ${rateRetries} of ${MAX_429_RETRIES})`)
        this.options.debug?.(`* 429: waiting ${waitMs} ms before retry ${rateRetries}`)
        try {
          await this.sleep(waitMs)
        } finally {
          done?.()
        }
        continue
      }

      if (res.status >= 500 && idempotent && transientRetries < MAX_TRANSIENT_RETRIES) {
        await this.backoff(transientRetries++, `HTTP ${res.status}`)
        continue
      }

      if (res.status === 401 && token !== undefined && !renewed && this.options.tokens) {
        renewed = true
        const fresh = await this.options.tokens.renew(this, token)
        if (fresh) {
          this.options.debug?.('* 401: issued a new token, repeating the request once')
          checkHeaderValue('the access token', fresh)
          token = fresh
          continue
        }
      }
      throw this.httpError(res.status, res.body, req)
    }
  }

  /** Closes pooled connections so the process can exit at once. */
  async close(): Promise<void> {
    await this.dispatcher?.close()
  }

  private async tokenFor(auth: 'optional' | true): Promise<string | undefined> {
    if (!this.options.tokens) {
      if (auth === 'optional') return undefined
      throw new CliError('No credentials configured.', {exitCode: 3})
    }
    if (auth === true) return this.options.tokens.getToken(this)
    try {
      return await this.options.tokens.getToken(this)
    } catch (error) {
      if (error instanceof CliError && error.exitCode === 3 && error.status === null) return undefined
      throw error
    }
  }

  private async getDispatcher(): Promise<Dispatcher> {
    if (!this.dispatcher) {
      const {EnvHttpProxyAgent} = await import('undici')
      // Gaps between chunks are bounded too (undici's timeouts), beside the deadline of the whole exchange in `send`.
      const timeout = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS
      this.dispatcher = new EnvHttpProxyAgent({bodyTimeout: timeout, connections: 16, headersTimeout: timeout, keepAliveTimeout: 4000})
    }
    return this.dispatcher
  }

  private async send(req: ApiRequest, url: string, token: string | undefined) {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent,
      ...lowerKeys(req.headers ?? {}),
    }
    const body = req.rawBody ?? (req.body === undefined ? undefined : JSON.stringify(req.body))
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (token !== undefined) headers.authorization = `Bearer ${token}`

    const debug = this.options.debug
    const started = performance.now()
    if (debug) {
      debug(`> ${req.method} ${url}`)
      for (const [k, v] of Object.entries(redactHeaders(headers))) debug(`> ${k}: ${v}`)
      if (body !== undefined) debug(`> ${redactBody(body)}`)
    }
    const {request} = await import('undici')
    const dispatcher = await this.getDispatcher()
    // One deadline for the whole exchange, body included: a server dripping a byte a second cannot hold it open.
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(new DeadlineExceeded(timeoutMs)), timeoutMs)
    try {
      const res = await request(url, {body, dispatcher, headers, method: req.method, signal: controller.signal})
      const resHeaders: Record<string, string> = {}
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) resHeaders[k] = Array.isArray(v) ? v.join(', ') : v
      if (debug) {
        debug(`< ${res.statusCode} ${statusText(res.statusCode)} (${Math.round(performance.now() - started)} ms)`)
        for (const [k, v] of Object.entries(resHeaders)) debug(`< ${k}: ${v}`)
      }
      const text = await this.readBody(res.body, res.statusCode, resHeaders['content-length'])
      if (debug && text) debug(`< ${redactBody(text)}`)
      return {body: parseBody(text, resHeaders['content-type']), headers: resHeaders, status: res.statusCode}
    } catch (error) {
      if (controller.signal.aborted) throw controller.signal.reason
      throw error
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * The body as text, read while it streams, never more than `maxResponseBytes`: a Content-Length past the bound
   * is refused before reading, a body that goes on is cut there (exit 1, not retried).
   */
  private async readBody(body: AsyncIterable<Buffer> & {destroy(): unknown}, status: number, contentLength: string | undefined): Promise<string> {
    const limit = this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
    const tooLarge = (what: string) => {
      body.destroy()
      return new CliError(
        `The response from ${new URL(this.baseUrl).host} (HTTP ${status}) ${what}, more than the client accepts (${formatBytes(limit)}); it was not read.`,
        {hint: 'If this response is expected, raise the bound with COMMERCE_HTTP_MAX_BYTES (bytes, or e.g. 64MiB); else check the base URL.'},
      )
    }
    if (contentLength !== undefined && /^\d+$/.test(contentLength) && Number(contentLength) > limit)
      throw tooLarge(`announces ${formatBytes(Number(contentLength))} (Content-Length)`)
    // Chunks are kept as they come (each is a buffer of its own, not a slice of a larger one): the peak is the
    // body itself plus the allocator's slack, about 1.4 times the bytes read (test/bench/hostile-server.bench.ts).
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of body) {
      size += chunk.length
      if (size > limit) throw tooLarge('goes on past the bound')
      chunks.push(chunk)
    }
    return Buffer.concat(chunks, size).toString('utf8')
  }

  private async backoff(attempt: number, why: string): Promise<void> {
    // 0.5 s, then 1 s, ... (never less), plus up to half as much again of jitter; never more than 5 s.
    const base = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt)
    const ms = Math.min(BACKOFF_CAP_MS, Math.round(base + (this.random() * base) / 2))
    this.options.debug?.(`* ${why}: retry ${attempt + 1} of ${MAX_TRANSIENT_RETRIES} in ${ms} ms`)
    await this.sleep(ms)
  }

  private networkError(error: unknown, idempotent: boolean, req: ApiRequest): NetworkError {
    const what = describeNetworkError(error)
    const where = new URL(this.baseUrl).host
    if (idempotent) return new NetworkError(`Could not reach the service at ${where}: ${what}.`, {cause: error, hint: 'Check the base URL and your network, then try again.'})
    return new NetworkError(`The ${req.method} request to ${where} failed: ${what}. Its outcome is unknown, so it was not retried.`, {
      cause: error,
      hint: 'Check whether it took effect (for example with a list command) before running it again.',
    })
  }

  private httpError(status: number, body: unknown, req: ApiRequest): ApiError {
    const error = errorFromResponse(status, body)
    if (status >= 500 && !(req.idempotent ?? (req.method === 'GET' || req.method === 'DELETE')))
      return new ApiError(status, `${error.message} (HTTP ${status}). The outcome of this ${req.method} is unknown, so it was not retried.`, {body, fieldErrors: error.fieldErrors, hint: 'Check whether it took effect before running it again.'})
    return error
  }

  private warnV1(): void {
    const use = this.options.v2Hint ? ` Use \`${this.options.v2Hint}\` (v2) instead.` : ' Use API v2 instead.'
    this.options.warnOnce?.('deprecation', `API v1 is deprecated and retired on ${V1_SUNSET_DATE}.${use}`)
  }

  private noticeDeprecation(headers: Record<string, string>, isV1: boolean): void {
    const deprecation = headers.deprecation
    const sunset = headers.sunset
    if (!deprecation && !sunset) return
    if (isV1) return this.warnV1()
    const when = sunset ? ` and will be removed on ${sunset}` : ''
    this.options.warnOnce?.('deprecation', `The service marks this operation as deprecated${when}.${this.options.v2Hint ? ` See \`${this.options.v2Hint}\`.` : ''}`)
  }
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === '') return undefined
  if (contentType?.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  return text
}
