/**
 * One error document for every command (issue 48): commands run as processes into their failures (usage, no
 * credentials, rejected credentials, not found, validation, a refused connection, a failing server, a rate limit,
 * no sandbox, signals); every document is validated against the JSON Schema the package ships
 * (schemas/error.schema.json), its exit code is the process's, and one condition never has two exit codes.
 */
import {spawn} from 'node:child_process'
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {Ajv2020} from 'ajv/dist/2020.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {ErrorBody} from '../../src/io/output.js'
import {BIN, ROOT, refusedUrl, run, tempConfigDir} from '../helpers/cli.js'
import {type FaultyServer, startFaultyServer} from '../helpers/faulty-server.js'
import {keyPairEnv} from '../helpers/login.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'

const validate = new Ajv2020({allErrors: true, strict: true}).compile(JSON.parse(readFileSync(join(ROOT, 'schemas', 'error.schema.json'), 'utf8')))

type Doc = ErrorBody

/** Every (code, exit code) seen, by the command that gave it. */
const seen: Array<{command: string; code: string; exit: number}> = []

/** The error document of a failed run, checked against the schema and the process's exit code. */
function documentOf(r: {code: number | null; stdout: string; stderr: string}, command: string): Doc {
  const parsed = JSON.parse(r.stdout) as {error: Doc}
  expect(validate(parsed), `${command}: ${JSON.stringify(validate.errors)}`).toBe(true)
  expect(parsed.error.exit_code, command).toBe(r.code)
  // Said on stderr too, for a person reading the job's log.
  expect(r.stderr, command).toContain(parsed.error.message.slice(0, 20))
  seen.push({code: parsed.error.code, command, exit: parsed.error.exit_code})
  return parsed.error
}

let sb: TestSandbox
let cfg: {dir: string; cleanup: () => void}
const servers: FaultyServer[] = []
beforeAll(async () => {
  sb = await startTestSandbox()
  cfg = tempConfigDir()
})
/** A config directory of its own for one run, removed with the others after the file. */
const scratch: Array<{cleanup: () => void}> = []
function scratchDir(): string {
  const d = tempConfigDir()
  scratch.push(d)
  return d.dir
}
afterAll(async () => {
  await sb.close()
  for (const s of servers) await s.close()
  cfg.cleanup()
  for (const d of scratch) d.cleanup()
})

const TOKEN = {body: {access_token: 'tok', expires_in: 3600, scopes: [], token_type: 'Bearer'}, status: 201}

