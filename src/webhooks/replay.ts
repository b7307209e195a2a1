/** Sends a recorded delivery again: its raw body byte for byte, with its recorded headers. */
import {SIGNATURE_HEADER, signPayload} from '../domain/signature.js'
import {DEFAULT_FORWARD_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, endToEndHeaders, forwardDelivery} from './forward.js'
import {decodeBody, type InboxRecord} from './inbox.js'

export interface ReplayOptions {
  record: Pick<InboxRecord, 'headers' | 'body' | 'body_encoding'>
  forwardTo: string
  /** When given, the recorded X-Service-Signature is replaced by a fresh one (the recorded one may be stale). */
  secret?: string
  timeoutMs?: number
  /** Milliseconds since the epoch, for the fresh signature's timestamp. */
  now?: () => number
}

export interface ReplayResult {
  status: number
  duration_ms: number
  /** The receiver's end-to-end headers and body (up to DEFAULT_MAX_BODY_BYTES). */
  headers: Array<[string, string]>
  body: Buffer
  /** The headers sent (the recorded ones, with the fresh signature when one was made). */
  sent: Array<[string, string]>
}

/** Throws ForwardError when the receiver cannot be reached or does not answer in time. */
export async function replayEvent(options: ReplayOptions): Promise<ReplayResult> {
  const body = decodeBody(options.record)
  // Recorded end to end; filtered again all the same, as a record is a file anyone may have edited.
  const headers = endToEndHeaders(Object.entries(options.record.headers))
  if (options.secret !== undefined) {
    const timestamp = Math.floor((options.now ?? Date.now)() / 1000)
    const fresh = signPayload(options.secret, body, timestamp)
    const index = headers.findIndex(([name]) => name.toLowerCase() === SIGNATURE_HEADER)
    if (index >= 0) headers[index] = [headers[index][0], fresh]
    else headers.push([SIGNATURE_HEADER, fresh])
  }
  const result = await forwardDelivery({
    body,
    headers,
    maxResponseBytes: DEFAULT_MAX_BODY_BYTES,
    timeoutMs: options.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS,
    url: options.forwardTo,
  })
  return {body: result.body, duration_ms: result.duration_ms, headers: result.headers, sent: headers, status: result.status}
}
