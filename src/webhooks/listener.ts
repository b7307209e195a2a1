/**
 * The local webhook endpoint of `webhooks listen`: an HTTP server on 127.0.0.1 that takes signed POSTs on any
 * path, verifies them, forwards the verified ones to a receiver and records them in the inbox.
 *
 * Answers: 405 for another method; 415 for a Content-Type other than JSON and 400 for a missing or malformed
 * signature header, both before reading the body; 413 for a body over the limit; 503 (Retry-After) when the
 * bodies held at once would pass their bound, when the forward queue is full or the listener is stopping (both
 * before reading the body), or when a queued delivery cannot start forwarding in time; 400 (not forwarded, not
 * recorded) for a wrong, stale or future signature or a body that is not an event; 200 for an event of a type not subscribed to (reported as ignored);
 * else the receiver's own answer, 502 when it cannot be reached, 504 when it does not answer within the
 * forward timeout, or 200 when there is no receiver. A GET of the probe path (probe.ts) is answered before all
 * of this.
 */
import {createServer, type IncomingMessage} from 'node:http'
import type {AddressInfo} from 'node:net'
import type {Dispatcher} from 'undici'
import {SIGNATURE_HEADER, describeVerifyFailure, parseSignatureHeader, verifySignature, type VerifyFailure} from '../domain/signature.js'
import {
  DEFAULT_FORWARD_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_HELD_BYTES,
  ForwardError,
  endToEndHeaders,
  forwardDelivery,
  loadUndici,
  rawHeaderPairs,
} from './forward.js'
import {PROBE_PATH, type ProbeNonces} from './probe.js'
import {isJsonContentType, parseEvent} from './event-body.js'
import {Gate} from './gate.js'
import {encodeBody, headerObject, type Inbox, type InboxAnswer, type InboxRecord, recordAnswer} from './inbox.js'

export const DEFAULT_FORWARD_CONCURRENCY = 8
export const DEFAULT_FORWARD_QUEUE = 100
/** Seconds a sender is told to wait (Retry-After) when the listener is full. */
const RETRY_AFTER_SECONDS = 2

/** After a 413, the rest of the body is read and discarded (so the client sees the answer) up to this many times the limit. */
const DISCARD_FACTOR = 16

/** One verified delivery, as `webhooks listen` reports it: its inbox record without headers and body. */
export type ListenerEvent = Omit<InboxRecord, 'body' | 'body_encoding' | 'headers' | 'response' | 'replayed'>

export type RejectReason = VerifyFailure | 'method_not_allowed' | 'too_large' | 'not_an_event' | 'not_json' | 'busy'

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

interface Answer {
  status: number
  headers: Array<[string, string]>
  body: Buffer | string
}

const text = (status: number, body: string): Answer => ({body: `${body}\n`, headers: [['content-type', 'text/plain; charset=utf-8']], status})

