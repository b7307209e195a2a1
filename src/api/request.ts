/** What the API client takes and gives (src/api/client.ts): its options, a request, a response. */
import type {Transport} from './node-transport.js'

import type {ApiVersion, HttpMethod} from '../domain/schema.js'
import type {ApiClient} from './client.js'
import type {RequestGate} from './wrappers.js'

export interface TokenSource {
  /** A token to send, issuing one when needed. Throws AuthError when there are no credentials. */
  getToken(client: ApiClient): Promise<string>
  /** After a 401 with `stale`: a fresh token, or undefined when this source cannot renew (static token). */
  renew(client: ApiClient, stale: string): Promise<string | undefined>
}

export interface ClientOptions {
  baseUrl: string
  apiVersion: ApiVersion
  userAgent: string
  /** Aborts every request in flight (an interrupted command); its reason (the signal's name) decides the exit code. */
  signal?: AbortSignal
  /** --dry-run: reads only; the first request that would change something throws DryRunStop with it (dry-run.ts). */
  dryRun?: boolean
  tokens?: TokenSource
  /** --max-wait: the bound on time spent waiting for 429s, in seconds. */
  maxWaitSeconds?: number
  /** COMMERCE_HTTP_TIMEOUT: the deadline of one whole exchange (connection, headers and body), in ms. Default 30 s. */
  timeoutMs?: number
  /** The most bytes a response body may have (COMMERCE_HTTP_MAX_BYTES); default 8 MiB. */
  maxResponseBytes?: number
  /** Plain http:// to a host that is not loopback is allowed (--allow-insecure-http, `allow_insecure_http`). */
  allowInsecureHttp?: boolean
  /** --debug trace lines (already redacted). */
  debug?: (line: string) => void
  /** Warnings shown once per process (deprecation). */
  warnOnce?: (key: string, text: string) => void
  /** The v2 command to name in the v1 deprecation warning. */
  v2Hint?: string
  /**
   * The profile whose `api_version` chose v1 (not a flag): the deprecation warning then says how to switch the
   * profile, instead of naming the very command the user ran. Its value is the ` --profile NAME` to repeat.
   */
  v1FromProfile?: string
  /** How to log in, for a rejected token (401); repeats the user's own flags. */
  loginHint?: string
  /** Called while waiting on a 429: returns a function that ends the status display. */
  onWait?: (status: () => string) => () => void
  /** Told of every request that changed the account, or may have (any non-GET but a token's issue): the history. */
  recordChange?: (change: SentChange) => Promise<void>
  /** false: a change's record is not read first for the history when no read of it is known (`commerce api`). */
  readBeforeChange?: boolean
  /** A gate shared with other clients (the bulk engine's pacer). */
  pacer?: RequestGate
  /** Injectable for tests. */
  sleep?: (ms: number) => Promise<void>
  now?: () => number
  random?: () => number
  dispatcher?: Transport
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
  /**
   * Names the request in error messages when it is not the user's operation itself, e.g. `the token request`:
   * its failure is then said as such, not as a POST whose outcome is unknown.
   */
  purpose?: string
}

export interface ApiResponse<T = unknown> {
  status: number
  headers: Record<string, string>
  body: T
}

/** A request that changed the account, or may have (sent, no answer): what the history keeps of it. */
export interface SentChange {
  method: HttpMethod
  /** As sent: `/api/v2/customers/42`. */
  path: string
  status: number | 'unknown'
  /** The answer's body (the record made or changed, or the service's refusal). */
  body: unknown
  idempotencyKey: string | null
  /** The record as it was just before an update, a delete or a refund (the last read of it, else read now). */
  before: unknown
  /** The service's own words on a refusal. */
  serviceMessage: string | null
}
