/**
 * A request to the listener, from its arrival to its answer: the probe path first, then what can be refused before
 * the body is read (method, content type, signature header and its timestamp, a full listener), then the body, read
 * within its bounds (its own size, the bytes held across connections, and a short deadline), then the delivery
 * (listener-deliver.ts).
 *
 * A sender that stalls cannot lock genuine deliveries out: a body is counted against the admission slots only once
 * it has arrived whole, the bytes held are those actually received (not those announced), and a body that does not
 * arrive within its deadline is answered 408 and its connection closed.
 */
import type {IncomingMessage, ServerResponse} from 'node:http'
import {SIGNATURE_HEADER, describeVerifyFailure, type ParsedSignature, parseSignatureHeader, type VerifyFailure} from '../domain/signature.js'
import {isJsonContentType} from './event-body.js'
import {deliver} from './listener-deliver.js'
import {type Answer, type ListenerState, text} from './listener-state.js'
import {PROBE_PATH, type ProbeNonces, UNKNOWN_PROBE} from './probe.js'

/** After a 413, the rest of the body is read and discarded (so the client sees the answer) up to this many times the limit. */
const DISCARD_FACTOR = 16

type Send = (answer: Answer) => void

export function accept(state: ListenerState, req: IncomingMessage, res: ServerResponse): void {
  const {options} = state
  state.inFlight += 1
  // One listener for all that the answer's end lets go of: the request, its admission, the bytes held for it.
  const held: {admitted: boolean; release?: () => void} = {admitted: false}
  res.once('close', () => {
    state.inFlight -= 1
    if (held.admitted) state.admitted -= 1
    held.release?.()
    if (state.inFlight === 0) state.drained?.()
  })
  const send: Send = (answer) => {
    if (res.headersSent || res.destroyed) return
    for (const [name, value] of answer.headers) res.appendHeader(name, value)
    res.setHeader('content-length', Buffer.byteLength(answer.body))
    if (state.closing) res.setHeader('connection', 'close')
    res.writeHead(answer.status)
    res.end(answer.body)
  }
  if (options.probes && req.url?.includes(PROBE_PATH)) return send(probeAnswer(options.probes, req))
  const early = refuseEarly(state, req)
  if ('refusal' in early) {
    const {refusal} = early
    // Refused before the body is read, so never held: the connection is not reused for what follows.
    // (A 503 says so in its own headers; a 405 leaves the connection open, its request has no body to skip.)
    if (refusal.status === 400 || refusal.status === 415) res.setHeader('connection', 'close')
    if (refusal.status === 405) res.setHeader('allow', 'POST')
    send(refusal)
    req.resume()
    return
  }
  // Admitted (a slot of the forward queue) only once the body has arrived whole: a sender stalling mid-body holds none.
  const admit = (): boolean => {
    if (state.closing || state.admitted >= state.maxAdmitted) return false
    state.admitted += 1
    held.admitted = true
    return true
  }
  held.release = readBody(state, req, res, send, early.signature, admit)
}

/**
 * What is answered before reading the body: another method, a page's text/plain POST, an unsigned delivery, a
 * full listener. Else the signature header, parsed (once: the delivery is verified against it once read).
 */
function refuseEarly(state: ListenerState, req: IncomingMessage): {refusal: Answer} | {signature?: ParsedSignature} {
  const refuse = (refusal: Answer) => ({refusal})
  if (req.method !== 'POST') return refuse(state.reject(req, 405, 'method_not_allowed', `method ${req.method} not allowed: deliveries are POST`))
  if (!isJsonContentType(req.headers['content-type'])) return refuse(state.reject(req, 415, 'not_json', 'Content-Type must be application/json'))
  let signature: ParsedSignature | undefined
  if (!state.options.skipVerify) {
    const header = req.headers[SIGNATURE_HEADER]
    const value = Array.isArray(header) ? header.join(',') : header
    signature = value?.trim() ? parseSignatureHeader(value) : undefined
    const reason: VerifyFailure | undefined = !value?.trim() ? 'missing' : signature ? timestampProblem(state, signature.timestamp) : 'malformed'
    if (reason) return refuse(state.reject(req, 400, reason, describeVerifyFailure(reason)))
  }
  // Full (the forward queue) or stopping: 503 before the body is read, so a flood costs no memory.
  if (state.closing || state.admitted >= state.maxAdmitted)
    return refuse(
      state.busy(req, state.closing ? 'the listener is stopping, retry later' : `${state.maxAdmitted} deliveries in progress, retry later`),
    )
  return {signature}
}