export async function startListener(options: ListenerOptions): Promise<Listener> {
  const given = options.secrets
  const fixed = typeof given === 'function' ? undefined : typeof given === 'string' ? [given] : [...(given ?? [])]
  if (!options.skipVerify && fixed?.length === 0) throw new TypeError('startListener needs a signing secret unless skipVerify is set')
  const secrets = typeof given === 'function' ? given : () => fixed!
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const maxHeldBytes = Math.max(options.maxHeldBytes ?? DEFAULT_MAX_HELD_BYTES, maxBodyBytes)
  let heldBytes = 0
  const now = options.now ?? Date.now
  const events = options.events ? new Set(options.events) : undefined
  const concurrency = options.forwardConcurrency ?? DEFAULT_FORWARD_CONCURRENCY
  const gate = new Gate(concurrency)
  // Deliveries taken in (being read, verified, waiting for a slot or forwarded): beyond this, 503 at once.
  const maxAdmitted = concurrency + (options.forwardQueue ?? DEFAULT_FORWARD_QUEUE)
  let admitted = 0
  const forwardTimeoutMs = options.forwardTimeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS

  let dispatcher: Dispatcher | undefined
  let inFlight = 0
  let closing: Promise<void> | undefined
  let drained: (() => void) | undefined

  const reject = (req: IncomingMessage, status: number, reason: RejectReason, message: string): Answer => {
    options.onRejected?.({message, path: req.url ?? '/', reason, status})
    return text(status, message)
  }
  const busyAnswer = (req: IncomingMessage, message: string): Answer => {
    const answer = reject(req, 503, 'busy', message)
    answer.headers.push(['retry-after', String(RETRY_AFTER_SECONDS)], ['connection', 'close'])
    return answer
  }

  async function handle(req: IncomingMessage, body: Buffer): Promise<Answer> {
    const receivedAt = now()
    const started = performance.now()
    if (!options.skipVerify) {
      const header = req.headers[SIGNATURE_HEADER]
      const result = verifySignature(secrets(), Array.isArray(header) ? header.join(',') : header, body, {
        now: Math.floor(receivedAt / 1000),
        toleranceSeconds: options.toleranceSeconds,
      })
      if (!result.valid && result.reason) return reject(req, 400, result.reason, describeVerifyFailure(result.reason))
    }
    const event = parseEvent(body)
    if (!event) return reject(req, 400, 'not_an_event', 'body is not a webhook event (JSON with string "id" and "type")')
    if (events && !events.has(event.type)) {
      options.onIgnored?.({id: event.id, type: event.type})
      return text(200, `ignored: not subscribed to ${event.type}`)
    }

    let answer: Answer
    let forwardStatus: number | null = null
    let forwardError: string | undefined
    let response: InboxAnswer | undefined
    if (options.forwardTo) {
      // A slot, early enough to leave the receiver half the forward timeout before the sender's deadline (a
      // forward started later would likely be cut off, the receiver acting on a delivery its sender then sends
      // again); else 503, and the sender's retry comes back later.
      if (!(await gate.acquire(forwardTimeoutMs / 2)))
        return busyAnswer(req, `${concurrency} forwards in progress and the queue did not move in time, retry later`)
      const budgetMs = Math.max(1, Math.round(forwardTimeoutMs - (performance.now() - started)))
      const forwardTo = options.forwardTo
      try {
        const result = await (async () => {
          try {
            dispatcher ??= new (await loadUndici()).Agent({connections: concurrency, keepAliveTimeout: 4_000})
            return await forwardDelivery({
              body,
              dispatcher,
              headers: rawHeaderPairs(req.rawHeaders),
              maxResponseBytes: maxBodyBytes,
              timeoutMs: budgetMs,
              url: forwardTo,
            })
          } finally {
            gate.release()
          }
        })()
        forwardStatus = result.status
        response = recordAnswer(result)
        answer = {body: result.body, headers: result.headers, status: result.status}
      } catch (error) {
        if (!(error instanceof ForwardError)) throw error
        forwardError = error.message
        answer = error.timedOut
          ? text(504, `the receiver did not answer in time: ${error.message}`)
          : text(502, `could not forward to the receiver: ${error.message}`)
      }
    } else {
      answer = text(200, 'received')
    }

    const record: ListenerEvent = {
      created_at: event.created_at,
      duration_ms: Math.round(performance.now() - started),
      forward_status: forwardStatus,
      ...(forwardError === undefined ? {} : {forward_error: forwardError}),
      id: event.id,
      received_at: new Date(receivedAt).toISOString(),
      type: event.type,
    }
    if (options.inbox) {
      // Recorded before the sender gets its answer, so that an answered delivery is never missing from the inbox.
      const headers = headerObject(endToEndHeaders(rawHeaderPairs(req.rawHeaders)))
      await options.inbox
        .append({...record, headers, ...encodeBody(body), ...(response ? {response} : {})})
        .catch((error: Error) => options.onInboxError?.(error))
    }
    options.onEvent?.(record)
    return answer
  }

  // Bounded request reading, so that close() never waits long on a sender that stalls mid-body.
  const server = createServer({headersTimeout: 10_000, requestTimeout: 30_000}, (req, res) => {
    inFlight += 1
    res.once('close', () => {
      inFlight -= 1
      if (inFlight === 0) drained?.()
    })
    const send = (answer: Answer) => {
      if (res.headersSent || res.destroyed) return
      for (const [name, value] of answer.headers) res.appendHeader(name, value)
      res.setHeader('content-length', Buffer.byteLength(answer.body))
      if (closing) res.setHeader('connection', 'close')
      res.writeHead(answer.status)
      res.end(answer.body)
    }

    if (options.probes && req.url?.includes(PROBE_PATH)) return send(probeAnswer(options.probes, req))
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST')
      send(reject(req, 405, 'method_not_allowed', `method ${req.method} not allowed: deliveries are POST`))
      return
    }
    // Refused before the body is read (and so never held): a page's text/plain POST, and an unsigned delivery.
    if (!isJsonContentType(req.headers['content-type'])) {
      res.setHeader('connection', 'close')
      send(reject(req, 415, 'not_json', 'Content-Type must be application/json'))
      req.resume()
      return
    }
    if (!options.skipVerify) {
      const header = req.headers[SIGNATURE_HEADER]
      const value = Array.isArray(header) ? header.join(',') : header
      const reason: VerifyFailure | undefined = !value?.trim() ? 'missing' : parseSignatureHeader(value) ? undefined : 'malformed'
      if (reason) {
        res.setHeader('connection', 'close')
        send(reject(req, 400, reason, describeVerifyFailure(reason)))
        req.resume()
        return
      }
    }
    // Full (the forward queue) or stopping: 503 before the body is read, so a flood costs no memory.
    if (closing || admitted >= maxAdmitted) {
      send(busyAnswer(req, closing ? 'the listener is stopping, retry later' : `${maxAdmitted} deliveries in progress, retry later`))
      req.resume()
      return
    }
    admitted += 1
    res.once('close', () => (admitted -= 1))
    const tooLarge = () => {
      res.setHeader('connection', 'close')
      send(reject(req, 413, 'too_large', `body larger than ${maxBodyBytes} bytes`))
      let discarded = 0
      req.removeAllListeners('data')
      req.on('data', (chunk: Buffer) => {
        discarded += chunk.length
        if (discarded > maxBodyBytes * DISCARD_FACTOR) req.destroy()
      })
    }
    const declared = Number(req.headers['content-length'] ?? 0) || 0
    if (declared > maxBodyBytes) {
      tooLarge()
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let over = false
    let released = false
    // Bytes counted against maxHeldBytes for this delivery until it is answered: its declared length up front
    // (so that a thousand senders stalling before their first byte are counted too), more if it sends more.
    let counted = 0
    const release = () => {
      if (released) return
      released = true
      heldBytes -= counted
      chunks.length = 0
    }
    res.once('close', release)
    const busy = () => {
      over = true
      release()
      send(busyAnswer(req, 'too many bytes of deliveries held, retry later'))
      req.removeAllListeners('data')
      req.resume()
    }
    if (heldBytes + declared > maxHeldBytes) {
      busy()
      return
    }
    counted = declared
    heldBytes += declared
    req.on('data', (chunk: Buffer) => {
      if (size + chunk.length > maxBodyBytes) {
        over = true
        release()
        tooLarge()
        return
      }
      const extra = size + chunk.length - counted
      if (extra > 0) {
        if (heldBytes + extra > maxHeldBytes) {
          busy()
          return
        }
        heldBytes += extra
        counted += extra
      }
      size += chunk.length
      chunks.push(chunk)
    })
    req.on('end', () => {
      if (over) return
      const body = Buffer.concat(chunks)
      chunks.length = 0
      handle(req, body).then(send, (error: Error) => send(text(500, `listener error: ${error.message}`)))
    })
    req.on('error', () => res.destroy())
  })

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const message =
        error.code === 'EADDRINUSE' ? `port ${options.port} is already in use on 127.0.0.1` : `cannot listen on 127.0.0.1: ${error.message}`
      reject(new ListenError(message, error.code))
    })
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))
  })

  async function close(): Promise<void> {
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
    server.closeIdleConnections()
    if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve))
    // Connections kept alive by clients are idle now; without this, server.close() would wait for them.
    server.closeAllConnections()
    await stopped
    await dispatcher?.close()
  }

  return {
    close: () => (closing ??= close()),
    localUrl: `http://127.0.0.1:${port}`,
    port,
  }
}

/** A probe of this listener's reachability: its nonce back, once; anything else on the path is 404. */
function probeAnswer(probes: ProbeNonces, req: IncomingMessage): Answer {
  req.resume()
  const nonce = req.method === 'GET' ? probes.take(req.url ?? '') : undefined
  return nonce === undefined
    ? text(404, 'unknown probe')
    : {
        body: nonce,
        headers: [
          ['cache-control', 'no-store'],
          ['content-type', 'text/plain'],
        ],
        status: 200,
      }
}
