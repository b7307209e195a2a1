/**
 * Sends a delivery to a receiver: the raw body byte for byte and the original headers, minus the hop-by-hop
 * ones (which describe one connection, not the message). Shared by the listener and by replay.
 */
import type {Dispatcher} from 'undici'

import {exchange} from '../api/exchange.js'
import {loadUndici} from '../api/undici.js'
import {monotonicMs} from '../domain/clock.js'

/** The largest delivery body the listener accepts, and the largest answer it reads back from a receiver. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024
/** Below the sender's own timeout (the sandbox gives up after 10 s), so that the sender gets the 504 answer. */
export const DEFAULT_FORWARD_TIMEOUT_MS = 9_000
/** Bytes of request bodies the listener holds at once, across connections; past it new deliveries get 503. */
export const DEFAULT_MAX_HELD_BYTES = 64 * 1024 * 1024

/** Headers that belong to a single connection (RFC 9110 §7.6.1) or that undici computes itself. */
const HOP_BY_HOP = new Set([
  'connection',
  'content-length',
  'expect',
  'host',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

/** Drops hop-by-hop headers, and any header the `Connection` header names, from name/value pairs. */
export function endToEndHeaders(pairs: ReadonlyArray<readonly [string, string]>): Array<[string, string]> {
  let named: Set<string> | undefined
  for (const [name, value] of pairs) {
    if (name.toLowerCase() === 'connection') for (const token of value.split(',')) (named ??= new Set()).add(token.trim().toLowerCase())
  }
  const kept: Array<[string, string]> = []
  for (const [name, value] of pairs) {
    const key = name.toLowerCase()
    if (!HOP_BY_HOP.has(key) && !named?.has(key)) kept.push([name, value])
  }
  return kept
}

/** Node's `rawHeaders` (flat name, value, name, value…) as pairs, keeping order, case and repeats. */
export function rawHeaderPairs(rawHeaders: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = []
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) pairs.push([rawHeaders[i], rawHeaders[i + 1]])
  return pairs
}

/** The receiver could not be reached, timed out, or answered with more than the size limit. */
export class ForwardError extends Error {
  override name = 'ForwardError'
  constructor(
    message: string,
    readonly url: string,
    /** The receiver did not answer within the timeout. */
    readonly timedOut = false,
  ) {
    super(message)
  }
}

export interface ForwardOptions {
  url: string
  /** The delivery's end-to-end headers (endToEndHeaders: the caller filters them, once), sent as they are. */
  headers: ReadonlyArray<readonly [string, string]>
  body: Buffer
  /** Whole exchange, from connecting to the last byte of the answer. */
  timeoutMs: number
  /**
   * The timeout as the user set it (--forward-timeout), for the message when it passes; default timeoutMs. The
   * listener gives a forward what is left of it once the delivery is read and checked, a millisecond or two less.
   */
  saidTimeoutMs?: number
  /** Largest answer body read back. */
  maxResponseBytes: number
  /** A pooled agent to reuse connections; a one-off connection when omitted. */
  dispatcher?: Dispatcher
}

export interface ForwardResult {
  status: number
  /** The receiver's end-to-end headers, as pairs. */
  headers: Array<[string, string]>
  body: Buffer
  duration_ms: number
}

/** Origin and path of a receiver's URL, parsed once per URL (a listener forwards every delivery to the same one). */
const targets = new Map<string, {origin: string; path: string}>()
function target(url: string): {origin: string; path: string} {
  let parsed = targets.get(url)
  if (!parsed) {
    const u = new URL(url)
    parsed = {origin: u.origin, path: `${u.pathname}${u.search}`}
    if (targets.size > 16) targets.clear()
    targets.set(url, parsed)
  }
  return parsed
}

/**
 * One exchange through the shared dispatch() of src/api/exchange.ts (no Readable, async iterator or abort signal
 * per delivery); the deadline covers the whole exchange, queueing for a connection included.
 */
export async function forwardDelivery(options: ForwardOptions): Promise<ForwardResult> {
  const {Agent} = await loadUndici()
  const ownDispatcher = options.dispatcher ? undefined : new Agent({pipelining: 0})
  const {url} = options
  const started = monotonicMs()
  try {
    const {origin, path} = target(url)
    const answer = await exchange(
      (options.dispatcher ?? ownDispatcher)!,
      {body: options.body, headers: options.headers.flat(), method: 'POST', origin, path},
      {
        maxBytes: options.maxResponseBytes,
        timedOut: () => new ForwardError(`receiver did not answer within ${options.saidTimeoutMs ?? options.timeoutMs} ms`, url, true),
        timeoutMs: options.timeoutMs,
        tooLarge: () => new ForwardError(`receiver answered with more than ${options.maxResponseBytes} bytes`, url),
      },
    )
    return {body: answer.body, duration_ms: Math.round(monotonicMs() - started), headers: answerHeaders(answer.headers), status: answer.status}
  } catch (error) {
    throw error instanceof ForwardError ? error : new ForwardError(describeNetworkError(error), url)
  } finally {
    if (ownDispatcher) void ownDispatcher.destroy().catch(() => {})
  }
}

/** A receiver's headers as end-to-end name/value pairs. */
function answerHeaders(headers: Record<string, string | string[] | undefined>): Array<[string, string]> {
  const pairs: Array<[string, string]> = []
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value]) pairs.push([name, v])
  }
  return endToEndHeaders(pairs)
}

function describeNetworkError(error: unknown): string {
  const err = error as {code?: string; cause?: {code?: string}; message?: string}
  const code = err.code && err.code.startsWith('UND_ERR') ? (err.cause?.code ?? err.code) : (err.code ?? err.cause?.code)
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused'
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection closed by the receiver'
    case 'ENOTFOUND':
      return 'host not found'
    default:
      return err.message || String(error)
  }
}
