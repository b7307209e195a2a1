/**
 * The one HTTP client, over the transport transports.ts chooses (Node's own client, or undici's pooled agent that
 * honours HTTP(S)_PROXY/NO_PROXY).
 *
 * It owns: URL building (`{base}/api/{version}{path}`) and the checks made before anything is sent (base URL,
 * path, header values), the contract's headers, JSON bodies, one exchange bounded in time and size, typed
 * errors, the --debug trace with redaction, and the deprecation notices. The request policy (retries, 429 waits,
 * the 401 renewal) is composed around the exchange from src/api/wrappers.ts, and decided by the pure functions
 * of src/api/policy.ts. Redirects are not followed.
 */
import type {ApiVersion} from '../domain/schema.js'
import {capitalize, formatBytes} from '../domain/text.js'
import {isLoopbackHost} from '../domain/url.js'
import {CliError, EXIT, interruptedBy, UsageError} from '../errors.js'
import {httpError, networkError, responseTooLarge} from './client-errors.js'
import {DryRunStop, sendsInDryRun} from './dry-run.js'
import {DeprecationNotices} from './deprecation.js'
import {RequestStatus} from './request-status.js'
import {redirectError, statusText} from './http-errors.js'
import {DEFAULT_MAX_WAIT_SECONDS, isRedirect} from './policy.js'
import {redactBody, redactHeaders} from './redact.js'
import {DeadlineExceeded, classifyFailure, describeNetworkError, errorCode, parseBody, TooDeepError} from './transport.js'
import {exchange} from './exchange.js'
import {NotSendable} from './node-transport.js'
import {Transports} from './transports.js'
import {checkBaseUrl, checkHeaderValue, checkRequestPath, checkResolvedPath} from './base-url.js'
import {ChangeLog} from './changes.js'
import {type Call, type RawResponse, compose, gated, newCall, renewing, retrying} from './wrappers.js'

export {parseRetryAfter} from './policy.js'

import type {ApiRequest, ApiResponse, ClientOptions, Query} from './request.js'

export type {ApiRequest, ApiResponse, ClientOptions, Query, TokenSource} from './request.js'

