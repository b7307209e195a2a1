/**
 * The webhook signature scheme, in one module: the day the service documents its own, this file changes.
 *
 *   X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v1=<...>]
 *
 * Several `v1=` entries may appear (secret rotation); any one matching is enough. Comparison is constant
 * time, and the timestamp must lie within the tolerance in either direction (stale or from the future).
 */
import {createHmac, timingSafeEqual} from 'node:crypto'

export const SIGNATURE_HEADER = 'x-service-signature'
export const DEFAULT_TOLERANCE_SECONDS = 300

export function computeSignature(secret: string, timestamp: number, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex')
}

/** The full header value for a payload. */
export function signPayload(secret: string, rawBody: Buffer | string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, rawBody)}`
}

export interface ParsedSignature {
  timestamp: number
  signatures: string[]
}

/** Parses a header value; `undefined` when it is malformed (no integer `t`, no hex `v1`). Unknown keys are ignored. */
export function parseSignatureHeader(header: string): ParsedSignature | undefined {
  let timestamp: number | undefined
  const signatures: string[] = []
  for (const part of header.split(',')) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    const key = part.slice(0, eq).trim()
    const value = part.slice(eq + 1).trim()
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) return undefined
      timestamp = Number(value)
    } else if (key === 'v1') {
      if (/^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase())
    }
  }
  if (timestamp === undefined || signatures.length === 0) return undefined
  return {signatures, timestamp}
}

export type VerifyFailure = 'missing' | 'malformed' | 'mismatch' | 'too_old' | 'too_new'

/** A short, human reason for a failed verification (never includes the secret or the expected signature). */
export function describeVerifyFailure(reason: VerifyFailure): string {
  switch (reason) {
    case 'missing':
      return 'missing X-Service-Signature header'
    case 'malformed':
      return 'malformed X-Service-Signature header (expected t=<unix seconds>,v1=<hex>)'
    case 'mismatch':
      return 'signature does not match the payload'
    case 'too_old':
      return 'signature timestamp is older than the tolerance'
    case 'too_new':
      return 'signature timestamp is in the future beyond the tolerance'
  }
}

export interface VerifyResult {
  valid: boolean
  reason: VerifyFailure | null
  timestamp?: number
}

export interface VerifyOptions {
  toleranceSeconds?: number
  /** Unix seconds; defaults to the current time. */
  now?: number
}

export function verifySignature(
  secret: string | readonly string[],
  header: string | undefined | null,
  rawBody: Buffer | string,
  options: VerifyOptions = {},
): VerifyResult {
  if (header === undefined || header === null || header.trim() === '') return {reason: 'missing', valid: false}
  const parsed = parseSignatureHeader(header)
  if (!parsed) return {reason: 'malformed', valid: false}
  return verifyParsedSignature(secret, parsed, rawBody, options)
}

/** verifySignature for a header already parsed (the listener parses it once, before reading the body). */
export function verifyParsedSignature(
  secret: string | readonly string[],
  parsed: ParsedSignature,
  rawBody: Buffer | string,
  options: VerifyOptions = {},
): VerifyResult {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  const now = options.now ?? Math.floor(Date.now() / 1000)
  const secrets = typeof secret === 'string' ? [secret] : secret
  let matched = false
  for (const s of secrets) {
    const expected = Buffer.from(computeSignature(s, parsed.timestamp, rawBody), 'hex')
    for (const candidate of parsed.signatures) {
      // Both buffers are 32 bytes (64 hex chars checked above), so timingSafeEqual never throws.
      if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true
    }
  }
  if (!matched) return {reason: 'mismatch', timestamp: parsed.timestamp, valid: false}
  if (parsed.timestamp < now - tolerance) return {reason: 'too_old', timestamp: parsed.timestamp, valid: false}
  if (parsed.timestamp > now + tolerance) return {reason: 'too_new', timestamp: parsed.timestamp, valid: false}
  return {reason: null, timestamp: parsed.timestamp, valid: true}
}

/** The delivery body of the contract. */
export interface WebhookEvent<T = unknown> {
  id: string
  type: string
  created_at: string
  data: T
}
