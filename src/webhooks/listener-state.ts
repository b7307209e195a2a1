/**
 * What the parts of the listener share (listener.ts starts it; listener-accept.ts takes requests in,
 * listener-deliver.ts verifies, forwards and records them): its settings, resolved once, and its counters.
 */
import type {IncomingMessage} from 'node:http'
import type {Dispatcher} from 'undici'
import {DEFAULT_FORWARD_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_HELD_BYTES} from './forward.js'
import {DEFAULT_TOLERANCE_SECONDS} from '../domain/signature.js'
import {Gate} from './gate.js'
import type {ListenerOptions, RejectReason} from './listener.js'

export const DEFAULT_FORWARD_CONCURRENCY = 8
export const DEFAULT_FORWARD_QUEUE = 100
/**
 * How long a delivery's body may take to arrive after its headers. A sender posts a small JSON body at once; one
 * that stalls is cut off well before the 10 s a sender waits, so it cannot hold the listener's bounds for long.
 */
export const DEFAULT_BODY_TIMEOUT_MS = 5000
/** Seconds a sender is told to wait (Retry-After) when the listener is full. */
const RETRY_AFTER_SECONDS = 2

export interface Answer {
  status: number
  headers: Array<[string, string]>
  body: Buffer | string
}

export const text = (status: number, body: string): Answer => ({body: `${body}\n`, headers: [['content-type', 'text/plain; charset=utf-8']], status})

export class ListenerState {
  readonly secrets: () => readonly string[]
  readonly maxBodyBytes: number
  readonly maxHeldBytes: number
  readonly now: () => number
  /** Event types subscribed to; all when undefined. */
  readonly events?: ReadonlySet<string>
  readonly concurrency: number
  readonly gate: Gate
  /** Deliveries taken in (being read, verified, waiting for a slot or forwarded): beyond this, 503 at once. */
  readonly maxAdmitted: number
  readonly forwardTimeoutMs: number
  /** A body must arrive whole within this long after its headers (408 after). */
  readonly bodyTimeoutMs: number
  readonly toleranceSeconds: number
  /** Body bytes held at once, across connections. */
  heldBytes = 0
  admitted = 0
  /** Requests not yet answered. */
  inFlight = 0
  closing = false
  /** Called when the last request in flight is answered, while closing. */
  drained?: () => void
  /** The keep-alive pool to the receiver, made on the first forward. */
  dispatcher?: Dispatcher

  constructor(readonly options: ListenerOptions) {
    const given = options.secrets
    const fixed = typeof given === 'function' ? undefined : typeof given === 'string' ? [given] : [...(given ?? [])]
    if (!options.skipVerify && fixed?.length === 0) throw new TypeError('startListener needs a signing secret unless skipVerify is set')
    this.secrets = typeof given === 'function' ? given : () => fixed!
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
    this.maxHeldBytes = Math.max(options.maxHeldBytes ?? DEFAULT_MAX_HELD_BYTES, this.maxBodyBytes)
    this.now = options.now ?? Date.now
    this.events = options.events ? new Set(options.events) : undefined
    this.concurrency = options.forwardConcurrency ?? DEFAULT_FORWARD_CONCURRENCY
    this.gate = new Gate(this.concurrency)
    this.maxAdmitted = this.concurrency + (options.forwardQueue ?? DEFAULT_FORWARD_QUEUE)
    this.forwardTimeoutMs = options.forwardTimeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS
    this.bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS
    this.toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  }

  /** A refusal, reported to onRejected. */
  reject(req: IncomingMessage, status: number, reason: RejectReason, message: string): Answer {
    this.options.onRejected?.({message, path: req.url ?? '/', reason, status})
    return text(status, message)
  }

  /** 503 with Retry-After: the sender tries again later. */
  busy(req: IncomingMessage, message: string): Answer {
    const answer = this.reject(req, 503, 'busy', message)
    answer.headers.push(['retry-after', String(RETRY_AFTER_SECONDS)], ['connection', 'close'])
    return answer
  }
}