describe('the error document', () => {
  it('usage, validation, not found: the CLI’s own and the service’s, field keys as the service names them', async () => {
    const env = keyPairEnv(cfg.dir, sb.baseUrl, sb.keys[0])
    const cases: Array<[string[], string]> = [
      [['customers', 'list', '--per-page', '0'], 'usage'],
      [['customers', 'create', '--email', 'not-an-email', '--name', 'N'], 'validation_failed'],
      [['customers', 'list', '--nope'], 'usage'],
      [['customers', 'get', 'abc'], 'usage'],
      [['customers', 'get', '999999'], 'not_found'],
      [['orders', 'create', '--customer', '1', '--currency', 'USD', '--item', '1:1', '--idempotency-key', 'nope'], 'validation_failed'],
      [['help', '--json'], 'usage'],
      // Flags alone name no command: the usage document all the same.
      [[], 'usage'],
    ]
    for (const [args, code] of cases) {
      const r = await run([...args, '--json'], {env})
      const doc = documentOf(r, args.join(' '))
      expect(doc.code, args.join(' ')).toBe(code)
    }
    const key = await run(['orders', 'create', '--customer', '1', '--currency', 'USD', '--item', '1:1', '--idempotency-key', 'nope', '--json'], {env})
    expect(Object.keys(documentOf(key, 'idempotency').errors)).toEqual(['Idempotency-Key'])
    const missing = await run(['customers', 'get', '999999', '--json'], {env})
    expect(documentOf(missing, 'get')).toMatchObject({errors: {}, status: 404})
  })

  it('credentials: none, and rejected ones whose hint names where they came from; auth status says why', async () => {
    const none = await run(['customers', 'list', '--json'], {env: {COMMERCE_BASE_URL: sb.baseUrl, COMMERCE_CONFIG_DIR: cfg.dir}})
    expect(documentOf(none, 'no credentials').code).toBe('not_logged_in')
    // Nothing set at all (a CI job whose secrets are unset): the same condition, the same code and exit code.
    const nothing = await run(['customers', 'list', '--json'], {env: {COMMERCE_CONFIG_DIR: scratchDir()}})
    expect(documentOf(nothing, 'no base URL, no credentials')).toMatchObject({code: 'not_logged_in', exit_code: 3})
    const wrong = {...keyPairEnv(cfg.dir, sb.baseUrl, sb.keys[0]), COMMERCE_KEY_SECRET: 'wrong-secret'}
    const rejected = documentOf(await run(['customers', 'list', '--json'], {env: wrong}), 'wrong secret')
    expect(rejected.code).toBe('auth_rejected')
    expect(rejected.hint).toMatch(/COMMERCE_KEY_ID and COMMERCE_KEY_SECRET/)
    expect(rejected.hint).not.toMatch(/auth login/)
    const status = await run(['auth', 'status', '--json'], {env: wrong})
    expect(status.code).toBe(3)
    expect(status.json()).toMatchObject({logged_in: false, reason: expect.stringMatching(/rejected/)})
    // Two sentences, each ended: the CLI's words, then where the pair came from.
    expect(status.json().reason).toMatch(/^The key pair was rejected \(HTTP \d+\)\. The key pair comes from/)
    expect(status.stderr).toMatch(/rejected/)
  })

  it('network and service failures: refused (nothing sent), 5xx, a rate limit with retry_after', async () => {
    const refused = await run(['customers', 'list', '--json'], {
      env: {COMMERCE_BASE_URL: await refusedUrl(), COMMERCE_CONFIG_DIR: cfg.dir, COMMERCE_KEY_ID: 'k', COMMERCE_KEY_SECRET: 's'},
    })
    expect(documentOf(refused, 'refused').code).toBe('network_refused')
    const failing = await startFaultyServer((req) => (req.url.endsWith('/auth/tokens') ? TOKEN : {body: {message: 'boom'}, status: 500}))
    const limited = await startFaultyServer((req) =>
      req.url.endsWith('/auth/tokens') ? TOKEN : {body: {message: 'slow down'}, headers: {'retry-after': '300'}, status: 429},
    )
    servers.push(failing, limited)
    const env = (url: string) => ({COMMERCE_BASE_URL: url, COMMERCE_CONFIG_DIR: scratchDir(), COMMERCE_KEY_ID: 'k', COMMERCE_KEY_SECRET: 's'})
    expect(documentOf(await run(['customers', 'get', '1', '--json'], {env: env(failing.url)}), '5xx')).toMatchObject({
      code: 'server_error',
      status: 500,
    })
    const rate = documentOf(await run(['customers', 'get', '1', '--json', '--max-wait', '1'], {env: env(limited.url)}), '429')
    expect(rate).toMatchObject({code: 'rate_limited', exit_code: 5, status: 429})
    expect(rate.retry_after).toBeGreaterThanOrEqual(298)
  })

  it('an answer nested 5,000 deep (10 KB) is unexpected_response, in --json and under --debug, never a stack overflow', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`
    const nested = await startFaultyServer((req) =>
      req.url.endsWith('/auth/tokens') ? TOKEN : {body: `{"id": 1, "data": ${deep}}`, headers: {'content-type': 'application/json'}},
    )
    servers.push(nested)
    const env = {COMMERCE_BASE_URL: nested.url, COMMERCE_CONFIG_DIR: scratchDir(), COMMERCE_KEY_ID: 'k', COMMERCE_KEY_SECRET: 's'}
    for (const args of [
      ['customers', 'get', '1'],
      ['customers', 'list'],
      ['customers', 'get', '1', '--debug'],
    ]) {
      const r = await run([...args, '--json'], {env})
      expect(documentOf(r, args.join(' '))).toMatchObject({code: 'unexpected_response', exit_code: 1})
      expect(r.stderr).not.toMatch(/call stack/)
    }
  })

  it('no sandbox running: one code and one exit code for every command that needs one', async () => {
    const empty = tempConfigDir()
    const env = {COMMERCE_CONFIG_DIR: empty.dir}
    const scenario = join(empty.dir, 's.json')
    await import('node:fs').then((fs) => fs.writeFileSync(scenario, '{}'))
    for (const args of [
      ['sandbox', 'logs'],
      ['sandbox', 'seed', scenario],
      ['sandbox', 'fault', 'add', '--path', '/api/v2/customers', '--status', '500'],
      ['webhooks', 'trigger', 'order.paid'],
      ['auth', 'login', '--sandbox'],
    ]) {
      const doc = documentOf(await run([...args, '--json'], {env}), args.join(' '))
      expect(doc.code, args.join(' ')).toBe('sandbox_not_running')
    }
    empty.cleanup()
  })

  it('signals end any command at once with their code: SIGTERM 143, SIGHUP 129, SIGINT 130, the document under --json', async () => {
    const silent = await startFaultyServer((req) => (req.url.endsWith('/auth/tokens') ? TOKEN : new Promise(() => {})))
    servers.push(silent)
    for (const [signal, exit, code] of [
      ['SIGTERM', 143, 'terminated'],
      ['SIGHUP', 129, 'hangup'],
      ['SIGINT', 130, 'interrupted'],
    ] as const) {
      const before = silent.requests.length
      const child = spawn(process.execPath, [BIN, 'customers', 'list', '--json'], {
        env: {
          COMMERCE_BASE_URL: silent.url,
          COMMERCE_CONFIG_DIR: scratchDir(),
          COMMERCE_KEY_ID: 'k',
          COMMERCE_KEY_SECRET: 's',
          PATH: process.env.PATH,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stdout = ''
      let stderr = ''
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
      while (silent.requests.length < before + 2) await new Promise((resolve) => setTimeout(resolve, 20))
      const sent = Date.now()
      child.kill(signal)
      const status = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)))
      expect(Date.now() - sent, signal).toBeLessThan(2000)
      expect(documentOf({code: status, stderr, stdout}, `customers list (${signal})`)).toMatchObject({code, exit_code: exit})
    }
  })

  it('an export ended by SIGTERM during a slow page ends within a second and leaves no temp file', async () => {
    const slow = await startFaultyServer((req) =>
      req.url.endsWith('/auth/tokens')
        ? TOKEN
        : new Promise((resolve) => setTimeout(() => resolve({body: {data: [], meta: {page: 1, per_page: 100, total: 0}}}), 20_000)),
    )
    servers.push(slow)
    const dir = tempConfigDir()
    const child = spawn(process.execPath, [BIN, 'orders', 'export', '--output', join(dir.dir, 'orders.json'), '--json'], {
      env: {COMMERCE_BASE_URL: slow.url, COMMERCE_CONFIG_DIR: dir.dir, COMMERCE_KEY_ID: 'k', COMMERCE_KEY_SECRET: 's', PATH: process.env.PATH},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    while (!slow.requests.some((q) => q.url.includes('/orders'))) await new Promise((resolve) => setTimeout(resolve, 20))
    const sent = Date.now()
    child.kill('SIGTERM')
    const status = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)))
    expect(Date.now() - sent).toBeLessThan(1000)
    expect(status, stderr).toBe(143)
    expect(documentOf({code: status, stderr, stdout}, 'orders export (SIGTERM)').code).toBe('terminated')
    expect(readdirSync(dir.dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
    dir.cleanup()
  })

  it('one condition, one exit code, across every command above', () => {
    const exits = new Map<string, Set<number>>()
    for (const s of seen) exits.set(s.code, (exits.get(s.code) ?? new Set()).add(s.exit))
    for (const [code, set] of exits)
      expect(
        [...set],
        `${code}: ${seen
          .filter((s) => s.code === code)
          .map((s) => `${s.command} → ${s.exit}`)
          .join(', ')}`,
      ).toHaveLength(1)
    expect(exits.size).toBeGreaterThan(8)
  })
})