export const DEFAULT_TIMEOUT_MS = 30_000
/**
 * 8 MiB: a page holds at most 100 records (a customer or an order is well under 10 KiB), so this is eight times
 * the largest page. The peak memory of reading a body is about 1.8 times the bytes read: V8 frees the buffers a
 * socket reads into only when it next collects, whether the body keeps them or not (test/bench/hostile-server.bench.ts).
 * Against a server that streams without end the CLI peaks at about 90 MB with this bound, 105 MB with 16 MiB (the
 * issue's bound is 100 MB). COMMERCE_HTTP_MAX_BYTES raises it.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024
export class ApiClient {
  readonly baseUrl: string
  readonly apiVersion: ApiVersion
  private readonly transports: Transports
  private readonly sleep: (ms: number) => Promise<void>
  private readonly now: () => number
  private readonly random: () => number
  private baseUrlChecked = false
  private readonly deprecation: DeprecationNotices
  private readonly changes?: ChangeLog

  constructor(readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.apiVersion = options.apiVersion
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)))
    this.now = options.now ?? Date.now
    this.random = options.random ?? Math.random
    this.transports = new Transports({baseUrl: this.baseUrl, dispatcher: options.dispatcher, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS})
    this.deprecation = new DeprecationNotices(options, this.now)
    if (options.recordChange) this.changes = new ChangeLog(options.recordChange, options.readBeforeChange !== false)
  }

  /** The path under the base URL a request path names: `/customers` is `/api/<version>/customers`. */
  apiPath(path: string, version: ApiVersion = this.apiVersion): string {
    return path.startsWith('/api/') ? path : `/api/${version}${path}`
  }

  url(path: string, version: ApiVersion, query?: Query): URL {
    const url = new URL(this.baseUrl + this.apiPath(path, version))
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
    return url
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
    // Judged on the URL as it is sent, by the parser that sends it: `\`, `..` and their encodings resolved.
    checkResolvedPath(url, this.baseUrl, req.path)
    if (this.options.dryRun && !sendsInDryRun(req)) {
      const headers = Object.fromEntries(Object.entries(req.headers ?? {}).filter(([name]) => /^idempotency-key$/i.test(name)))
      throw new DryRunStop({body: req.rawBody === undefined ? (req.body ?? null) : req.rawBody, headers, method: req.method, url: url.href})
    }
    const idempotent = req.idempotent ?? (req.method === 'GET' || req.method === 'DELETE')
    const isV1 = req.path.startsWith('/api/v1/') || (!req.path.startsWith('/api/') && version === 'v1')
    const v1FromProfile = isV1 && !req.path.startsWith('/api/')
    if (isV1) this.deprecation.warnV1(v1FromProfile)

    const token = req.auth === false ? undefined : await this.tokenFor(req.auth)
    if (token !== undefined) checkHeaderValue('the access token', token)
    // The history is told of a change once its outcome is known; an update's record as it was is read first.
    const changes = this.changes && ChangeLog.keeps(req, url.pathname) ? this.changes : undefined
    const change = changes && {
      before: await changes.before(req.method, url.pathname, async (path) => (await this.request({auth: req.auth, method: 'GET', path})).body),
      idempotencyKey: Object.entries(req.headers ?? {}).find(([name]) => /^idempotency-key$/i.test(name))?.[1] ?? null,
      method: req.method,
      path: url.pathname,
    }

    const {options} = this
    const status = new RequestStatus(options.onWait, req.purpose ? capitalize(req.purpose) : `${req.method} ${url.pathname}`)
    const exchange = async (call: Call): Promise<RawResponse> => {
      const res = await this.send(req, url, call.token)
      this.deprecation.notice(res.headers, isV1, v1FromProfile)
      return res
    }
    const policy = compose(
      renewing({
        check: (fresh) => checkHeaderValue('the access token', fresh),
        debug: options.debug,
        renew: options.tokens && ((stale) => options.tokens!.renew(this, stale)),
      }),
      retrying({
        classify: classifyFailure,
        debug: options.debug,
        describe: (error) => `network error (${describeNetworkError(error)})`,
        idempotent,
        loopback: this.loopback(),
        maxWaitSeconds: options.maxWaitSeconds ?? DEFAULT_MAX_WAIT_SECONDS,
        now: this.now,
        onBackoff: (why, retry, of) => status.retrying(why, retry, of),
        onWait: (text) => status.waiting(text),
        random: this.random,
        sleep: this.sleep,
      }),
      gated(options.pacer, this.now),
    )
    let res: RawResponse
    const call = newCall(token)
    try {
      res = await policy(exchange)(call)
    } catch (error) {
      if (change) await changes.failed(change, error, call.maybeSent === true)
      if (error instanceof CliError) throw error
      throw networkError(error, {baseUrl: this.baseUrl, earlierMaybeSent: call.maybeSent === true, idempotent, loopback: this.loopback(), req})
    } finally {
      status.done()
    }
    if (res.status < 300) {
      if (req.method === 'GET') this.changes?.read(url.pathname, res.body)
      if (change) await changes.answered({...change, body: res.body, status: res.status})
      return res as ApiResponse<T>
    }
    const refusal = isRedirect(res.status)
      ? redirectError(res.status, res.headers.location)
      : httpError(res.status, res.body, req, this.options.loginHint)
    if (change) await changes.answered({...change, body: res.body, status: res.status}, refusal)
    throw refusal
  }

  private loopback(): boolean {
    try {
      return isLoopbackHost(new URL(this.baseUrl).hostname)
    } catch {
      return false
    }
  }

  /**
   * Closes pooled connections so the process can exit at once; a connection still being set up (a proxy that
   * took CONNECT and never answered) is destroyed, not waited for.
   */
  async close(): Promise<void> {
    await this.transports.close()
  }

  private async tokenFor(auth: 'optional' | true): Promise<string | undefined> {
    if (!this.options.tokens) {
      if (auth === 'optional') return undefined
      throw new CliError('No credentials configured.', {exitCode: EXIT.auth})
    }
    if (auth === true) return this.options.tokens.getToken(this)
    try {
      return await this.options.tokens.getToken(this)
    } catch (error) {
      if (error instanceof CliError && error.exitCode === EXIT.auth && error.status === null) return undefined
      throw error
    }
  }

  private async send(req: ApiRequest, url: URL, token: string | undefined) {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent,
      ...lowerKeys(req.headers ?? {}),
    }
    const body = req.rawBody ?? (req.body === undefined ? undefined : JSON.stringify(req.body))
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (token !== undefined) headers.authorization = `Bearer ${token}`

    const debug = this.options.debug
    if (debug) {
      debug(`> ${req.method} ${url.href}`)
      for (const [k, v] of Object.entries(redactHeaders(headers))) debug(`> ${k}: ${v}`)
      if (body !== undefined) debug(`> ${redactBody(body)}`)
    }
    const dispatcher = await this.transports.next()
    // One deadline for the whole exchange, body included: a server dripping a byte a second cannot hold it open,
    // nor a proxy that takes CONNECT and never answers.
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    const limit = this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
    let res
    try {
      res = await exchange(
        dispatcher,
        {body, headers, method: req.method, origin: url.origin, path: `${url.pathname}${url.search}`},
        {
          maxBytes: limit,
          onHeaders: debug
            ? (status, raw, ms) => {
                debug(`< ${status} ${statusText(status)} (${Math.round(ms)} ms)`)
                for (const [k, v] of Object.entries(flatHeaders(raw))) debug(`< ${k}: ${v}`)
              }
            : undefined,
          timedOut: () => new DeadlineExceeded(timeoutMs),
          signal: this.options.signal,
          aborted: (reason) =>
            interruptedBy(reason, `Interrupted by ${typeof reason === 'string' ? reason : 'SIGINT'}: the request in flight was given up.`),
          timeoutMs,
          tooLarge: (status, announced) =>
            responseTooLarge(
              this.baseUrl,
              status,
              announced === undefined ? 'goes on past the bound' : `announces ${formatBytes(announced)} (Content-Length)`,
              limit,
            ),
        },
      )
    } catch (error) {
      // The transport refused to build the request (a bad header, URL or body): nothing left this process.
      if (error instanceof NotSendable || errorCode(error) === 'UND_ERR_INVALID_ARG')
        throw new UsageError(`The request could not be sent: ${(error as Error).message}. Nothing was sent.`)
      throw error
    }
    const resHeaders = flatHeaders(res.headers)
    const text = res.body.toString('utf8')
    if (debug && text) debug(`< ${redactBody(text)}`)
    try {
      return {body: parseBody(text, resHeaders['content-type']), headers: resHeaders, status: res.status}
    } catch (error) {
      if (error instanceof TooDeepError)
        throw new CliError(`Unexpected response (HTTP ${res.status}): ${error.message}, which no record of the service does.`, {
          code: 'unexpected_response',
          status: res.status,
        })
      throw error
    }
  }
}

/** undici's parsed headers with a repeated header's values joined, as ApiResponse has them. */
function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {}
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v
  return flat
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
}
