/**
 * `commerce doctor` as a process: every check passes against a healthy sandbox, and each check's failing case says
 * what is wrong and its fix; against a service that accepts and never answers, the whole report comes within its
 * 3 s deadline (over what starting the CLI costs).
 */
import {chmodSync, writeFileSync} from 'node:fs'
import {createServer, type Server, type Socket} from 'node:net'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {writeSandboxState} from '../../src/config/sandbox-state-write.js'
import {refusedUrl, run, tempConfigDir} from '../helpers/cli.js'
import {startFaultyServer} from '../helpers/faulty-server.js'
import {keyPairEnv, storeProfile} from '../helpers/login.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'

interface Check {
  name: string
  status: 'ok' | 'warn' | 'fail'
  detail: string
  fix: string | null
}

let sb: TestSandbox
let tmp: {dir: string; cleanup: () => void}
beforeAll(async () => {
  sb = await startTestSandbox()
})
afterAll(() => sb.close())
beforeEach(() => {
  tmp = tempConfigDir()
})
afterEach(() => tmp.cleanup())

const env = (extra: Record<string, string> = {}) => ({...keyPairEnv(tmp.dir, sb.baseUrl, sb.keys[0]), ...extra})
const doctor = async (extra: Record<string, string> = {}) => {
  const r = await run(['doctor', '--json'], {env: env(extra)})
  const checks = r.json<{checks: Check[]}>().checks
  return {checks, code: r.code, of: (name: string) => checks.find((c) => c.name === name)!, stderr: r.stderr}
}

