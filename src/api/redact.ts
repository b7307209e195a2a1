/**
 * Redaction for the --debug trace: `key_secret` and signing secrets are never shown, an access token at most
 * as its first 4 characters and an ellipsis.
 */
import {abbreviateToken} from '../config/store.js'

const HIDDEN = new Set(['key_secret', 'signing_secret', 'secret', 'password', 'client_secret'])
const ABBREVIATED = new Set(['access_token', 'refresh_token', 'token'])

function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    if (HIDDEN.has(k) && v !== null && v !== undefined) out[k] = '[redacted]'
    else if (ABBREVIATED.has(k) && typeof v === 'string') out[k] = abbreviateToken(v)
    else out[k] = redactValue(v)
  }
  return out
}

/** A JSON body with secrets removed; a body that is not JSON is shown only when it carries no known secret field. */
export function redactBody(text: string): string {
  try {
    return JSON.stringify(redactValue(JSON.parse(text)))
  } catch {
    return /key_secret|signing_secret|access_token/.test(text) ? '[body not shown: it may contain a secret]' : text.slice(0, 2000)
  }
}

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) {
    out[k] = k.toLowerCase() === 'authorization' ? v.replace(/^(Bearer\s+)(\S+)$/i, (_, p: string, t: string) => p + abbreviateToken(t)) : v
  }
  return out
}
