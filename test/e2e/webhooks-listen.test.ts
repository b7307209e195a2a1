/**
 * `commerce webhooks listen` as a process, against an in-process sandbox and real receivers on loopback:
 * registration, verification, forwarding, the sandbox's retries, stopping (max events, timeout, signals),
 * endpoint reuse, tunnels (stand-in binaries on PATH) and usage errors.
 */
import {readFileSync} from 'node:fs'
import {delimiter, dirname, join, resolve} from 'node:path'
import {afterEach, describe, expect, it, onTestFinished} from 'vitest'

import {signPayload, verifySignature} from '../../src/domain/signature.js'
import {run, tempConfigDir} from '../helpers/cli.js'
import {startTestSandbox} from '../helpers/sandbox.js'
import {startInTmux} from '../helpers/tmux.js'
import {deadPort, killAll, type Receiver, type Session, spawnCli, startReceiver, startSession, until} from '../helpers/webhooks-setup.js'

let session: Session | undefined
let receivers: Receiver[] = []
afterEach(async () => {
  await killAll()
  await Promise.all(receivers.map((r) => r.close()))
  receivers = []
  await session?.close()
  session = undefined
})

const receiver = async (port = 0) => {
  const r = await startReceiver(port)
  receivers.push(r)
  return r
}
const listen = (s: Session, args: string[], env: Record<string, string> = {}) => spawnCli(['webhooks', 'listen', ...args], {...s.env, ...env})
const body = (id = 'evt_direct1') => JSON.stringify({created_at: new Date().toISOString(), data: {id: 7, status: 'paid'}, id, type: 'order.paid'})
const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
  fetch(url, {body: payload, headers: {'content-type': 'application/json', ...headers}, method: 'POST'})
const now = () => Math.floor(Date.now() / 1000)

