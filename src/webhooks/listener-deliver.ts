/**
 * A delivery whose body has been read: verified (signature, tolerance, an event's shape), filtered by type,
 * forwarded to the receiver in one of the forward slots, recorded in the inbox, then reported.
 */
import type {IncomingMessage} from 'node:http'
import {type ParsedSignature, describeVerifyFailure, verifyParsedSignature} from '../domain/signature.js'
import {loadUndici} from '../api/undici.js'
import {ForwardError, endToEndHeaders, forwardDelivery, rawHeaderPairs} from './forward.js'
import {parseEvent} from './event-body.js'
import {encodeBody, headerObject, type InboxAnswer, recordAnswer} from './inbox.js'
import type {ListenerEvent} from './listener.js'
import {type Answer, type ListenerState, text} from './listener-state.js'
import {monotonicMs} from '../domain/clock.js'

/** `signature`: the delivery's signature header as parsed before its body was read (none with --skip-verify). */
export async function deliver(state: ListenerState, req: IncomingMessage, body: Buffer, signature: ParsedSignature | undefined): Promise<Answer> {
  const {options} = state
  const receivedAt = state.now()
  const started = monotonicMs()
  if (!options.skipVerify) {
    const result = signature
      ? verifyParsedSignature(state.secrets(), signature, body, {now: Math.floor(receivedAt / 1000), toleranceSeconds: options.toleranceSeconds})
      : {reason: 'missing' as const, valid: false}
    if (!result.valid && result.reason) return state.reject(req, 400, result.reason, describeVerifyFailure(result.reason))
  }
  const event = parseEvent(body)
  if (!event) return state.reject(req, 400, 'not_an_event', 'body is not a webhook event (JSON with string "id" and "type")')
  if (state.events && !state.events.has(event.type)) {
    options.onIgnored?.({id: event.id, type: event.type})
    return text(200, `ignored: not subscribed to ${event.type}`)
  }
  // The delivery's end-to-end headers, once: forwarded as they are, and recorded.
  const pairs = endToEndHeaders(rawHeaderPairs(req.rawHeaders))
  const forwarded = options.forwardTo ? await forward(state, req, pairs, body, started) : {answer: text(200, 'received')}
  if ('busy' in forwarded) return forwarded.busy
  const record: ListenerEvent = {
    created_at: event.created_at,
    duration_ms: Math.round(monotonicMs() - started),
    forward_status: forwarded.status ?? null,
    ...(forwarded.error === undefined ? {} : {forward_error: forwarded.error}),
    id: event.id,
    received_at: new Date(receivedAt).toISOString(),
    type: event.type,
  }
  if (options.inbox) {
    // Recorded before the sender gets its answer, so that an answered delivery is never missing from the inbox.
    const headers = headerObject(pairs)
    await options.inbox
      .append({
        ...record,
        ...(options.forwardTo ? {forward_to: options.forwardTo} : {}),
        headers,
        ...encodeBody(body),
        ...(forwarded.response ? {response: forwarded.response} : {}),
      })
      .catch((error: Error) => options.onInboxError?.(error))
  }
  options.onEvent?.(record)
  return forwarded.answer
}

interface Forwarded {
  /** What the sender gets: the receiver's answer, or 502/504. */
  answer: Answer
  /** The receiver's status; none when it could not be reached. */
  status?: number
  error?: string
  response?: InboxAnswer
}

/** To the receiver, in a forward slot; {busy} when no slot came in time. */
async function forward(
  state: ListenerState,
  req: IncomingMessage,
  headers: Array<[string, string]>,
  body: Buffer,
  started: number,
): Promise<Forwarded | {busy: Answer}> {
  // A slot, early enough to leave the receiver half the forward timeout before the sender's deadline (a forward
  // started later would likely be cut off, the receiver acting on a delivery its sender then sends again); else
  // 503, and the sender's retry comes back later.
  if (!(await state.gate.acquire(state.forwardTimeoutMs / 2)))
    return {busy: state.busy(req, `${state.concurrency} forwards in progress and the queue did not move in time, retry later`)}
  const budgetMs = Math.max(1, Math.round(state.forwardTimeoutMs - (monotonicMs() - started)))
  try {
    let result
    try {
      state.dispatcher ??= new (await loadUndici()).Agent({connections: state.concurrency, keepAliveTimeout: 4_000})
      result = await forwardDelivery({
        body,
        dispatcher: state.dispatcher,
        headers,
        maxResponseBytes: state.maxBodyBytes,
        saidTimeoutMs: state.forwardTimeoutMs,
        timeoutMs: budgetMs,
        url: state.options.forwardTo!,
      })
    } finally {
      state.gate.release()
    }
    return {answer: {body: result.body, headers: result.headers, status: result.status}, response: recordAnswer(result), status: result.status}
  } catch (error) {
    if (!(error instanceof ForwardError)) throw error
    const answer = error.timedOut
      ? text(504, `the receiver did not answer in time: ${error.message}`)
      : text(502, `could not forward to the receiver: ${error.message}`)
    return {answer, error: error.message}
  }
}
