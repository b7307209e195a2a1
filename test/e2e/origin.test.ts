/**
 * Credentials stay with the origin they were stored for: a profile logged in at one server (sandbox A) never sends
 * its key pair or token to another (sandbox B, behind a recording proxy) named by --base-url or COMMERCE_BASE_URL.
 * Such a call is exit 3 naming both origins, with nothing sent; public operations still work there; credentials
 * given for the call itself go where the user points them; `auth login --sandbox` moves a profile and says so.
 */
import {afterAll, beforeAll, beforeEach, afterEach, describe, expect, it} from 'vitest'

import {writeSandboxState} from '../../src/config/sandbox-state-write.js'
import {run, tempConfigDir} from '../helpers/cli.js'
import {type FaultyServer, startFaultyServer} from '../helpers/faulty-server.js'
import {readConfig, requestsTo, storeProfile} from '../helpers/login.js'
import {type TestSandbox, startTestSandbox} from '../helpers/sandbox.js'

let a: TestSandbox
let b: TestSandbox
let other: FaultyServer
let tmp: {dir: string; cleanup: () => void}

beforeAll(async () => {
  ;[a, b] = await Promise.all([startTestSandbox(), startTestSandbox()])
  other = await startFaultyServer(() => ({forward: true}), {upstream: b.baseUrl})
})
afterAll(async () => {
  await other.close()
  await Promise.all([a.close(), b.close()])
})
beforeEach(async () => {
  tmp = tempConfigDir()
  other.requests.length = 0
  const login = await run(['auth', 'login', '--base-url', a.baseUrl, '--key-id', a.keys[0].key_id, '--key-secret-stdin'], {
    env: {COMMERCE_CONFIG_DIR: tmp.dir},
    input: a.keys[0].key_secret,
  })
  expect(login.code, login.stderr).toBe(0)
})
afterEach(() => tmp.cleanup())

const cli = (args: string[], env: Record<string, string> = {}) => run(args, {env: {COMMERCE_CONFIG_DIR: tmp.dir, ...env}})
const secretSent = () => other.requests.some((r) => r.body.includes(a.keys[0].key_secret) || r.headers.authorization !== undefined)

describe('a profile logged in at A, asked to act at B', () => {
  it('--base-url B: exit 3 naming both origins and the ways forward, nothing sent', async () => {
    const r = await cli(['customers', 'list', '--base-url', other.url, '--debug'])
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toContain(`Profile "default" was logged in at ${new URL(a.baseUrl).origin}`)
    expect(r.stderr).toContain(`not sent to ${new URL(other.url).origin} (--base-url)`)
    expect(r.stderr).toMatch(/commerce auth login --base-url .* --profile NAME/)
    expect(r.stderr).toMatch(/COMMERCE_KEY_ID and COMMERCE_KEY_SECRET/)
    expect(r.stderr).not.toContain(a.keys[0].key_secret)
    expect(other.requests).toHaveLength(0)
  })

  it('COMMERCE_BASE_URL=B: the same, and auth status and auth token send nothing there either', async () => {
    for (const args of [
      ['orders', 'list', '--json'],
      ['auth', 'token'],
      ['auth', 'status', '--json'],
    ]) {
      const r = await cli(args, {COMMERCE_BASE_URL: other.url})
      expect(r.code, `${args.join(' ')}: ${r.stderr}${r.stdout}`).toBe(3)
    }
    const r = await cli(['orders', 'list', '--json'], {COMMERCE_BASE_URL: other.url})
    expect(r.json()).toMatchObject({error: {message: expect.stringContaining('(COMMERCE_BASE_URL)')}})
    expect(other.requests).toHaveLength(0)
  })

  it('usage checks come first (exit 2); public operations work at B, with no credentials sent', async () => {
    const bad = await cli(['customers', 'list', '--per-page', '0', '--base-url', other.url])
    expect(bad.code, bad.stderr).toBe(2)
    const products = await cli(['products', 'list', '--per-page', '2', '--json', '--base-url', other.url])
    expect(products.code, products.stderr).toBe(0)
    expect(products.json()).toHaveLength(2)
    expect(requestsTo(other.requests, 'GET', '/products')).toHaveLength(1)
    expect(secretSent()).toBe(false)
  })

  it("credentials given for the call go where the user points them: B's env key pair, or a token", async () => {
    const env = {COMMERCE_KEY_ID: b.keys[0].key_id, COMMERCE_KEY_SECRET: b.keys[0].key_secret}
    const r = await cli(['customers', 'list', '--json', '--base-url', other.url], env)
    expect(r.code, r.stderr).toBe(0)
    expect(requestsTo(other.requests, 'POST', '/auth/tokens')).toHaveLength(1)
    expect(other.requests.some((q) => q.body.includes(a.keys[0].key_secret))).toBe(false)
  })

  it("the same origin with another path or a trailing slash is the profile's own", async () => {
    const r = await cli(['customers', 'list', '--json', '--base-url', `${a.baseUrl}/`])
    expect(r.code, r.stderr).toBe(0)
  })

  it('auth login --sandbox moves a profile to a sandbox that moved, and says so', async () => {
    await storeProfile(tmp.dir, 'default', {base_url: 'http://127.0.0.1:9', key_id: a.keys[0].key_id})
    writeSandboxState(
      {base_url: a.baseUrl, keys: a.keys.map((k) => ({...k, scopes: [...k.scopes]})), pid: process.pid},
      {COMMERCE_CONFIG_DIR: tmp.dir},
    )
    const r = await cli(['auth', 'login', '--sandbox'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain(`was logged in at http://127.0.0.1:9 before: its credentials now go to ${a.baseUrl} only`)
    expect(readConfig(tmp.dir).profiles?.default?.base_url).toBe(a.baseUrl)
    expect((await cli(['customers', 'list', '--json'])).code).toBe(0)
  })

  it('config set base_url B keeps the key pair bound to A: said when set, then exit 3 naming both, nothing sent to B, until auth login at B', async () => {
    const set = await cli(['config', 'set', 'base_url', other.url])
    expect(set.code, set.stderr).toBe(0)
    expect(set.stderr).toContain(`stays bound to ${new URL(a.baseUrl).origin}`)
    expect(set.stderr).toContain('commerce auth login')
    for (const args of [
      ['customers', 'list', '--json'],
      ['auth', 'token'],
    ]) {
      const r = await cli(args)
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(3)
      expect(r.stderr + r.stdout).toContain(`was logged in at ${new URL(a.baseUrl).origin}`)
      expect(r.stderr + r.stdout).toContain(`not sent to ${new URL(other.url).origin}`)
    }
    expect(other.requests).toHaveLength(0)
    // Public operations work at B; setting A back makes the stored pair usable again.
    expect((await cli(['products', 'list', '--per-page', '1', '--json'])).code).toBe(0)
    expect(secretSent()).toBe(false)
    expect((await cli(['config', 'set', 'base_url', a.baseUrl])).stderr).not.toContain('stays bound')
    expect((await cli(['customers', 'list', '--json'])).code).toBe(0)
    // auth login at B stores credentials for B.
    await cli(['config', 'set', 'base_url', other.url])
    const login = await run(['auth', 'login', '--key-id', b.keys[0].key_id, '--key-secret-stdin'], {
      env: {COMMERCE_CONFIG_DIR: tmp.dir},
      input: b.keys[0].key_secret,
    })
    expect(login.code, login.stderr).toBe(0)
    expect((await cli(['customers', 'list', '--json'])).code).toBe(0)
    expect(other.requests.some((q) => q.body.includes(a.keys[0].key_secret))).toBe(false)
  })
})
