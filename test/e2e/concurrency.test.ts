/**
 * Parallel CI jobs: 20 `commerce` processes started at once, sharing one config directory and an env key pair,
 * first with no cached token, then with a cached token the service has expired (401 -> renewal). All must
 * succeed, the config file must stay valid JSON, and one token must serve them all. Tokens are counted at a
 * forwarding proxy in front of the sandbox.
 */
import {spawn} from 'node:child_process'
import {readdirSync} from 'node:fs'

import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {BIN, type RunResult, run, tempConfigDir} from '../helpers/cli.js'
import {type FaultyServer, startFaultyServer} from '../helpers/faulty-server.js'
import {keyPairEnv, readConfig, requestsTo} from '../helpers/login.js'
import {type TestSandbox, startTestSandbox} from '../helpers/sandbox.js'

const PROCESSES = 20

let sb: TestSandbox
let proxy: FaultyServer
let tmp: {dir: string; cleanup: () => void}

beforeAll(async () => {
  sb = await startTestSandbox({seedDemoData: true})
  proxy = await startFaultyServer(() => ({forward: true}), {upstream: sb.baseUrl})
  tmp = tempConfigDir()
})
afterAll(async () => {
  await proxy.close()
  await sb.close()
  tmp.cleanup()
})

const tokenIssues = () => requestsTo(proxy.requests, 'POST', '/auth/tokens').length

async function stampede(): Promise<RunResult[]> {
  const env = keyPairEnv(tmp.dir, proxy.url, sb.keys[0])
  return Promise.all(Array.from({length: PROCESSES}, () => run(['customers', 'list', '--per-page', '5', '--json'], {env, timeoutMs: 60_000})))
}

function expectAllSucceeded(results: RunResult[]): void {
  for (const r of results) {
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toHaveLength(5)
  }
  // Valid JSON, with exactly one cached token for this key pair.
  expect(Object.keys(readConfig(tmp.dir).token_cache ?? {})).toHaveLength(1)
}

describe(`${PROCESSES} processes sharing one config file`, () => {
  it('with no cached token: all succeed, one token is issued for all', {timeout: 90_000}, async () => {
    expectAllSucceeded(await stampede())
    expect(tokenIssues()).toBe(1)
  })

  it('with a cached token the service has expired: all succeed, one new token replaces it', {timeout: 90_000}, async () => {
    const before = Object.values(readConfig(tmp.dir).token_cache!)[0].access_token
    sb.clock.advance(3601_000)
    const issued = tokenIssues()
    const results = await stampede()
    expectAllSucceeded(results)
    expect(tokenIssues() - issued).toBe(1)
    expect(Object.values(readConfig(tmp.dir).token_cache!)[0].access_token).not.toBe(before)
    // Each process sent its request once, or, if it read the expired token before the renewal was written,
    // met one 401 and repeated it once: never more (the first stampede sent PROCESSES requests).
    const gets = requestsTo(proxy.requests, 'GET', '/api/v2/customers').length - PROCESSES
    expect(gets).toBeGreaterThanOrEqual(PROCESSES + 1)
    expect(gets).toBeLessThanOrEqual(PROCESSES * 2)
  })
})

/**
 * A slow token endpoint. The token request is held by the proxy longer than the config lock
 * is ever waited for (10 s), so a lock held across it would fail the others "config file is locked" and lose a
 * `config set` run meanwhile. The config lock must never span the request.
 */
describe('a slow token endpoint', () => {
  const HOLD_MS = 11_000
  let slow: FaultyServer
  let dir: {dir: string; cleanup: () => void}
  const held = new Set<() => void>()
  let tokenArrived: () => void = () => {}

  beforeAll(async () => {
    slow = await startFaultyServer(
      async (req) => {
        if (req.method === 'POST' && req.url.endsWith('/auth/tokens')) {
          tokenArrived()
          await new Promise<void>((resolve) => {
            const release = () => {
              held.delete(release)
              clearTimeout(timer)
              resolve()
            }
            const timer = setTimeout(release, HOLD_MS)
            held.add(release)
          })
        }
        return {forward: true}
      },
      {upstream: sb.baseUrl},
    )
  })
  afterAll(async () => {
    for (const release of [...held]) release()
    await slow.close()
  })
  beforeEach(() => {
    dir = tempConfigDir()
  })
  afterEach(() => dir.cleanup())

  const lockDirs = () => readdirSync(dir.dir).filter((name) => name.endsWith('.lock'))

  it('10 parallel commands all succeed with one token, and a `config set` run meanwhile is kept', {timeout: 90_000}, async () => {
    const arrived = new Promise<void>((resolve) => (tokenArrived = resolve))
    const env = keyPairEnv(dir.dir, slow.url, sb.keys[0])
    const issuesBefore = requestsTo(slow.requests, 'POST', '/auth/tokens').length
    const stampede = Promise.all(Array.from({length: 10}, () => run(['customers', 'list', '--per-page', '2', '--json'], {env, timeoutMs: 60_000})))
    await arrived
    // While the token request hangs: a setting changed in another profile is saved at once.
    const set = await run(['config', 'set', 'base_url', 'https://staging.example.com', '--profile', 'staging'], {env: {COMMERCE_CONFIG_DIR: dir.dir}})
    expect(set.code, set.stderr).toBe(0)
    for (const r of await stampede) {
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).not.toContain('locked')
    }
    expect(requestsTo(slow.requests, 'POST', '/auth/tokens').length - issuesBefore).toBe(1)
    const data = readConfig(dir.dir)
    expect(data.profiles?.staging?.base_url).toBe('https://staging.example.com')
    expect(Object.keys(data.token_cache ?? {})).toHaveLength(1)
    expect(lockDirs()).toEqual([])
  })

  it('Ctrl-C during a token issue: exit 130 and no lock left behind; the next command does not wait', {timeout: 60_000}, async () => {
    const arrived = new Promise<void>((resolve) => (tokenArrived = resolve))
    const env = {...keyPairEnv(dir.dir, slow.url, sb.keys[0]), HOME: dir.dir, LANG: 'C.UTF-8', PATH: process.env.PATH ?? ''}
    const child = spawn(process.execPath, [BIN, 'customers', 'list', '--json'], {env, stdio: 'ignore'})
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    try {
      await arrived
      expect(lockDirs().length).toBeGreaterThan(0) // the issue lock is held while the request hangs
      child.kill('SIGINT')
      expect(await exited).toBe(130)
    } finally {
      child.kill('SIGKILL')
    }
    expect(lockDirs()).toEqual([])
    for (const release of [...held]) release()
    const started = Date.now()
    const next = await run(['config', 'set', 'api_version', 'v2'], {env: {COMMERCE_CONFIG_DIR: dir.dir}})
    expect(next.code, next.stderr).toBe(0)
    // Under the 10 s a lock would be waited for, with room for a CLI's start on a loaded machine.
    expect(Date.now() - started).toBeLessThan(8000)
  })
})
