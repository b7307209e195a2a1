/**
 * Proof of reachability for `webhooks listen`: a request through the public URL that only this listener can
 * answer. The listener issues a one-time random nonce; the probe GETs `<public URL>/.well-known/commerce-cli-probe/
 * <nonce>`; the listener answers that path (before anything else: never forwarded, recorded or counted) with the
 * nonce, once. The probe came back when the answer is 200 with the nonce. When it does not, the failure names the
 * hop: the name does not resolve, the connection is refused, TLS fails, nothing answers in time, or something
 * else answers (a tunnel's error page, another server).
 */
import {randomBytes} from 'node:crypto'

import {loadUndici} from '../api/undici.js'
import {monotonicMs} from '../domain/clock.js'

export const PROBE_PATH = '/.well-known/commerce-cli-probe/'
/** Seconds a probe may take, unless the caller says otherwise. */
export const DEFAULT_PROBE_TIMEOUT_MS = 10_000

export type ProbeHop = 'dns' | 'refused' | 'tls' | 'timeout' | 'other_answer' | 'network'

export type ProbeResult = {ok: true; duration_ms: number} | {ok: false; hop: ProbeHop; message: string}

/** The nonces this listener has issued and not yet seen: each answers once. */
export class ProbeNonces {
  private readonly open = new Set<string>()
  /** Probes that reached this listener (for tests and --debug). */
  arrived = 0

  issue(): string {
    const nonce = randomBytes(16).toString('hex')
    this.open.add(nonce)
    return nonce
  }

  /** The listener's answer to a request on PROBE_PATH: the nonce when it is one of ours (consumed), else undefined. */
  take(path: string): string | undefined {
    const at = path.indexOf(PROBE_PATH)
    const nonce = at === -1 ? '' : path.slice(at + PROBE_PATH.length).split(/[/?#]/, 1)[0]
    if (!this.open.delete(nonce)) return undefined
    this.arrived += 1
    return nonce
  }

  forget(nonce: string): void {
    this.open.delete(nonce)
  }
}

/** `https://x.example.com/hooks/` + the probe path. */
/** What a listener answers (404) on its probe path to a nonce it did not issue: it is there, and it is ours. */
export const UNKNOWN_PROBE = 'unknown probe'

/**
 * Whether a `webhooks listen` listener answers at `url` now (any of ours: its answer to an unknown probe), within
 * `timeoutMs`; false for no answer, or an answer from something else.
 */
export async function listening(url: string, timeoutMs: number): Promise<boolean> {
  const {Agent, request} = await loadUndici()
  const agent = new Agent({connect: {timeout: timeoutMs}, pipelining: 0})
  try {
    const response = await request(probeUrl(url, 'alive'), {dispatcher: agent, method: 'GET', signal: AbortSignal.timeout(timeoutMs)})
    const body = await response.body.text()
    return response.statusCode === 404 && body.trim() === UNKNOWN_PROBE
  } catch {
    return false
  } finally {
    void agent.destroy().catch(() => {})
  }
}

function probeUrl(publicUrl: string, nonce: string): string {
  const url = new URL(publicUrl)
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${PROBE_PATH}${nonce}`
  url.search = ''
  url.hash = ''
  return url.href
}

const TLS_CODES =
  /^(CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT)/

/** Sends one probe through `publicUrl` and says whether it came back to this listener. */
export async function probe(publicUrl: string, nonces: ProbeNonces, options: {timeoutMs?: number} = {}): Promise<ProbeResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS
  const nonce = nonces.issue()
  const host = new URL(publicUrl).host
  const started = monotonicMs()
  const {Agent, request} = await loadUndici()
  const agent = new Agent({connect: {timeout: timeoutMs}, pipelining: 0})
  const signal = AbortSignal.timeout(timeoutMs)
  try {
    const response = await request(probeUrl(publicUrl, nonce), {dispatcher: agent, headers: {'cache-control': 'no-cache'}, method: 'GET', signal})
    let body = ''
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      if (body.length < 4096) body += chunk.toString('utf8')
    }
    if (response.statusCode === 200 && body.trim() === nonce) return {duration_ms: Math.round(monotonicMs() - started), ok: true}
    const said = body.trim().split('\n', 1)[0].slice(0, 120)
    return {
      hop: 'other_answer',
      message: `${host} answered HTTP ${response.statusCode}${said ? ` (${JSON.stringify(said)})` : ''}, not this listener: the URL does not lead here`,
      ok: false,
    }
  } catch (error) {
    if (signal.aborted)
      return {
        hop: 'timeout',
        message: `no answer through ${host} within ${timeoutMs / 1000} s: the tunnel does not route to this listener`,
        ok: false,
      }
    const err = error as {code?: string; cause?: {code?: string; message?: string}; message?: string}
    const code = err.cause?.code ?? err.code ?? ''
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
      return {hop: 'dns', message: `the name ${new URL(publicUrl).hostname} does not resolve`, ok: false}
    if (code === 'ECONNREFUSED') return {hop: 'refused', message: `${host} refused the connection`, ok: false}
    if (code === 'UND_ERR_CONNECT_TIMEOUT') return {hop: 'timeout', message: `no connection to ${host} within ${timeoutMs / 1000} s`, ok: false}
    if (TLS_CODES.test(code)) return {hop: 'tls', message: `TLS with ${host} failed (${code})`, ok: false}
    return {hop: 'network', message: `the request to ${host} failed: ${err.cause?.message ?? err.message ?? code}`, ok: false}
  } finally {
    nonces.forget(nonce)
    void agent.destroy().catch(() => {})
  }
}