describe('webhooks listen against the sandbox', () => {
  it('registers its loopback URL, verifies a triggered order.paid and forwards the identical body and headers; --max-events 1 exits 0', async () => {
    session = await startSession()
    const r = await receiver()
    const p = listen(session, ['--event', 'order.paid', '--json', '--forward-to', r.url, '--max-events', '1'])
    const ready = await p.json(0)
    expect(ready).toMatchObject({endpoint_id: expect.stringMatching(/^we_/), ready: true})
    expect(Object.keys(ready).sort()).toEqual(['endpoint_id', 'local_url', 'public_url', 'ready', 'verified_reachable'])
    expect(ready.verified_reachable).toBe(true)
    expect(ready.local_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(ready.public_url).toBe(`${ready.local_url}/`)
    expect(ready).not.toHaveProperty('signing_secret')
    // stderr, read on its own pipe, may lag the ready line.
    await until(() => p.stderr().includes(ready.local_url) && p.stderr().includes(ready.public_url))

    const trigger = await session.cli(['webhooks', 'trigger', 'order.paid', '--json'])
    expect(trigger.code, trigger.stderr).toBe(0)
    const {event_id: eventId, order} = trigger.json()
    expect(order.status).toBe('paid')

    const event = await p.json(1)
    expect(event).toMatchObject({forward_status: 200, id: eventId, type: 'order.paid'})
    expect(typeof event.created_at).toBe('string')
    expect(await p.exited).toEqual({code: 0, signal: null})
    expect(p.lines).toHaveLength(2)

    // The receiver got what the sandbox sent: the raw body and the signature, verifiable with the stored secret.
    const secret = session.secrets()[ready.endpoint_id]
    expect(secret).toMatch(/^whsec_/)
    expect(r.received).toHaveLength(1)
    const got = r.received[0]
    expect(got.url).toBe('/hooks')
    expect(JSON.parse(got.body.toString())).toMatchObject({id: eventId, type: 'order.paid', data: {id: order.id, status: 'paid'}})
    expect(verifySignature(secret, got.headers['x-service-signature'] as string, got.body).valid).toBe(true)
    expect(got.headers['x-service-event-id']).toBe(eventId)
    expect(got.headers['user-agent']).toBe('commerce-sandbox/1')
    expect(p.stderr() + p.lines.join('\n')).not.toContain(secret)

    // The inbox holds the same bytes and headers; the sandbox saw the receiver's 200.
    const events = await session.cli(['webhooks', 'events', '--json'])
    const [record] = events.json()
    expect(record).toMatchObject({forward_status: 200, id: eventId, type: 'order.paid'})
    expect(Buffer.from(record.body)).toEqual(got.body)
    expect(record.headers['x-service-signature']).toBe(got.headers['x-service-signature'])
    await session.sandbox.deliveriesSettled()
    expect(session.sandbox.deliveries().filter((d) => d.event_id === eventId)).toMatchObject([{outcome: 'delivered', status: 200}])
  })

  it('answers 400 to a missing, malformed, wrong, stale or future signature and forwards none of them', async () => {
    session = await startSession()
    const r = await receiver()
    const p = listen(session, ['--event', 'order.paid', '--json', '--forward-to', r.url, '--print-secret'])
    const ready = await p.json(0)
    const secret: string = ready.signing_secret
    expect(secret).toBe(session.secrets()[ready.endpoint_id])
    const payload = body()
    const url = `${ready.local_url}/any/path`

    const bad: Array<[string, Record<string, string>]> = [
      ['missing', {}],
      ['malformed', {'x-service-signature': 'v1=abc'}],
      ['wrong secret', {'x-service-signature': signPayload('whsec_not_it', payload)}],
      ['other body', {'x-service-signature': signPayload(secret, `${payload} `)}],
      // Well past the 300 s tolerance: the listener's clock may have ticked a second on since now() was read.
      ['stale', {'x-service-signature': signPayload(secret, payload, now() - 310)}],
      ['future', {'x-service-signature': signPayload(secret, payload, now() + 310)}],
    ]
    for (const [what, headers] of bad) {
      const res = await post(url, payload, headers)
      expect(res.status, what).toBe(400)
    }
    expect(r.received).toHaveLength(0)
    expect(p.lines).toHaveLength(1)
    // Each rejection is reported on stderr (read asynchronously: wait for the lines).
    await until(() => (p.stderr().match(/rejected 400/g) ?? []).length === bad.length)

    // The same body, signed right, goes through (several v1= entries, one of them good).
    const good = `${signPayload('whsec_old', payload).split(',')[1]},${signPayload(secret, payload)}`
    const res = await post(url, payload, {'x-service-signature': good})
    expect(res.status).toBe(200)
    expect(await p.json(1)).toMatchObject({forward_status: 200, id: 'evt_direct1'})
    expect(r.received).toHaveLength(1)
    expect(r.received[0].body.toString()).toBe(payload)

    p.child.kill('SIGTERM')
    expect((await p.exited).code).toBe(0)
  })

  it('answers 502 while the receiver is down, and the sandbox retry is forwarded once it is up', async () => {
    session = await startSession({retryDelaysMs: [500, 1000, 2000]})
    const port = await deadPort()
    const p = listen(session, ['--event', 'order.paid', '--json', '--forward-to', `http://127.0.0.1:${port}/hooks`, '--max-events', '2'])
    await p.line(0)
    const trigger = await session.cli(['webhooks', 'trigger', 'order.paid', '--json'])
    const eventId = trigger.json().event_id

    const failed = await p.json(1)
    expect(failed).toMatchObject({forward_status: null, id: eventId})
    expect(failed.forward_error).toMatch(/refused/)
    const r = await receiver(port)

    expect(await p.json(2)).toMatchObject({forward_status: 200, id: eventId})
    expect((await p.exited).code).toBe(0)
    expect(r.received).toHaveLength(1)
    await session.sandbox.deliveriesSettled()
    expect(session.sandbox.deliveries().filter((d) => d.event_id === eventId)).toMatchObject([
      {attempt: 1, outcome: 'retrying', status: 502},
      {attempt: 2, outcome: 'delivered', status: 200},
    ])
  })

  it("passes a receiver's own error status back, so the sandbox retries", async () => {
    session = await startSession({retryDelaysMs: [50]})
    const r = await receiver()
    r.respond = (_req, res) => void res.writeHead(503).end('busy')
    const p = listen(session, ['--event', 'order.paid', '--json', '--forward-to', r.url, '--max-events', '2'])
    await p.line(0)
    await session.cli(['webhooks', 'trigger', 'order.paid'])
    expect(await p.json(1)).toMatchObject({forward_status: 503})
    expect(await p.json(2)).toMatchObject({forward_status: 503})
    expect((await p.exited).code).toBe(0)
    await session.sandbox.deliveriesSettled()
    expect(session.sandbox.deliveries().map((d) => [d.status, d.outcome])).toEqual([
      [503, 'retrying'],
      [503, 'failed'],
    ])
  })

  it('--forward-timeout: a receiver that hangs is answered 504 in time, recorded with a null status; type and id shown escaped', async () => {
    session = await startSession()
    const r = await receiver()
    r.respond = () => {} // never answers
    const p = listen(session, ['--event', 'order.paid', '--skip-verify', '--forward-to', r.url, '--forward-timeout', '0.3', '--max-events', '1'])
    const ready = await new Promise<string>((resolve) => {
      const timer = setInterval(() => {
        const m = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(p.stderr())
        if (m && /Ready\./.test(p.stderr())) {
          clearInterval(timer)
          resolve(m[1])
        }
      }, 20)
    })
    const started = Date.now()
    const reply = await post(
      ready,
      JSON.stringify({created_at: new Date().toISOString(), data: {}, id: 'evt_\u001b]0;PWNED\u0007', type: 'order.paid'}),
    )
    expect(reply.status).toBe(504)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(await p.line(0)).toMatch(/order\.paid {8}evt_\\e\]0;PWNED\\a {2}-> failed: receiver did not answer within 300 ms/)
    expect(p.lines.join('\n')).not.toContain('\u001b')
    expect((await p.exited).code).toBe(0)
  })

  it('--skip-verify accepts unsigned deliveries; events not listened for (--event order.paid) are answered 200 and not forwarded; --timeout alone exits 0 after an event', async () => {
    session = await startSession()
    const r = await receiver()
    const p = listen(session, ['--event', 'order.paid', '--json', '--skip-verify', '--forward-to', r.url, '--timeout', '1'])
    const ready = await p.json(0)
    const other = await post(
      ready.local_url,
      JSON.stringify({created_at: new Date().toISOString(), data: {}, id: 'evt_other', type: 'order.shipped'}),
    )
    expect(other.status).toBe(200)
    expect(await other.text()).toMatch(/ignored/)
    const notEvent = await post(ready.local_url, '{"hello": "world"}')
    expect(notEvent.status).toBe(400)
    const unsigned = await post(`${ready.local_url}/x`, body('evt_unsigned'))
    expect(unsigned.status).toBe(200)
    expect(await p.json(1)).toMatchObject({forward_status: 200, id: 'evt_unsigned'})
    expect(await p.exited).toEqual({code: 0, signal: null})
    expect(r.received.map((got) => JSON.parse(got.body.toString()).id)).toEqual(['evt_unsigned'])
    expect(p.stderr()).toMatch(/order\.shipped {2}evt_other {2}ignored/)
    expect(p.stderr()).toMatch(/not verified/)
    expect(p.lines).toHaveLength(2)
  })

  it('human event lines pass the event type and id through sanitize (no terminal escapes from the sender)', async () => {
    session = await startSession()
    const p = listen(session, ['--event', 'order.paid', '--skip-verify', '--max-events', '1'])
    while (!/Listening on (\S+) /.test(p.stderr())) await new Promise((resolve) => setTimeout(resolve, 20))
    const url = /Listening on (\S+) /.exec(p.stderr())![1]
    const evil = JSON.stringify({created_at: new Date().toISOString(), data: {}, id: 'evt_\u001b[2Jx', type: 'order.paid'})
    expect((await post(url, evil)).status).toBe(200)
    const line = await p.line(0)
    expect(line).not.toContain('\u001b')
    expect(line).toMatch(/order\.paid {8}evt_.*x/)
    expect(await p.exited).toEqual({code: 0, signal: null})
  })

  it('on a terminal it shows the signing secret masked but its last 4 characters, once, with how to get it whole; never in --json', async () => {
    session = await startSession()
    const term = await startInTmux(['webhooks', 'listen', '--no-probe', '--timeout', '1'], {env: session.env, width: 120})
    await term.waitFor('Ready.')
    const endpoint = Object.keys(session.secrets())[0]
    const secret = session.secrets()[endpoint]
    const screen = await term.waitFor(/Signing secret: /)
    expect(screen).toContain(`Signing secret: ************${secret.slice(-4)} (whole: \`commerce webhooks secret ${endpoint} --reveal\``)
    expect(screen).not.toContain(secret)
    expect(screen.match(/Signing secret/g)).toHaveLength(1)
    await term.waitForExit()
    const json = listen(session, ['--json', '--no-probe', '--timeout', '1'])
    expect(Object.keys(await json.json(0))).not.toContain('signing_secret')
    await json.exited
    expect(json.stderr()).not.toContain('Signing secret')
  })

  it('--timeout counts from the ready line and exits 1 when fewer events came', async () => {
    session = await startSession()
    const p = listen(session, ['--event', 'order.paid', '--json', '--timeout', '1', '--max-events', '1'])
    await p.line(0)
    const readyAt = Date.now()
    const error = await p.json(1)
    expect(Date.now() - readyAt).toBeGreaterThanOrEqual(900)
    expect(error.error.message).toMatch(/0 of 1 events arrived within --timeout 1 s/)
    expect((await p.exited).code).toBe(1)

    // --timeout alone, human output: no event is a failure too.
    const q = listen(session, ['--event', 'order.paid', '--timeout', '0.5'])
    expect((await q.exited).code).toBe(1)
    expect(q.stderr()).toMatch(/no event arrived within --timeout 0.5 s/)
  })

  it('on SIGINT during a slow forward, finishes that delivery, then exits 0', async () => {
    session = await startSession()
    const r = await receiver()
    let release!: () => void
    r.respond = (_req, res) => {
      release = () => void res.writeHead(200).end('ok, finally')
    }
    const p = listen(session, ['--event', 'order.paid', '--json', '--forward-to', r.url])
    await p.line(0)
    await session.cli(['webhooks', 'trigger', 'order.paid'])
    await until(() => r.received.length === 1)

    p.child.kill('SIGINT')
    await until(() => p.stderr().includes('Stopping'))
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(p.running()).toBe(true)
    release()

    expect(await p.exited).toEqual({code: 0, signal: null})
    expect(await p.json(1)).toMatchObject({forward_status: 200})
    await session.sandbox.deliveriesSettled()
    expect(session.sandbox.deliveries()).toMatchObject([{outcome: 'delivered', status: 200}])
  })

  it('reuses the endpoint registered for the same URL on a second run, and registers --public-url as given', async () => {
    session = await startSession()
    const port = await deadPort()
    const first = listen(session, ['--json', '--port', String(port)])
    const a = await first.json(0)
    expect(a.public_url).toBe(`http://127.0.0.1:${port}/`)
    first.child.kill('SIGTERM')
    expect((await first.exited).code).toBe(0)

    const second = listen(session, ['--json', '--port', String(port)])
    const b = await second.json(0)
    expect(b).toMatchObject({endpoint_id: a.endpoint_id})
    second.child.kill('SIGTERM')
    expect((await second.exited).code).toBe(0)

    const publicUrl = 'https://hooks.example.com/commerce'
    // hooks.example.com is not this listener: --no-probe, as the probe is not what this test is about.
    const third = listen(session, ['--json', '--no-probe', '--public-url', publicUrl])
    const c = await third.json(0)
    expect(c).toMatchObject({public_url: publicUrl})
    expect(c.endpoint_id).not.toBe(a.endpoint_id)
    third.child.kill('SIGTERM')
    await third.exited

    const list = (await session.cli(['webhooks', 'list', '--json'])).json()
    expect(list.map((e: {url: string}) => e.url)).toEqual(expect.arrayContaining([a.public_url, publicUrl]))
    expect(list).toHaveLength(2)
  })

  it('by default subscribes to every event the sandbox sends; endpoints at its URL with other events verify too, and a restart adds none', async () => {
    session = await startSession()
    const port = await deadPort()
    const paidOnly = listen(session, ['--json', '--port', String(port), '--event', 'order.paid'])
    const a = await paidOnly.json(0)
    paidOnly.child.kill('SIGTERM')
    expect((await paidOnly.exited).code).toBe(0)

    // A second run at the same URL for customers' events: a second endpoint there (the service cannot change one).
    const customersOnly = listen(session, ['--json', '--port', String(port), '--event', 'customer.created'])
    const b = await customersOnly.json(0)
    expect(b.endpoint_id).not.toBe(a.endpoint_id)
    // order.paid goes to the first endpoint, signed with its secret: verified (not 400), answered as ignored.
    const paid = await session.cli(['webhooks', 'trigger', 'order.paid', '--json'])
    expect(paid.code, paid.stderr).toBe(0)
    await session.sandbox.deliveriesSettled()
    const toFirst = session.sandbox.deliveries().filter((d) => d.event_id === paid.json().event_id)
    expect(toFirst).toMatchObject([{outcome: 'delivered', status: 200}])
    expect(customersOnly.stderr()).not.toContain('signature does not match')
    customersOnly.child.kill('SIGTERM')
    await customersOnly.exited

    // Without --event: every event the sandbox sends, on a new endpoint; run again, the same one.
    const all = listen(session, ['--json', '--port', String(port), '--max-events', '1'])
    const c = await all.json(0)
    const endpoints = (await session.cli(['webhooks', 'list', '--json'])).json()
    const mine = endpoints.find((e: {id: string}) => e.id === c.endpoint_id)
    expect([...mine.events].sort()).toEqual([
      'customer.created',
      'customer.deleted',
      'customer.updated',
      'order.created',
      'order.paid',
      'order.refunded',
      'order.shipped',
    ])
    const created = await session.cli([
      'customers',
      'create',
      '--email',
      `all-events-${process.pid}@example.com`,
      '--name',
      'All',
      '--no-send-invite',
    ])
    expect(created.code, created.stderr).toBe(0)
    expect(await all.json(1)).toMatchObject({type: 'customer.created'})
    expect((await all.exited).code).toBe(0)
    const again = listen(session, ['--json', '--port', String(port)])
    expect((await again.json(0)).endpoint_id).toBe(c.endpoint_id)
    again.child.kill('SIGTERM')
    await again.exited
    expect((await session.cli(['webhooks', 'list', '--json'])).json()).toHaveLength(3)
  })
})

