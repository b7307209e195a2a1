/**
 * `commerce auth ...` and the credential rules, run as processes against the sandbox: login (flags, stdin,
 * --sandbox, missing values without a terminal, a rejected pair), status for every credential source, token,
 * logout (revocation, already logged out, revocation failing), the env key-pair and base-URL usage errors,
 * 401 -> one re-issue and one repeat (revoked or expired token), a static COMMERCE_ACCESS_TOKEN never renewed,
 * 403, and the profile and base-URL selection order.
 */
import {existsSync, mkdirSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {writeSandboxState} from '../../src/config/sandbox-state-write.js'
import {tempConfigDir, unwritableConfigDir} from '../helpers/cli.js'
// In this process, through the commands' seam (test/helpers/in-process.ts): none of these tests needs a process.
import {runInProcess as run} from '../helpers/in-process.js'
import {type FaultyServer, startFaultyServer} from '../helpers/faulty-server.js'
import {issueToken, keyPairEnv, occurrences, readConfig, requestsTo, startRecorder, storeProfile, tokenStatus} from '../helpers/login.js'
import {type TestSandbox, startTestSandbox} from '../helpers/sandbox.js'

let sb: TestSandbox
let tmp: {dir: string; cleanup: () => void}
let faulty: FaultyServer | undefined
/** A fresh config directory for every test. */
let dir: string

beforeAll(async () => {
  sb = await startTestSandbox()
})
afterAll(() => sb.close())
beforeEach(() => {
  tmp = tempConfigDir()
  dir = tmp.dir
})
afterEach(async () => {
  tmp.cleanup()
  await faulty?.close()
  faulty = undefined
})

const full = () => sb.keys[0]
const cli = (args: string[], env: Record<string, string | undefined> = {}, input?: string) =>
  run(args, {env: {COMMERCE_CONFIG_DIR: dir, ...env}, input})
const loginArgs = (baseUrl = sb.baseUrl) => ['auth', 'login', '--base-url', baseUrl, '--key-id', full().key_id, '--key-secret', full().key_secret]
async function login(baseUrl = sb.baseUrl, extra: string[] = []): Promise<void> {
  const r = await cli([...loginArgs(baseUrl), ...extra, '--json'])
  expect(r.code, r.stderr).toBe(0)
}
const storedToken = (profile = 'default') => readConfig(dir).profiles![profile].access_token!

describe('auth login', () => {
  it('with flags: checks the pair, stores pair, token and base URL (0600 file in a 0700 dir); --json shape', async () => {
    const r = await cli([...loginArgs(), '--json'])
    expect(r.code, r.stderr).toBe(0)
    const out = r.json()
    expect(out).toEqual({
      base_url: sb.baseUrl,
      expires_at: expect.any(String),
      key_id: full().key_id,
      profile: 'default',
      scopes: [...full().scopes],
      storage: 'file',
    })
    expect(Date.parse(out.expires_at) - Date.now()).toBeGreaterThan(3500_000)
    const config = readConfig(dir)
    expect(config.current_profile).toBe('default')
    expect(config.profiles!.default).toMatchObject({base_url: sb.baseUrl, key_id: full().key_id, key_secret: full().key_secret})
    expect(await tokenStatus(sb.baseUrl, storedToken())).toBe(200)
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(r.stdout + r.stderr).not.toContain(full().key_secret)
  })

  it('--key-secret-stdin reads the secret from a pipe; --scopes narrows the token; human output on a pipe', async () => {
    const r = await cli(
      ['auth', 'login', '--base-url', sb.baseUrl, '--key-id', full().key_id, '--key-secret-stdin', '--scopes', 'customers:read'],
      {},
      `${full().key_secret}\n`,
    )
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('Logged in')
    expect(r.stdout).toContain(`key_id\t${full().key_id}`)
    expect(r.stdout).toContain('scopes\t["customers:read"]')
    expect(r.stdout + r.stderr).not.toContain(full().key_secret)
    expect(readConfig(dir).profiles!.default.scopes).toEqual(['customers:read'])
  })

  it('--sandbox logs in to the sandbox of the state file with its every-scope key', async () => {
    writeSandboxState(
      {base_url: sb.baseUrl, keys: sb.keys.map((k) => ({...k, scopes: [...k.scopes]})).reverse(), pid: process.pid},
      {COMMERCE_CONFIG_DIR: dir},
    )
    const r = await cli(['auth', 'login', '--sandbox', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({base_url: sb.baseUrl, key_id: full().key_id, profile: 'default'})
  })

  it('--sandbox with no sandbox running: exit 2 saying how to start one', async () => {
    const r = await cli(['auth', 'login', '--sandbox'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('sandbox start')
  })

  it('without a terminal, a missing value is exit 2 naming its flag, and nothing is sent', async () => {
    faulty = await startRecorder()
    const [noId, noSecret, noUrl] = await Promise.all([
      cli(['auth', 'login', '--base-url', faulty.url, '--key-secret', 'x']),
      cli(['auth', 'login', '--base-url', faulty.url, '--key-id', 'k']),
      cli(['auth', 'login', '--key-id', 'k', '--key-secret', 'x']),
    ])
    expect(noId.code).toBe(2)
    expect(noId.stderr).toContain('--key-id')
    expect(noSecret.code).toBe(2)
    expect(noSecret.stderr).toContain('--key-secret')
    expect(noUrl.code).toBe(2)
    expect(noUrl.stderr).toContain('--base-url')
    expect(faulty.requests).toHaveLength(0)
  })

  it('a rejected key pair: exit 3, nothing stored', async () => {
    const r = await cli(['auth', 'login', '--base-url', sb.baseUrl, '--key-id', full().key_id, '--key-secret', 'wrong-secret', '--json'])
    expect(r.code).toBe(3)
    expect(r.json().error).toMatchObject({message: expect.stringContaining('rejected'), status: 422})
    expect(r.stdout + r.stderr).not.toContain('wrong-secret')
    expect(existsSync(join(dir, 'config.json')) ? readConfig(dir).profiles?.default?.key_secret : undefined).toBeUndefined()
    // The hint names the login that was tried: with its --base-url and --profile.
    const human = await cli(['auth', 'login', '--base-url', sb.baseUrl, '-p', 'ci', '--key-id', full().key_id, '--key-secret', 'wrong-secret'])
    expect(human.code).toBe(3)
    expect(human.stderr).toContain(`then run \`commerce auth login --profile ci --base-url ${sb.baseUrl}\` again.`)
  })
})

describe('auth status and auth token', () => {
  it('with the profile: exit 0, source profile, the secret never shown', async () => {
    await login()
    const [json, human] = await Promise.all([cli(['auth', 'status', '--json']), cli(['auth', 'status'])])
    expect(json.code, json.stderr).toBe(0)
    expect(json.json()).toEqual({
      base_url: sb.baseUrl,
      expires_at: expect.any(String),
      key_id: full().key_id,
      logged_in: true,
      profile: 'default',
      reason: null,
      scopes: [...full().scopes],
      source: 'profile',
      storage: 'file',
    })
    expect(human.code).toBe(0)
    expect(human.stdout).toContain('logged_in\ttrue')
    for (const r of [json, human]) expect(r.stdout + r.stderr).not.toContain(full().key_secret)
  })

  it('checks with the service: a revoked cached token is replaced (status exit 0, token prints one that works); --offline sends nothing; a service down is exit 1', async () => {
    await login()
    const cached = readConfig(dir).profiles!.default.access_token!
    const revoked = await fetch(`${sb.baseUrl}/api/v2/auth/tokens/current`, {headers: {authorization: `Bearer ${cached}`}, method: 'DELETE'})
    expect(revoked.status).toBe(204)
    const token = await cli(['auth', 'token'])
    expect(token.code, token.stderr).toBe(0)
    const printed = token.stdout.trim()
    expect(printed).not.toBe(cached)
    const works = await fetch(`${sb.baseUrl}/api/v2/customers?per_page=1`, {headers: {authorization: `Bearer ${printed}`}})
    expect(works.status).toBe(200)
    const status = await cli(['auth', 'status', '--json'])
    expect(status.code, status.stderr).toBe(0)
    expect(status.json()).toMatchObject({logged_in: true, source: 'profile'})

    // Offline: from the cache alone, nothing sent (a base URL where nothing listens would fail otherwise).
    faulty = await startFaultyServer(() => ({drop: true}))
    await faulty.close()
    const offline = await cli(['auth', 'status', '--offline', '--json'])
    expect(offline.code, offline.stderr).toBe(0)
    expect(offline.json()).toMatchObject({logged_in: true})
    const config = readConfig(dir)
    config.profiles!.default.base_url = faulty.url
    config.profiles!.default.credentials_origin = new URL(faulty.url).origin
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config))
    const down = await cli(['auth', 'status'])
    expect(down.code).toBe(1)
    expect(down.stderr).toMatch(/Nothing is listening there|connection refused|could not connect/i)
    faulty = undefined
  })

  it("a 403 on the check's read is a token the service accepts (it lacks that scope): logged in, exit 0; a 401 after the re-issue is exit 3", async () => {
    await login()
    faulty = await startFaultyServer(
      (req) => (req.method === 'GET' && req.url.startsWith('/api/v2/customers') ? {body: {message: 'forbidden'}, status: 403} : {forward: true}),
      {upstream: sb.baseUrl},
    )
    const config = readConfig(dir)
    config.profiles!.default.base_url = faulty.url
    config.profiles!.default.credentials_origin = new URL(faulty.url).origin
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config))
    const forbidden = await cli(['auth', 'status', '--json'])
    expect(forbidden.code, forbidden.stderr).toBe(0)
    expect(forbidden.json()).toMatchObject({logged_in: true})
    await faulty.close()
    faulty = await startFaultyServer(
      (req) => (req.method === 'GET' && req.url.startsWith('/api/v2/customers') ? {body: {message: 'no'}, status: 401} : {forward: true}),
      {upstream: sb.baseUrl},
    )
    config.profiles!.default.base_url = faulty.url
    config.profiles!.default.credentials_origin = new URL(faulty.url).origin
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config))
    const rejected = await cli(['auth', 'status', '--json'])
    expect(rejected.code).toBe(3)
    expect(rejected.json()).toMatchObject({logged_in: false})
  })

  it('logged out: one line saying so and how to log in, exit 3', async () => {
    const r = await cli(['auth', 'status'])
    expect(r.code).toBe(3)
    expect(r.stderr.match(/Not logged in/g)).toHaveLength(1)
    expect(r.stderr).toContain('commerce auth login')
  })

  it('with the env key pair: source COMMERCE_KEY_ID; a wrong env secret never reuses the cached token: exit 3', async () => {
    // One config dir: the first run caches a token; the same key id with a wrong secret must not reuse it.
    const ok = await cli(['auth', 'status', '--json'], keyPairEnv(dir, sb.baseUrl, full()))
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.json()).toMatchObject({key_id: full().key_id, logged_in: true, source: 'COMMERCE_KEY_ID'})
    const wrong = await cli(['auth', 'status', '--json'], keyPairEnv(dir, sb.baseUrl, {key_id: full().key_id, key_secret: 'nope'}))
    expect(wrong.code).toBe(3)
    expect(wrong.json()).toMatchObject({logged_in: false, source: 'COMMERCE_KEY_ID'})
    const list = await cli(['customers', 'list', '--json'], keyPairEnv(dir, sb.baseUrl, {key_id: full().key_id, key_secret: 'nope'}))
    expect(list.code).toBe(3)
  })

  it('env key pair with a config directory that cannot be written: a warning, an in-memory token, exit 0', async () => {
    const env = keyPairEnv(unwritableConfigDir(dir), sb.baseUrl, full())
    const r = await cli(['customers', 'list', '--per-page', '2', '--json'], env)
    expect(r.code, r.stderr).toBe(0)
    expect(Array.isArray(r.json())).toBe(true)
    expect(r.stderr).toMatch(/Warning: cannot write .*config\.json .*in memory/)
    expect(r.stderr).not.toContain(full().key_secret)
  })

  // Every kind of unusable directory: below a regular file (ENOTDIR), config.json a directory (EISDIR).
  for (const [kind, plant] of [
    ['COMMERCE_CONFIG_DIR below a regular file (ENOTDIR)', (d: string) => (writeFileSync(join(d, 'plain'), 'x'), join(d, 'plain', 'conf'))],
    ['config.json a directory (EISDIR)', (d: string) => (mkdirSync(join(d, 'eisdir', 'config.json'), {recursive: true}), join(d, 'eisdir'))],
  ] as const) {
    it(`env key pair with ${kind}: a warning, an in-memory token, exit 0`, async () => {
      const env = keyPairEnv(plant(dir), sb.baseUrl, full())
      const r = await cli(['customers', 'list', '--per-page', '2', '--json'], env)
      expect(r.code, r.stderr).toBe(0)
      expect(Array.isArray(r.json())).toBe(true)
      expect(r.stderr).toMatch(/Warning: (cannot (read|write) .*config\.json|.*config\.json is not a regular file).* in memory/)
      expect(r.stderr).not.toContain(full().key_secret)
    })
  }

  it('with COMMERCE_ACCESS_TOKEN: logged in (it cannot verify more), exit 0', async () => {
    const r = await cli(['auth', 'status', '--json'], {COMMERCE_ACCESS_TOKEN: 'tok_from_ci', COMMERCE_BASE_URL: sb.baseUrl})
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({logged_in: true, source: 'COMMERCE_ACCESS_TOKEN'})
  })

  it('with COMMERCE_ACCESS_TOKEN and no base URL: status and token need no request, exit 0', async () => {
    const [status, token] = await Promise.all([
      cli(['auth', 'status', '--json'], {COMMERCE_ACCESS_TOKEN: 'tok_from_ci'}),
      cli(['auth', 'token'], {COMMERCE_ACCESS_TOKEN: 'tok_from_ci'}),
    ])
    expect(status.code, status.stderr).toBe(0)
    expect(status.json()).toMatchObject({base_url: null, logged_in: true, source: 'COMMERCE_ACCESS_TOKEN'})
    expect(token.code, token.stderr).toBe(0)
    expect(token.stdout).toBe('tok_from_ci\n')
  })

  it('status and token issue tokens on the path of the API version in effect (--api-version v1)', async () => {
    faulty = await startFaultyServer(() => ({forward: true}), {upstream: sb.baseUrl})
    const env = keyPairEnv(dir, faulty.url, full())
    const status = await cli(['auth', 'status', '--api-version', 'v1', '--json'], env)
    expect(status.code, status.stderr).toBe(0)
    const token = await cli(['auth', 'token', '--api-version', 'v1'], keyPairEnv(join(dir, 'second'), faulty.url, full()))
    expect(token.code, token.stderr).toBe(0)
    expect(requestsTo(faulty.requests, 'POST', '/api/v1/auth/tokens')).toHaveLength(2)
    expect(requestsTo(faulty.requests, 'POST', '/api/v2/auth/tokens')).toHaveLength(0)
  })

  it('logged out: exit 3, the JSON document with logged_in false and nulls', async () => {
    const r = await cli(['auth', 'status', '--json'])
    expect(r.code).toBe(3)
    expect(r.json()).toEqual({
      base_url: null,
      expires_at: null,
      key_id: null,
      logged_in: false,
      profile: 'default',
      // Why, for a program as for a person (stderr says it too).
      reason: expect.stringContaining('commerce auth login'),
      scopes: null,
      source: 'none',
      storage: null,
    })
    expect(r.stderr).toContain('commerce auth login')
  })

  it('token prints a valid token and a newline, nothing else; a second call reuses the cached one', async () => {
    await login()
    const first = await cli(['auth', 'token'])
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toMatch(/^\S+\n$/)
    expect(first.stderr).toBe('')
    expect(await tokenStatus(sb.baseUrl, first.stdout.trim())).toBe(200)
    expect((await cli(['auth', 'token'])).stdout).toBe(first.stdout)
  })
})

