/**
 * A listener that proves it is reachable, and reuses its endpoint:
 * `webhooks listen` as a process against the sandbox, with the stand-in tunnels on PATH routing for real
 * (FAKE_TUNNEL_ROUTE=proxy: an HTTPS edge on loopback with the test certificate, trusted through
 * NODE_EXTRA_CA_CERTS) or not at all (blackhole).
 */
import {existsSync, readFileSync} from 'node:fs'
import {delimiter, dirname, join, resolve} from 'node:path'
import {Agent, fetch} from 'undici'
import {afterEach, describe, expect, it} from 'vitest'

import {SIGNATURE_HEADER, signPayload} from '../../src/domain/signature.js'
import {killAll, type Receiver, type Session, spawnCli, startReceiver, startSession, until} from '../helpers/webhooks-setup.js'

const fixtures = resolve(import.meta.dirname, '../fixtures')
const CA = join(fixtures, 'tls', 'cert.pem')
const PATH = [join(fixtures, 'bin'), dirname(process.execPath)].join(delimiter)
const edge = new Agent({connect: {ca: readFileSync(CA)}})

let session: Session | undefined
let receiver: Receiver | undefined
afterEach(async () => {
  await killAll()
  await receiver?.close()
  receiver = undefined
  await session?.close()
  session = undefined
})

const listen = (s: Session, args: string[], env: Record<string, string> = {}) =>
  spawnCli(['webhooks', 'listen', '--json', ...args], {...s.env, NODE_EXTRA_CA_CERTS: CA, PATH, ...env})
const requests = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [])
const probes = (file: string) => requests(file).filter((l) => l.includes('/.well-known/commerce-cli-probe/'))

/** A signed delivery posted through the tunnel's public URL, as the service would send it. */
async function deliver(url: string, secret: string, id: string): Promise<number> {
  const body = JSON.stringify({created_at: new Date().toISOString(), data: {id: 1}, id, type: 'order.paid'})
  const res = await fetch(url, {
    body,
    dispatcher: edge,
    headers: {'content-type': 'application/json', [SIGNATURE_HEADER]: signPayload(secret, body, Math.floor(Date.now() / 1000))},
    method: 'POST',
  })
  await res.arrayBuffer()
  return res.status
}

