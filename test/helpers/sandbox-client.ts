/** A few lines of fetch for the sandbox tests: JSON in, status/headers/parsed body out. */
import type {ApiVersion, Scope} from '../../src/domain/schema.js'
import type {TestSandbox} from './sandbox.js'

export interface Answer {
  status: number
  headers: Headers
  text: string
  body: any
}

export interface CallOptions {
  token?: string
  /** Sent as JSON with `Content-Type: application/json`. */
  json?: unknown
  /** Sent as is (no Content-Type unless given in `headers`). */
  raw?: string | Buffer
  headers?: Record<string, string>
}

export async function call(sb: TestSandbox, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {accept: 'application/json', ...options.headers}
  if (options.token) headers.authorization = `Bearer ${options.token}`
  // The control path takes writes with a JSON content type only (see src/sandbox/guard.ts).
  if (path.startsWith('/_sandbox/') && method !== 'GET' && options.raw === undefined) headers['content-type'] ??= 'application/json'
  let body: string | Buffer | undefined = options.raw
  if (options.json !== undefined) {
    headers['content-type'] ??= 'application/json'
    body = JSON.stringify(options.json)
  }
  const res = await fetch(`${sb.baseUrl}${path}`, {body, headers, method})
  const text = await res.text()
  let parsed: unknown
  try {
    parsed = text === '' ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  return {body: parsed, headers: res.headers, status: res.status, text}
}

/** An access token for key 0 (every scope) or key 1 (customers:read). */
export async function token(sb: TestSandbox, key = 0, scopes?: Scope[], version: ApiVersion = 'v2'): Promise<string> {
  const {key_id, key_secret} = sb.keys[key]
  const r = await call(sb, 'POST', `/api/${version}/auth/tokens`, {json: {key_id, key_secret, scopes}})
  if (r.status !== 201) throw new Error(`token issue failed: ${r.status} ${r.text}`)
  return r.body.access_token as string
}

export async function createCustomer(sb: TestSandbox, tok: string, email: string, extra: Record<string, unknown> = {}): Promise<Answer> {
  return call(sb, 'POST', '/api/v2/customers', {json: {email, name: email.split('@')[0], ...extra}, token: tok})
}

export async function createOrder(sb: TestSandbox, tok: string, body: Record<string, unknown>, key: string = crypto.randomUUID()): Promise<Answer> {
  return call(sb, 'POST', '/api/v2/orders', {headers: {'idempotency-key': key}, json: body, token: tok})
}
