/**
 * A request to the listener, from its arrival to its answer: the probe path first, then what can be refused before
 * the body is read (method, content type, signature header, a full listener), then the body, read within its
 * bounds (its own size and the bytes held across connections), then the delivery (listener-deliver.ts).
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
  state.admitted += 1
  held.admitted = true
  held.release = readBody(state, req, res, send, early.signature)
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
    const reason: VerifyFailure | undefined = !value?.trim() ? 'missing' : signature ? undefined : 'malformed'
    if (reason) return refuse(state.reject(req, 400, reason, describeVerifyFailure(reason)))
  }
  // Full (the forward queue) or stopping: 503 before the body is read, so a flood costs no memory.
  if (state.closing || state.admitted >= state.maxAdmitted)
    return refuse(
      state.busy(req, state.closing ? 'the listener is stopping, retry later' : `${state.maxAdmitted} deliveries in progress, retry later`),
    )
  return {signature}
}

/**
 * Reads the body within its bounds, then delivers it. Bytes are counted against maxHeldBytes until the answer:
 * the declared length up front (so that a thousand senders stalling before their first byte are counted too),
 * more if more comes. Returns what lets them go, for the answer's end.
 */
function readBody(state: ListenerState, req: IncomingMessage, res: ServerResponse, send: Send, signature: ParsedSignature | undefined): () => void {
  const {maxBodyBytes} = state
  const chunks: Buffer[] = []
  let size = 0
  let over = false
  let released = false
  let counted = 0
  const release = () => {
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
  const declared = Number(req.headers['content-length'] ?? 0) || 0
  if (declared > maxBodyBytes) {
    tooLarge()
    return release
  }
  if (state.heldBytes + declared > state.maxHeldBytes) {
    busy()
    return release
  }
  counted = declared
  state.heldBytes += declared
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
    if (over) return
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
