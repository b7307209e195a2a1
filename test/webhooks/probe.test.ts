/** The reachability probe (src/webhooks/probe.ts) against real loopback servers: each failing hop is named. */
import {readFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import type {AddressInfo} from 'node:net'
import {join, resolve} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {startListener, type Listener} from '../../src/webhooks/listener.js'
import {listening, PROBE_PATH, probe, ProbeNonces} from '../../src/webhooks/probe.js'
import {deadPort} from '../helpers/webhooks.js'

const TLS = resolve(import.meta.dirname, '../fixtures/tls')
let servers: Array<Server | Listener> = []
afterEach(async () => {
  await Promise.all(servers.map((s) => ('localUrl' in s ? s.close() : new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r()))))))
  servers = []
})

async function serve(server: Server): Promise<string> {
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return `127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('listening (webhooks list: is a listen endpoint stale?)', () => {
  it('true for a running listener, false for a refused port, another server, or one that never answers, within the deadline', async () => {
    // As webhooks listen starts it: with its probe nonces, so that its probe path answers.
    const listener = await startListener({probes: new ProbeNonces(), skipVerify: true})
    servers.push(listener)
    expect(await listening(`${listener.localUrl}/`, 1000)).toBe(true)
    expect(await listening(`http://127.0.0.1:${await deadPort()}/`, 1000)).toBe(false)
    const other = await serve(createServer((_req, res) => res.writeHead(404).end('not found\n')))
    expect(await listening(`http://${other}/`, 1000)).toBe(false)
    const silent = await serve(createServer(() => {})) // accepts, never answers
    const started = Date.now()
    expect(await listening(`http://${silent}/`, 300)).toBe(false)
    expect(Date.now() - started).toBeLessThan(3000)
  })
})

describe('probe', () => {
  it('comes back from the listener that issued the nonce, once; the listener records and forwards nothing', async () => {
    const nonces = new ProbeNonces()
    const events: unknown[] = []
    const listener = await startListener({onEvent: (e) => events.push(e), probes: nonces, skipVerify: true})
    servers.push(listener)
    expect(await probe(`${listener.localUrl}/any/prefix/`, nonces)).toMatchObject({ok: true})
    expect(nonces.arrived).toBe(1)
    // Another listener's nonces (or a replayed probe URL) are not answered.
    const other = await probe(listener.localUrl, new ProbeNonces())
    expect(other).toMatchObject({hop: 'other_answer', ok: false})
    expect(other.ok || other.message).toMatch(/answered HTTP 404/)
    expect(events).toEqual([])
    const replayed = await fetch(`${listener.localUrl}${PROBE_PATH}${'0'.repeat(32)}`)
    expect(replayed.status).toBe(404)
  })

  it('names the hop that failed: refused, another answer, timeout, TLS, a name that does not resolve', async () => {
    const nonces = new ProbeNonces()
    expect(await probe(`http://127.0.0.1:${await deadPort()}/`, nonces)).toMatchObject({hop: 'refused', ok: false})

    const page = await serve(createServer((_req, res) => res.writeHead(502).end('Bad gateway: origin unreachable\n')))
    const answered = await probe(`http://${page}/`, nonces)
    expect(answered).toMatchObject({hop: 'other_answer', ok: false})
    expect(answered.ok || answered.message).toContain('HTTP 502 ("Bad gateway: origin unreachable")')

    const silent = await serve(createServer(() => {}))
    const started = Date.now()
    expect(await probe(`http://${silent}/`, nonces, {timeoutMs: 300})).toMatchObject({hop: 'timeout', ok: false})
    expect(Date.now() - started).toBeLessThan(3000)

    const tls = await serve(
      createHttpsServer({cert: readFileSync(join(TLS, 'cert.pem')), key: readFileSync(join(TLS, 'key.pem'))}, (_req, res) => res.end('x')),
    )
    expect(await probe(`https://${tls}/`, nonces)).toMatchObject({hop: 'tls', ok: false})

    // .invalid never resolves (RFC 6761); without a network the lookup fails too: either way, the name.
    const dns = await probe('https://no-such-tunnel.invalid/', nonces, {timeoutMs: 5000})
    expect(dns.ok).toBe(false)
    if (!dns.ok) expect(['dns', 'timeout']).toContain(dns.hop)
  })
})