describe('commerce doctor', () => {
  it('a healthy setup: every check there, none failed, exit 0; the human report marks each and says so', async () => {
    const r = await doctor()
    expect(r.code, JSON.stringify(r.checks)).toBe(0)
    expect(r.checks.map((c) => c.name)).toEqual(['cli', 'config', 'profile', 'keyring', 'token', 'service', 'clock', 'proxy', 'webhooks', 'sandbox'])
    expect(r.checks.filter((c) => c.status === 'fail')).toEqual([])
    expect(r.of('token')).toMatchObject({detail: expect.stringContaining('accepted by the service'), status: 'ok'})
    expect(r.of('service')).toMatchObject({detail: expect.stringMatching(/answers in \d+ ms/), status: 'ok'})
    expect(r.of('cli').detail).toMatch(/installed from clone/)
    const human = await run(['doctor'], {env: env()})
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/^✓ token +accepted by the service/m)
    expect(human.stdout).not.toContain(sb.keys[0].key_secret)
  })

  it('a service that accepts and never answers: the report within its 3 s deadline, service and token failed, exit 1', async () => {
    const sockets: Socket[] = []
    const silent: Server = createServer((s) => void sockets.push(s))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(silent.address() as {port: number}).port}`
      let started = Date.now()
      const baseline = await doctor({COMMERCE_BASE_URL: await refusedUrl()})
      const startup = Date.now() - started
      expect(baseline.of('service').status).toBe('fail')
      started = Date.now()
      const r = await doctor({COMMERCE_BASE_URL: url})
      expect(Date.now() - started - startup).toBeLessThan(3000 + 1500)
      expect(r.of('service').detail).toMatch(/within 3 s|timed out|no answer/i)
      expect(r.code).toBe(1)
      expect(r.of('service').status).toBe('fail')
      expect(r.of('service').fix).toContain('base URL')
      expect(r.of('token').status).toBe('fail')
    } finally {
      for (const s of sockets) s.destroy()
      silent.close()
    }
  })

  it("a clock off by two minutes from the service's Date: a warning naming it", async () => {
    const skewed = await startFaultyServer(() => ({forward: true, headers: {date: new Date(Date.now() - 120_000).toUTCString()}}), {
      upstream: sb.baseUrl,
    })
    try {
      const r = await doctor({COMMERCE_BASE_URL: skewed.url})
      expect(r.of('clock')).toMatchObject({detail: expect.stringMatching(/1[12]\d s ahead of the service's/), status: 'warn'})
      expect(r.of('clock').fix).toContain('timedatectl')
    } finally {
      await skewed.close()
    }
  })

  it('a config others can read, a CA bundle that does not exist, a proxy password: each said, the password never', async () => {
    await storeProfile(tmp.dir, 'default', {base_url: sb.baseUrl})
    chmodSync(join(tmp.dir, 'config.json'), 0o644)
    const r = await doctor({HTTPS_PROXY: 'http://user:hunter2@127.0.0.1:9', NODE_EXTRA_CA_CERTS: join(tmp.dir, 'nope.pem'), NO_PROXY: '127.0.0.1'})
    expect(r.of('config')).toMatchObject({fix: expect.stringContaining('chmod 600'), status: 'warn'})
    expect(r.of('proxy')).toMatchObject({detail: expect.stringContaining('NODE_EXTRA_CA_CERTS'), status: 'fail'})
    expect(JSON.stringify(r.checks)).not.toContain('hunter2')
  })

  it('not logged in, and a profile whose secret lives in a keyring that does not answer: token and keyring failed', async () => {
    await storeProfile(tmp.dir, 'default', {base_url: sb.baseUrl, key_id: sb.keys[0].key_id, storage: 'keyring'}, {choose: true})
    const r = await run(['doctor', '--json'], {
      env: {COMMERCE_CONFIG_DIR: tmp.dir, COMMERCE_KEYRING_TIMEOUT: '1', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus'},
    })
    const checks = r.json<{checks: Check[]}>().checks
    const of = (name: string) => checks.find((c) => c.name === name)!
    expect(r.code).toBe(1)
    expect(of('keyring')).toMatchObject({status: 'fail'})
    expect(of('token').status).toBe('fail')
    const none = await run(['doctor', '--json'], {env: {COMMERCE_BASE_URL: sb.baseUrl, COMMERCE_CONFIG_DIR: join(tmp.dir, 'none')}})
    const token = none.json<{checks: Check[]}>().checks.find((c) => c.name === 'token')!
    expect(token).toMatchObject({detail: 'not logged in', fix: expect.stringContaining('commerce auth login'), status: 'fail'})
  })

  it('an endpoint of webhooks listen whose listener is gone, and a sandbox recorded whose process is gone: warnings with fixes', async () => {
    const token = (await (
      await fetch(`${sb.baseUrl}/api/v2/auth/tokens`, {
        body: JSON.stringify(sb.keys[0]),
        headers: {'content-type': 'application/json'},
        method: 'POST',
      })
    ).json()) as {access_token: string}
    const dead = await startFaultyServer(() => ({status: 200}))
    await dead.close()
    const created = await fetch(`${sb.baseUrl}/api/v2/webhooks`, {
      body: JSON.stringify({events: ['order.paid'], url: `${dead.url}/`}),
      headers: {authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json'},
      method: 'POST',
    })
    const endpoint = (await created.json()) as {id: string}
    await storeProfile(tmp.dir, 'default', {listen_endpoints: {[endpoint.id]: `${dead.url}/`}}, {choose: true})
    writeSandboxState({base_url: 'http://127.0.0.1:9', keys: [], pid: 2 ** 22 + 7}, {COMMERCE_CONFIG_DIR: tmp.dir})
    const r = await doctor()
    expect(r.of('webhooks')).toMatchObject({detail: expect.stringContaining(endpoint.id), status: 'warn'})
    // The fix names the port that takes the endpoint back.
    expect(r.of('webhooks').fix).toContain(`\`commerce webhooks listen --port ${new URL(dead.url).port}\``)
    expect(r.of('sandbox')).toMatchObject({fix: '`commerce sandbox start --detach`', status: 'warn'})
  })

  it('a config file that cannot be read: the config check says why (the file and the key) first; the checks that need it point there', async () => {
    for (const [text, said] of [
      ['{"profiles":{"default":{"base_url":5}}}', /base_url/],
      ['{bad', /not valid JSON/],
    ] as const) {
      writeFileSync(join(tmp.dir, 'config.json'), text, {mode: 0o600})
      const r = await doctor()
      expect(r.code).toBe(1)
      expect(r.of('config')).toMatchObject({detail: expect.stringMatching(said), status: 'fail'})
      expect(r.of('config').detail).toContain(join(tmp.dir, 'config.json'))
      for (const name of ['profile', 'token'])
        expect(r.of(name), name).toMatchObject({detail: 'not checked: the config file cannot be read (see config)', status: 'fail'})
      expect(JSON.stringify(r.checks)).not.toContain('See the message')
      expect(r.of('profile').fix).not.toContain('auth login')
    }
  })

  it('no sandbox runs while the base URL in effect is on this machine and does not answer: the sandbox check says so', async () => {
    const down = await refusedUrl()
    const r = await doctor({COMMERCE_BASE_URL: down})
    expect(r.of('service').status).toBe('fail')
    expect(r.of('sandbox')).toMatchObject({
      detail: expect.stringContaining(`the base URL ${down} is on this machine and does not answer`),
      status: 'warn',
    })
    expect(r.of('sandbox').fix).toContain('commerce sandbox start --detach')
  })
})
