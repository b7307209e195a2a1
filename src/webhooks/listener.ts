/**
 * The local webhook endpoint of `webhooks listen`: an HTTP server on 127.0.0.1 that takes signed POSTs on any
 * path, verifies them, forwards the verified ones to a receiver and records them in the inbox.
 *
 * Answers: 405 for another method; 415 for a Content-Type other than JSON and 400 for a missing or malformed
 * signature header or a timestamp outside the tolerance, all before reading the body; 413 for a body over the
 * limit; 408 (connection closed) for a body that does not arrive within its deadline; 503 (Retry-After) when the
 * bodies held at once would pass their bound, when the forward queue is full or the listener is stopping (both
 * before reading the body), or when a queued delivery cannot start forwarding in time; 400 (not forwarded, not
 * recorded) for a wrong, stale or future signature or a body that is not an event; 200 for an event of a type not subscribed to (reported as ignored);
 * else the receiver's own answer, 502 when it cannot be reached, 504 when it does not answer within the
 * forward timeout, or 200 when there is no receiver. A GET of the probe path (probe.ts) is answered before all
 * of this.
 */
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import type {VerifyFailure} from '../domain/signature.js'
import type {ProbeNonces} from './probe.js'
import type {Inbox, InboxRecord} from './inbox.js'
import {accept} from './listener-accept.js'
import {ListenerState} from './listener-state.js'

/** One verified delivery, as `webhooks listen` reports it: its inbox record without headers and body. */
export type ListenerEvent = Omit<InboxRecord, 'body' | 'body_encoding' | 'headers' | 'response' | 'replayed'>

export type RejectReason = VerifyFailure | 'method_not_allowed' | 'too_large' | 'not_an_event' | 'not_json' | 'busy' | 'body_timeout'

export interface Rejection {
  status: number
  reason: RejectReason
  message: string
  path: string
}

export interface ListenerOptions {
  /** 0 (default) picks a free port. */
  port?: number
  /**
   * The endpoint's signing secret, or several (rotation). Required unless `skipVerify`. A function is asked on
   * each delivery: for a secret known only once the endpoint is registered, which needs the listener's port
   * (until then it returns none, and every delivery is refused as not matching).
   */
  secrets?: string | readonly string[] | (() => readonly string[])
  skipVerify?: boolean
  toleranceSeconds?: number
  /** Event types to accept; others are answered 200 and reported as ignored. All when omitted. */
  events?: readonly string[]
  forwardTo?: string
  /** The receiver's answer is awaited this long, then the sender gets 504 (default 9 s, below the sender's 10 s). */
  forwardTimeoutMs?: number
  maxBodyBytes?: number
  /** A body must arrive whole within this long after its headers, else 408 and the connection closed (default 5 s). */
  bodyTimeoutMs?: number
  /** Request body bytes held at once across all connections; a delivery that would pass it is answered 503. */
  maxHeldBytes?: number
  /** Forwards in flight at once (default 8); more deliveries wait in a queue. */
  forwardConcurrency?: number
  /**
   * Deliveries waiting for a forward slot (default DEFAULT_FORWARD_QUEUE); past it (and while stopping) a new
   * delivery is answered 503 with Retry-After before its body is read, and its sender retries later.
   */
  forwardQueue?: number
  /** Reachability probes (probe.ts): their reserved path is answered first, never forwarded, recorded or counted. */
  probes?: ProbeNonces
  /** Where verified deliveries are recorded; none when omitted. */
  inbox?: Inbox
  /** Milliseconds since the epoch; used for the tolerance check and `received_at`. */
  now?: () => number
  onEvent?: (event: ListenerEvent) => void
  onIgnored?: (event: {id: string; type: string}) => void
  onRejected?: (rejection: Rejection) => void
  /** A verified delivery could not be written to the inbox (it was still answered and reported). */
  onInboxError?: (error: Error) => void
}

export interface Listener {
  localUrl: string
  port: number
  /** Stops accepting connections; resolves once in-flight deliveries (forward included) are answered. */
  close(): Promise<void>
}

export class ListenError extends Error {
  override name = 'ListenError'
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message)
  }
}

export async function startListener(options: ListenerOptions): Promise<Listener> {
  const state = new ListenerState(options)
  // Bounded request reading, so that close() never waits long on a sender that stalls mid-body.
  const server = createServer({headersTimeout: 10_000, requestTimeout: 30_000}, (req, res) => accept(state, req, res))
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const message =
        error.code === 'EADDRINUSE' ? `port ${options.port} is already in use on 127.0.0.1` : `cannot listen on 127.0.0.1: ${error.message}`
      reject(new ListenError(message, error.code))
    })
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))
  })

  let closing: Promise<void> | undefined
  async function close(): Promise<void> {
    state.closing = true
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
    server.closeIdleConnections()
    if (state.inFlight > 0) await new Promise<void>((resolve) => (state.drained = resolve))
    // Connections kept alive by clients are idle now; without this, server.close() would wait for them.
    server.closeAllConnections()
    await stopped
    await state.dispatcher?.close()
  }

  return {
    close: () => (closing ??= close()),
    localUrl: `http://127.0.0.1:${port}`,
    port,
  }
}
