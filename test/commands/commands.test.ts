/**
 * Commands through their seam, in this process (test/helpers/in-process.ts): flags parsed by oclif, the real
 * services and config store, a real sandbox behind the client, output and exit codes as a script sees them.
 * What needs no process runs here, in milliseconds; what does (a terminal, signals, the bundle) stays in e2e/ and tty/.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {runInProcess} from '../helpers/in-process.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'

let sb: TestSandbox
let env: Record<string, string>
let cleanup = () => {}
beforeAll(async () => {
  sb = await startTestSandbox()
  const dir = tempConfigDir()
  cleanup = dir.cleanup
  env = {COMMERCE_BASE_URL: sb.baseUrl, COMMERCE_CONFIG_DIR: dir.dir, COMMERCE_KEY_ID: sb.keys[0].key_id, COMMERCE_KEY_SECRET: sb.keys[0].key_secret}
})
afterAll(async () => {
  await sb.close()
  cleanup()
})

describe('customers, in process', () => {
  it('create --json, get, and list as TSV', async () => {
    const created = await runInProcess(['customers', 'create', '--email', 'seam@example.com', '--name', 'Seam', '--no-send-invite', '--json'], {env})
    expect(created.code, created.stderr).toBe(0)
    const {id} = created.json<{id: number}>()
    const got = await runInProcess(['customers', 'get', String(id), '--json'], {env})
    expect(got.json()).toMatchObject({email: 'seam@example.com', id, name: 'Seam'})
    const listed = await runInProcess(['customers', 'list', '--search', 'seam@'], {env})
    expect(listed.code).toBe(0)
    expect(listed.stdout.split('\n')[0]).toMatch(/^id\temail\tname\tstatus/)
    expect(listed.stdout).toContain(`${id}\tseam@example.com\tSeam\tactive`)
  })

  it('a bad flag value is exit 2 with the error document on stdout, and nothing is sent', async () => {
    const before = sb.counts().customers
    const r = await runInProcess(['customers', 'create', '--email', 'not-an-email', '--name', 'X', '--json'], {env})
    expect(r.code).toBe(2)
    expect(r.json().error.message).toMatch(/Invalid customer/)
    expect(sb.counts().customers).toBe(before)
  })

  it('a missing id: exit 4 naming it', async () => {
    const r = await runInProcess(['customers', 'get', '99999999'], {env})
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/99999999/)
  })
})

describe('the clock, injected', () => {
  it("the v1 deprecation speaks in the tense of the command's clock", async () => {
    const before = await runInProcess(['customers', 'list', '--api-version', 'v1'], {env, now: () => Date.parse('2026-01-01T00:00:00Z')})
    expect(before.stderr).toMatch(/API v1 is deprecated and retires on 2026-09-01/)
    const after = await runInProcess(['customers', 'list', '--api-version', 'v1'], {env, now: () => Date.parse('2026-10-01T00:00:00Z')})
    expect(after.stderr).toMatch(/API v1 is deprecated and was due to retire on 2026-09-01: it may stop answering at any time/)
  })
})

describe('orders, in process', () => {
  it('an order the service refuses names no Idempotency-Key', async () => {
    const refused = await runInProcess(['orders', 'create', '--customer', '99999999', '--currency', 'USD', '--item', '1'], {env})
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).not.toMatch(/idempotency/i)
  })
})

describe('config and webhooks signatures, in process', () => {
  it('config set then get, a secret masked', async () => {
    const dir = tempConfigDir()
    try {
      const own = {COMMERCE_CONFIG_DIR: dir.dir}
      expect((await runInProcess(['config', 'set', 'key_secret', 'sk_live_x'], {env: own})).code).toBe(0)
      const got = await runInProcess(['config', 'get', 'key_secret'], {env: own})
      expect(got.stdout.trim()).toBe('********')
      const unknown = await runInProcess(['config', 'get', 'nope'], {env: own})
      expect(unknown.code).toBe(2)
    } finally {
      dir.cleanup()
    }
  })

  it('sign reads the payload from standard input, verify accepts what sign made and refuses a changed body', async () => {
    const payload = '{"id":"evt_1","type":"order.paid"}'
    const withSecret = {...env, COMMERCE_WEBHOOK_SECRET: 'whsec_test'}
    const signed = await runInProcess(['webhooks', 'sign', '--timestamp', String(Math.floor(Date.now() / 1000))], {
      env: withSecret,
      input: payload,
    })
    expect(signed.code, signed.stderr).toBe(0)
    const header = signed.stdout.trim()
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    expect((await runInProcess(['webhooks', 'verify', '--signature', header], {env: withSecret, input: payload})).code).toBe(0)
    expect((await runInProcess(['webhooks', 'verify', '--signature', header], {env: withSecret, input: `${payload} `})).code).toBe(1)
  })
})