describe('proof of reachability', () => {
  it('against the sandbox: verified_reachable true; the probe is neither an event nor in the inbox', async () => {
    session = await startSession()
    const p = listen(session, ['--event', 'order.paid', '--max-events', '1', '--timeout', '20'])
    const ready = await p.json(0)
    expect(ready).toMatchObject({ready: true, verified_reachable: true})
    await until(() => p.stderr().includes('Reachable: a probe through'))
    const trigger = await session.cli(['webhooks', 'trigger', 'order.paid', '--json'])
    expect(trigger.code, trigger.stderr).toBe(0)
    expect(await p.json(1)).toMatchObject({id: trigger.json().event_id, type: 'order.paid'})
    expect((await p.exited).code).toBe(0)
    const inbox = (await session.cli(['webhooks', 'events', '--json'])).json()
    expect(inbox.map((r: {id: string}) => r.id)).toEqual([trigger.json().event_id])
  })

  it.each(['cloudflared', 'ngrok'])(
    'through a routing %s tunnel: true only after the round trip; a delivery through it is forwarded; --no-probe is null',
    async (provider) => {
      session = await startSession()
      receiver = await startReceiver()
      const log = join(session.dir, 'edge.log')
      const p = listen(session, ['--tunnel', provider, '--forward-to', receiver.url, '--heartbeat', '0'], {
        FAKE_TUNNEL_REQUESTS_FILE: log,
        FAKE_TUNNEL_ROUTE: 'proxy',
      })
      const ready = await p.json(0)
      expect(ready).toMatchObject({verified_reachable: true})
      expect(ready.public_url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
      // The probe went through the tunnel's edge before the ready line, once.
      expect(probes(log)).toHaveLength(1)
      expect(await deliver(ready.public_url, session.secrets()[ready.endpoint_id], 'evt_through')).toBe(200)
      expect(await p.json(1)).toMatchObject({forward_status: 200, id: 'evt_through'})
      p.child.kill('SIGTERM')
      expect((await p.exited).code).toBe(0)

      const skip = listen(session, ['--tunnel', provider, '--no-probe'], {
        FAKE_TUNNEL_REQUESTS_FILE: join(session.dir, 'edge2.log'),
        FAKE_TUNNEL_ROUTE: 'proxy',
      })
      expect(await skip.json(0)).toMatchObject({verified_reachable: null})
      expect(probes(join(session.dir, 'edge2.log'))).toHaveLength(0)
    },
  )

  it('a tunnel that starts but does not route: false and a warning naming the tunnel; with --exit-on-unreachable, exit 1', async () => {
    session = await startSession()
    const env = {COMMERCE_WEBHOOK_PROBE_TIMEOUT: '1', FAKE_TUNNEL_ROUTE: 'blackhole'}
    const p = listen(session, ['--tunnel', 'cloudflared', '--heartbeat', '0'], env)
    expect(await p.json(0)).toMatchObject({verified_reachable: false})
    await until(() => /Warning: A probe through the cloudflared tunnel's URL .* did not come back: no answer through .* within 1 s/.test(p.stderr()))

    const strict = listen(session, ['--tunnel', 'cloudflared', '--exit-on-unreachable'], env)
    expect((await strict.exited).code).toBe(1)
    // No ready line: the only document is the error.
    expect(strict.lines).toHaveLength(1)
    expect(JSON.parse(strict.lines[0]).error.message).toMatch(/cloudflared tunnel's URL .* did not come back.*--exit-on-unreachable/s)
  })

  it('heartbeats repeat the probe; --heartbeat 0 sends none after the first', async () => {
    session = await startSession()
    const beating = join(session.dir, 'beating.log')
    const quiet = join(session.dir, 'quiet.log')
    const a = listen(session, ['--tunnel', 'cloudflared', '--heartbeat', '0.2'], {FAKE_TUNNEL_REQUESTS_FILE: beating, FAKE_TUNNEL_ROUTE: 'proxy'})
    const b = listen(session, ['--tunnel', 'cloudflared', '--heartbeat', '0'], {FAKE_TUNNEL_REQUESTS_FILE: quiet, FAKE_TUNNEL_ROUTE: 'proxy'})
    await Promise.all([a.json(0), b.json(0)])
    await until(() => probes(beating).length >= 4, 15_000)
    expect(probes(quiet)).toHaveLength(1)
    // Probes are never deliveries: no event lines.
    expect(a.lines).toHaveLength(1)
  })
})

describe('recovery', () => {
  const tunnelPid = (file: string) => JSON.parse(readFileSync(file, 'utf8')).pid as number

  it.each(['cloudflared', 'ngrok'])(
    'a %s tunnel killed mid-run is restarted and re-registered, said on the --json channel; a delivery after recovery is forwarded',
    async (provider) => {
      session = await startSession()
      receiver = await startReceiver()
      const args = join(session.dir, 'tunnel.json')
      const p = listen(session, ['--tunnel', provider, '--forward-to', receiver.url, '--heartbeat', '0'], {
        FAKE_TUNNEL_ARGS_FILE: args,
        FAKE_TUNNEL_ROUTE: 'proxy',
      })
      const ready = await p.json(0)
      process.kill(tunnelPid(args), 'SIGKILL')
      expect(await p.json(1)).toMatchObject({event: 'unreachable', reason: 'tunnel_exited'})
      const recovered = await p.json(2)
      expect(recovered).toMatchObject({event: 'recovered', re_registered: true, verified_reachable: true})
      expect(recovered.public_url).not.toBe(ready.public_url)
      expect(recovered.endpoint_id).not.toBe(ready.endpoint_id)
      const endpoints = (await session.cli(['webhooks', 'list', '--json'])).json()
      expect(endpoints.map((e: {url: string}) => e.url)).toEqual(expect.arrayContaining([recovered.public_url]))
      expect(await deliver(recovered.public_url, session.secrets()[recovered.endpoint_id], 'evt_after')).toBe(200)
      expect(await p.json(3)).toMatchObject({forward_status: 200, id: 'evt_after'})
      expect(receiver.received).toHaveLength(1)
      process.kill(tunnelPid(args), 'SIGKILL') // the restarted one
      p.child.kill('SIGTERM')
    },
    30_000,
  )

  it('a missed heartbeat is reported at once, and the recovery when the tunnel routes again; with --exit-on-unreachable, exit 1', async () => {
    session = await startSession()
    const args = join(session.dir, 'tunnel.json')
    const env = {COMMERCE_WEBHOOK_PROBE_TIMEOUT: '1', FAKE_TUNNEL_ARGS_FILE: args, FAKE_TUNNEL_ROUTE: 'proxy'}
    const p = listen(session, ['--tunnel', 'cloudflared', '--heartbeat', '0.3'], env)
    const ready = await p.json(0)
    process.kill(tunnelPid(args), 'SIGUSR1') // the edge swallows requests from now on
    const lost = await p.json(1)
    expect(lost).toMatchObject({event: 'unreachable', reason: 'probe_failed'})
    expect(lost.message).toMatch(/heartbeat probe .* did not come back: no answer/)
    process.kill(tunnelPid(args), 'SIGUSR1') // and routes again
    expect(await p.json(2)).toMatchObject({endpoint_id: ready.endpoint_id, event: 'recovered', public_url: ready.public_url, re_registered: false})
    expect(p.running()).toBe(true)
    p.child.kill('SIGTERM')
    expect((await p.exited).code).toBe(0)

    const strictArgs = join(session.dir, 'strict.json')
    const strict = listen(session, ['--tunnel', 'cloudflared', '--heartbeat', '0.3', '--exit-on-unreachable'], {
      ...env,
      FAKE_TUNNEL_ARGS_FILE: strictArgs,
    })
    await strict.json(0)
    process.kill(tunnelPid(strictArgs), 'SIGUSR1')
    expect((await strict.exited).code).toBe(1)
    expect(JSON.parse(strict.lines.at(-1)!).error.message).toMatch(/heartbeat probe .* did not come back.*--exit-on-unreachable/)
  }, 30_000)

  it('with --exit-on-unreachable the same kill is exit 1', async () => {
    session = await startSession()
    const args = join(session.dir, 'tunnel.json')
    const p = listen(session, ['--tunnel', 'cloudflared', '--exit-on-unreachable', '--heartbeat', '0'], {
      FAKE_TUNNEL_ARGS_FILE: args,
      FAKE_TUNNEL_ROUTE: 'proxy',
    })
    await p.json(0)
    process.kill(tunnelPid(args), 'SIGKILL')
    expect((await p.exited).code).toBe(1)
    expect(JSON.parse(p.lines.at(-1)!).error.message).toMatch(/cloudflared tunnel stopped/)
    expect(p.lines.some((l) => l.includes('"recovered"'))).toBe(false)
  })
})

describe('listen without --port', () => {
  it('reuses the previous run’s port and so its endpoint: three runs leave one endpoint', async () => {
    session = await startSession()
    const urls: string[] = []
    for (let run = 0; run < 3; run++) {
      const p = listen(session, [])
      urls.push((await p.json(0)).public_url)
      p.child.kill('SIGTERM')
      expect((await p.exited).code).toBe(0)
    }
    expect(new Set(urls).size).toBe(1)
    const endpoints = (await session.cli(['webhooks', 'list', '--json'])).json()
    expect(endpoints).toHaveLength(1)
  })

  it('webhooks list marks the endpoint of a running listen as listening, and stale once it has ended', async () => {
    session = await startSession()
    const p = listen(session, [])
    const ready = await p.json(0)
    const running = await session.cli(['webhooks', 'list'])
    expect(running.code, running.stderr).toBe(0)
    expect(running.stdout).toMatch(new RegExp(`^${ready.endpoint_id}\\b.*\\blistening$`, 'm'))
    p.child.kill('SIGTERM')
    expect((await p.exited).code).toBe(0)
    const ended = await session.cli(['webhooks', 'list'])
    expect(ended.stdout).toMatch(new RegExp(`^${ready.endpoint_id}\\b.*\\bstale$`, 'm'))
    expect(ended.stderr).toContain('1 endpoint that `webhooks listen` registered no longer answers (stale); the service cannot delete endpoints.')
    // --json is the service's list as it came.
    expect((await session.cli(['webhooks', 'list', '--json'])).json()[0]).not.toHaveProperty('state')
  })
})