/** A signature's timestamp outside the tolerance, judged when the headers arrive (the body cannot change it). */
function timestampProblem(state: ListenerState, timestamp: number): VerifyFailure | undefined {
  const now = Math.floor(state.now() / 1000)
  if (timestamp < now - state.toleranceSeconds) return 'too_old'
  if (timestamp > now + state.toleranceSeconds) return 'too_new'
  return undefined
}

/**
 * Reads the body within its bounds, then delivers it. The bytes received are counted against maxHeldBytes until
 * the answer (an announced length holds nothing until it arrives); a body not whole within bodyTimeoutMs is 408.
 * Returns what lets them go, for the answer's end.
 */
function readBody(
  state: ListenerState,
  req: IncomingMessage,
  res: ServerResponse,
  send: Send,
  signature: ParsedSignature | undefined,
  admit: () => boolean,
): () => void {
  const {maxBodyBytes} = state
  const chunks: Buffer[] = []
  let size = 0
  let over = false
  let released = false
  let counted = 0
  const release = () => {
    clearTimeout(deadline)
    if (released) return
    released = true
    state.heldBytes -= counted
    chunks.length = 0
  }
  const stop = (answer: Answer, discard: boolean) => {
    over = true
    release()
    if (discard) res.setHeader('connection', 'close')
    send(answer)
    req.removeAllListeners('data')
    if (!discard) return void req.resume()
    let discarded = 0
    req.on('data', (chunk: Buffer) => {
      discarded += chunk.length
      if (discarded > maxBodyBytes * DISCARD_FACTOR) req.destroy()
    })
  }
  const tooLarge = () => stop(state.reject(req, 413, 'too_large', `body larger than ${maxBodyBytes} bytes`), true)
  const busy = () => stop(state.busy(req, 'too many bytes of deliveries held, retry later'), false)
  // A sender that stalls is answered and cut off: the connection is closed once the answer is written.
  const deadline = setTimeout(() => {
    res.once('finish', () => req.socket.destroy())
    stop(state.reject(req, 408, 'body_timeout', `the body did not arrive within ${state.bodyTimeoutMs} ms`), false)
  }, state.bodyTimeoutMs)
  const declared = Number(req.headers['content-length'] ?? 0) || 0
  if (declared > maxBodyBytes) {
    tooLarge()
    return release
  }
  req.on('data', (chunk: Buffer) => {
    if (size + chunk.length > maxBodyBytes) return tooLarge()
    const extra = size + chunk.length - counted
    if (extra > 0) {
      if (state.heldBytes + extra > state.maxHeldBytes) return busy()
      state.heldBytes += extra
      counted += extra
    }
    size += chunk.length
    chunks.push(chunk)
  })
  req.on('end', () => {
    clearTimeout(deadline)
    if (over) return
    if (!admit()) return busy()
    const body = Buffer.concat(chunks)
    chunks.length = 0
    deliver(state, req, body, signature).then(send, (error: Error) => send(text(500, `listener error: ${error.message}`)))
  })
  req.on('error', () => res.destroy())
  return release
}

/** A probe of this listener's reachability: its nonce back, once; anything else on the path is 404. */
function probeAnswer(probes: ProbeNonces, req: IncomingMessage): Answer {
  req.resume()
  const nonce = req.method === 'GET' ? probes.take(req.url ?? '') : undefined
  if (nonce === undefined) return text(404, UNKNOWN_PROBE)
  return {
    body: nonce,
    headers: [
      ['cache-control', 'no-store'],
      ['content-type', 'text/plain'],
    ],
    status: 200,
  }
}
