/**
 * The control path (`/_sandbox/...`) has no authentication, so it must not be reachable from a web page the
 * operator happens to visit (a cross-site "simple" request, or DNS rebinding). It accepts a request only when:
 * - its `Host` names the address the sandbox is bound to, with the port (bound to loopback: also `localhost`,
 *   `127.0.0.1` and `[::1]`; bound to every address: the loopback names and this machine's own addresses);
 * - it carries no `Origin`, or an `Origin` of `http://` + one of those hosts (the inspector page's own);
 * - for a write (any method but GET/HEAD), its `Content-Type` is JSON: a browser cannot send that cross-site
 *   without a CORS preflight, which the sandbox never grants.
 */
import type {IncomingMessage} from 'node:http'
import {networkInterfaces} from 'node:os'

import {HttpError} from './http.js'

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost'])
const WILDCARD = new Set(['0.0.0.0', '::'])
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i

export function isLoopback(address: string): boolean {
  return LOOPBACK.has(address) || address.startsWith('127.')
}

function hostName(address: string): string {
  return address.includes(':') ? `[${address}]` : address
}

/** The `Host` values (lower case, with the port) the control path accepts for a server bound to `address`. */
export function allowedHosts(address: string, port: number): Set<string> {
  const names = new Set<string>([address])
  if (isLoopback(address) || WILDCARD.has(address)) for (const n of LOOPBACK) names.add(n)
  if (WILDCARD.has(address)) for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) names.add(i.address)
  names.delete('0.0.0.0')
  names.delete('::')
  return new Set([...names].map((n) => `${hostName(n)}:${port}`.toLowerCase()))
}

export function checkControlRequest(req: IncomingMessage, hosts: Set<string>): void {
  const host = (req.headers.host ?? '').toLowerCase()
  if (!hosts.has(host))
    throw new HttpError(403, `The sandbox control path answers only requests addressed to the sandbox itself (Host ${JSON.stringify(host)} is not)`)
  const origin = req.headers.origin
  if (origin !== undefined) {
    let ok = false
    try {
      const url = new URL(origin)
      ok = url.protocol === 'http:' && hosts.has(url.host.toLowerCase())
    } catch {}
    if (!ok) throw new HttpError(403, `The sandbox control path refuses requests from other sites (Origin ${JSON.stringify(origin)})`)
  }
  const method = req.method ?? 'GET'
  if (method !== 'GET' && method !== 'HEAD') {
    const type = req.headers['content-type']
    if (!type || !JSON_TYPE.test(type))
      throw new HttpError(
        415,
        `A write to the sandbox control path must have Content-Type: application/json (got ${type ? JSON.stringify(type) : 'none'})`,
      )
  }
}