describe('webhooks listen against a service that is not the local sandbox', () => {
  it('needs --public-url (exit 2 without); registers it, verifies with its secret, and reuses it on the next run', async () => {
    // No state file records this sandbox: to the CLI it is a remote service, reached with an env key pair.
    const remote = await startTestSandbox()
    const tmp = tempConfigDir()
    try {
      const key = remote.keys[0]
      const env = {COMMERCE_BASE_URL: remote.baseUrl, COMMERCE_CONFIG_DIR: tmp.dir, COMMERCE_KEY_ID: key.key_id, COMMERCE_KEY_SECRET: key.key_secret}
      const none = await run(['webhooks', 'listen', '--json'], {env})
      expect(none.code, none.stderr).toBe(2)
      expect(none.json().error.message).toContain('No public URL')
      expect(none.stderr).toMatch(/--public-url URL .* or --tunnel cloudflared\|ngrok/)

      const r = await receiver()
      const publicUrl = 'https://hooks.example.com/commerce'
      const p = spawnCli(
        ['webhooks', 'listen', '--json', '--no-probe', '--public-url', publicUrl, '--forward-to', r.url, '--max-events', '1', '--print-secret'],
        env,
      )
      const ready = await p.json(0)
      expect(ready).toMatchObject({public_url: publicUrl})
      expect(Object.keys(ready).sort()).toEqual(['endpoint_id', 'local_url', 'public_url', 'ready', 'signing_secret', 'verified_reachable'])
      expect(ready.local_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      // A delivery as the service would send it through the user's tunnel.
      const payload = body('evt_remote1')
      const res = await post(`${ready.local_url}/commerce`, payload, {'x-service-signature': signPayload(ready.signing_secret, payload)})
      expect(res.status).toBe(200)
      expect(await p.json(1)).toMatchObject({forward_status: 200, id: 'evt_remote1', type: 'order.paid'})
      expect(await p.exited).toEqual({code: 0, signal: null})
      expect(r.received.map((got) => got.body.toString())).toEqual([payload])

      const again = spawnCli(['webhooks', 'listen', '--json', '--no-probe', '--public-url', publicUrl], env)
      expect(await again.json(0)).toMatchObject({endpoint_id: ready.endpoint_id, public_url: publicUrl})
      again.child.kill('SIGTERM')
      expect((await again.exited).code).toBe(0)
      const list = await run(['webhooks', 'list', '--json'], {env})
      expect(list.json()).toMatchObject([{id: ready.endpoint_id, url: publicUrl}])
    } finally {
      await remote.close()
      tmp.cleanup()
    }
  })
})

describe('webhooks listen with a tunnel (stand-in binaries on PATH)', () => {
  const standIns = resolve(import.meta.dirname, '../fixtures/bin')
  const nodeDir = dirname(process.execPath)
  const withStandIns = [standIns, nodeDir].join(delimiter)
  const urls = {cloudflared: /^https:\/\/[a-z0-9-]+\.trycloudflare\.com$/, ngrok: /^https:\/\/[a-z0-9-]+\.ngrok-free\.app$/}
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }

  for (const provider of ['cloudflared', 'ngrok'] as const) {
    it(`--tunnel ${provider}: registers the tunnel's URL, and stops the tunnel on SIGTERM`, async () => {
      session = await startSession()
      const argsFile = join(session.dir, 'tunnel-args.json')
      // This stand-in does not route (webhooks-probe.test.ts has the probe through a tunnel).
      const p = listen(session, ['--json', '--no-probe', '--tunnel', provider], {FAKE_TUNNEL_ARGS_FILE: argsFile, PATH: withStandIns})
      const ready = await p.json(0)
      const tunnel = JSON.parse(readFileSync(argsFile, 'utf8')) as {args: string[]; pid: number}
      // A failing assertion must not leave the stand-in running (killAll ends the CLI with SIGKILL).
      onTestFinished(() => void (alive(tunnel.pid) && process.kill(tunnel.pid, 'SIGKILL')))
      expect(ready.public_url).toMatch(urls[provider])
      const port = new URL(ready.local_url).port
      expect(tunnel.args.join(' ')).toContain(provider === 'cloudflared' ? `--url http://127.0.0.1:${port}` : `http 127.0.0.1:${port}`)
      const list = (await session.cli(['webhooks', 'list', '--json'])).json()
      expect(list).toMatchObject([{id: ready.endpoint_id, url: ready.public_url}])

      p.child.kill('SIGTERM')
      expect((await p.exited).code).toBe(0)
      expect(alive(tunnel.pid)).toBe(false)
    })

    it(`--tunnel ${provider} that dies ends the listener with exit 1 and says why, with --exit-on-unreachable`, async () => {
      session = await startSession()
      const p = listen(session, ['--tunnel', provider, '--no-probe', '--exit-on-unreachable'], {FAKE_TUNNEL_DIE_AFTER_MS: '300', PATH: withStandIns})
      expect((await p.exited).code).toBe(1)
      expect(p.stderr()).toMatch(new RegExp(`${provider} tunnel stopped.*${provider} exited with code 1`, 's'))
    })

    it(`--tunnel ${provider} not on PATH is exit 2 with how to install it`, async () => {
      session = await startSession()
      const p = listen(session, ['--tunnel', provider], {PATH: nodeDir})
      expect((await p.exited).code).toBe(2)
      expect(p.stderr()).toContain(`${provider} is not installed`)
      expect(p.stderr()).toMatch(/brew install/)
    })
  }

  it('a tunnel that fails to start is exit 1 with its last output', async () => {
    session = await startSession()
    const p = listen(session, ['--tunnel', 'cloudflared'], {FAKE_TUNNEL_FAIL: '1', PATH: withStandIns})
    expect((await p.exited).code).toBe(1)
    expect(p.stderr()).toContain('failed to request quick Tunnel')
    // Nothing was registered for a tunnel that never came up.
    expect((await session.cli(['webhooks', 'list', '--json'])).json()).toEqual([])
  })
})