describe('auth logout', () => {
  it('revokes the token (it then gets 401) and removes pair and token; logging out again exits 0', async () => {
    await login()
    const token = storedToken()
    const r = await cli(['auth', 'logout'])
    expect(r.code, r.stderr).toBe(0)
    expect(await tokenStatus(sb.baseUrl, token)).toBe(401)
    const profile = readConfig(dir).profiles!.default
    for (const k of ['key_id', 'key_secret', 'access_token', 'expires_at']) expect(profile).not.toHaveProperty(k)
    const again = await cli(['auth', 'logout', '--json'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.json()).toMatchObject({revoked: false})
  })

  it('revokes on the path of the API version in effect: --api-version v1, or the profile says v1', async () => {
    faulty = await startFaultyServer(() => ({forward: true}), {upstream: sb.baseUrl})
    await login(faulty.url)
    const flag = await cli(['auth', 'logout', '--api-version', 'v1'])
    expect(flag.code, flag.stderr).toBe(0)
    expect(flag.stderr).toMatch(/v1 is deprecated/)
    await login(faulty.url, ['--api-version', 'v1'])
    const profile = await cli(['auth', 'logout', '--json'])
    expect(profile.code, profile.stderr).toBe(0)
    expect(profile.json()).toMatchObject({revoked: true})
    expect(requestsTo(faulty.requests, 'DELETE', '/api/v1/auth/tokens/current')).toHaveLength(2)
    expect(requestsTo(faulty.requests, 'DELETE', '/api/v2/auth/tokens/current')).toHaveLength(0)
  })

  it('when revocation fails (500): local credentials are removed all the same, exit 1 saying the token stays valid', async () => {
    faulty = await startFaultyServer((req) => (req.method === 'DELETE' ? {body: {message: 'boom'}, status: 500} : {forward: true}), {
      upstream: sb.baseUrl,
    })
    await login(faulty.url)
    const r = await cli(['auth', 'logout'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/stays valid until it expires/)
    expect(requestsTo(faulty.requests, 'DELETE', '/api/v2/auth/tokens/current').length).toBeGreaterThanOrEqual(1)
    expect(readConfig(dir).profiles!.default.key_secret).toBeUndefined()
  })
})

describe('credential and base URL errors', () => {
  it('only one of COMMERCE_KEY_ID / COMMERCE_KEY_SECRET: exit 2 naming the missing one', async () => {
    const [noSecret, noId] = await Promise.all([
      cli(['customers', 'list'], {COMMERCE_BASE_URL: sb.baseUrl, COMMERCE_KEY_ID: full().key_id}),
      cli(['customers', 'list', '--json'], {COMMERCE_BASE_URL: sb.baseUrl, COMMERCE_KEY_SECRET: full().key_secret}),
    ])
    expect(noSecret.code).toBe(2)
    expect(noSecret.stderr).toMatch(/COMMERCE_KEY_SECRET is not/)
    expect(noId.code).toBe(2)
    expect(noId.json().error.message).toMatch(/COMMERCE_KEY_ID is not/)
    expect(noId.stdout + noId.stderr).not.toContain(full().key_secret)
  })

  it('no base URL anywhere: not_logged_in, exit 3, with the hint (with credentials or without: unset CI secrets)', async () => {
    const bare = await cli(['customers', 'list', '--json'], {})
    expect(bare.code).toBe(3)
    expect(bare.json().error).toMatchObject({code: 'not_logged_in', exit_code: 3})
    const r = await cli(['customers', 'list'], {COMMERCE_KEY_ID: full().key_id, COMMERCE_KEY_SECRET: full().key_secret})
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('No base URL')
    expect(r.stderr).toContain('--base-url')
    expect(r.stderr).toContain('COMMERCE_BASE_URL')
  })

  it('not logged in: exit 3 with how to log in', async () => {
    const r = await cli(['customers', 'list'], {COMMERCE_BASE_URL: sb.baseUrl})
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('commerce auth login')
  })
})

describe('401: one re-issue and one repeat', () => {
  const tokenIssues = (stderr: string) => occurrences(stderr, '> POST ') // the only POST these commands make
  const customerGets = (stderr: string) => occurrences(stderr, '> GET ') // one per list request

  it('a revoked cached token: a new token is issued once and the request succeeds', async () => {
    await login()
    const old = storedToken()
    const res = await fetch(`${sb.baseUrl}/api/v2/auth/tokens/current`, {headers: {authorization: `Bearer ${old}`}, method: 'DELETE'})
    expect(res.status).toBe(204)
    const r = await cli(['customers', 'list', '--json', '--debug'])
    expect(r.code, r.stderr).toBe(0)
    expect(tokenIssues(r.stderr)).toBe(1)
    expect(customerGets(r.stderr)).toBe(2)
    expect(storedToken()).not.toBe(old)
    expect(await tokenStatus(sb.baseUrl, storedToken())).toBe(200)
  })

  it('an expired token (the sandbox clock passed the TTL): renewed once; then an expired one no longer counts as valid to revoke', async () => {
    await login()
    sb.clock.advance(3601_000)
    const r = await cli(['customers', 'list', '--json', '--debug'])
    expect(r.code, r.stderr).toBe(0)
    expect(tokenIssues(r.stderr)).toBe(1)
    // Logging out with a token the service already rejects as expired: nothing stays valid, exit 0.
    sb.clock.advance(3601_000)
    const out = await cli(['auth', 'logout'])
    expect(out.code, out.stderr).toBe(0)
  })

  it('an expired COMMERCE_ACCESS_TOKEN: exit 3, never renewed', async () => {
    const token = await issueToken(sb.baseUrl, full())
    sb.clock.advance(3601_000)
    const r = await cli(['customers', 'list', '--debug'], {
      COMMERCE_ACCESS_TOKEN: token,
      COMMERCE_BASE_URL: sb.baseUrl,
      COMMERCE_KEY_ID: full().key_id,
      COMMERCE_KEY_SECRET: full().key_secret,
    })
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('expired')
    expect(tokenIssues(r.stderr)).toBe(0)
    expect(customerGets(r.stderr)).toBe(1)
  })

  it('a cached token is reused until 60 s before it expires, then a new one is issued', async () => {
    const token = await issueToken(sb.baseUrl, full())
    const cached = (expiresInMs: number) =>
      storeProfile(dir, 'default', {
        access_token: token,
        base_url: sb.baseUrl,
        expires_at: new Date(Date.now() + expiresInMs).toISOString(),
        key_id: full().key_id,
        key_secret: full().key_secret,
        scopes: [...full().scopes],
        token_base_url: sb.baseUrl,
      })
    await cached(120_000)
    const reused = await cli(['orders', 'list', '--debug', '--json'])
    expect(reused.code, reused.stderr).toBe(0)
    expect(tokenIssues(reused.stderr)).toBe(0)
    expect(storedToken()).toBe(token)
    await cached(50_000)
    const renewed = await cli(['orders', 'list', '--debug', '--json'])
    expect(renewed.code, renewed.stderr).toBe(0)
    expect(tokenIssues(renewed.stderr)).toBe(1)
    expect(customerGets(renewed.stderr)).toBe(1)
    expect(storedToken()).not.toBe(token)
  })

  it('a key lacking the scope: 403, exit 3, the scope named', async () => {
    const r = await cli(['orders', 'list'], keyPairEnv(dir, sb.baseUrl, sb.keys[1]))
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('orders:read')
  })
})

describe('selection order', () => {
  const status = async (args: string[] = [], env: Record<string, string> = {}) => {
    const r = await cli(['auth', 'status', '--json', ...args], env)
    expect(r.code, r.stderr).toBe(3) // no key pairs in these profiles: logged out, but the selection shows
    return r.json<{profile: string; base_url: string | null}>()
  }

  it('profile: --profile > COMMERCE_PROFILE > the chosen profile > "default"', async () => {
    for (const name of ['chosen', 'flag', 'env', 'default']) await storeProfile(dir, name, {base_url: `https://${name}.example.com`})
    expect(readConfig(dir).current_profile).toBe('chosen') // the first profile ever created
    expect(await status(['--profile', 'flag'], {COMMERCE_PROFILE: 'env'})).toEqual(
      expect.objectContaining({base_url: 'https://flag.example.com', profile: 'flag'}),
    )
    expect((await status([], {COMMERCE_PROFILE: 'env'})).profile).toBe('env')
    expect((await status()).profile).toBe('chosen')
    const config = readConfig(dir)
    delete config.current_profile
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config))
    expect(await status()).toEqual(expect.objectContaining({base_url: 'https://default.example.com', profile: 'default'}))
  })

  it('base URL: --base-url > COMMERCE_BASE_URL > the profile', async () => {
    await storeProfile(dir, 'default', {base_url: 'https://profile.example.com'})
    expect((await status(['--base-url', 'https://flag.example.com'], {COMMERCE_BASE_URL: 'https://env.example.com'})).base_url).toBe(
      'https://flag.example.com',
    )
    expect((await status([], {COMMERCE_BASE_URL: 'https://env.example.com'})).base_url).toBe('https://env.example.com')
    expect((await status()).base_url).toBe('https://profile.example.com')
  })

  it('the first profile a login creates becomes the chosen one', async () => {
    await login(sb.baseUrl, ['--profile', 'work'])
    const r = await cli(['auth', 'status', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({logged_in: true, profile: 'work', source: 'profile'})
  })
})