describe('webhooks listen usage errors (exit 2, nothing started or sent)', () => {
  it('refuses to listen for a service that cannot reach 127.0.0.1, bad flags and non-HTTPS public URLs', async () => {
    const tmp = tempConfigDir()
    try {
      const env = {COMMERCE_ACCESS_TOKEN: 'tok_test', COMMERCE_BASE_URL: 'https://commerce.invalid', COMMERCE_CONFIG_DIR: tmp.dir}
      const cases: Array<[string[], RegExp]> = [
        [[], /--public-url URL .* or --tunnel cloudflared\|ngrok/],
        [['--public-url', 'http://hooks.example.com/x'], /must be an HTTPS URL/],
        [['--public-url', 'http://127.0.0.1:9/'], /must be an HTTPS URL/],
        [['--events', ' , ', '--public-url', 'https://hooks.example.com'], /--event needs at least one event name/],
        [['--tunnel', 'cloudflared', '--public-url', 'https://hooks.example.com'], /--public-url and --tunnel cannot be used together\./],
        [['--tunnel', 'localtunnel'], /--tunnel must be one of cloudflared, ngrok \(got "localtunnel"\)/],
        [['--forward-to', 'ftp://x', '--public-url', 'https://hooks.example.com'], /--forward-to must be an http/],
        [['--timeout', '0', '--public-url', 'https://hooks.example.com'], /positive number of seconds/],
      ]
      const results = await Promise.all(cases.map(([args]) => run(['webhooks', 'listen', ...args], {env})))
      results.forEach((r, i) => {
        expect(r.code, `${cases[i][0].join(' ')}: ${r.stderr}`).toBe(2)
        expect(r.stderr).toMatch(cases[i][1])
      })
      const json = await run(['webhooks', 'listen', '--json'], {env})
      expect(json.code).toBe(2)
      expect(json.json().error.message).toContain('No public URL')
    } finally {
      tmp.cleanup()
    }
  })

  it('is exit 3 before anything starts when not logged in', async () => {
    session = await startSession()
    await session.cli(['auth', 'logout'])
    const p = listen(session, ['--json'])
    expect((await p.exited).code).toBe(3)
    expect(p.lines.join('\n')).not.toContain('"ready"')
  })
})
