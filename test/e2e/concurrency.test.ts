/**
 * Parallel CI jobs: 20 `commerce` processes started at once, sharing one config directory and an env key pair,
 * first with no cached token, then with a cached token the service has expired (401 -> renewal). All must
 * succeed, the config file must stay valid JSON, and one token must serve them all. Tokens are counted at a
 * forwarding proxy in front of the sandbox.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunResult, run, tempConfigDir} from '../helpers/cli.js'
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
  const env = keyPairEnv(tmp.dir, proxy.url, sb.keys[0]!)
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
    const before = Object.values(readConfig(tmp.dir).token_cache!)[0]!.access_token
    sb.clock.advance(3601_000)
    const issued = tokenIssues()
    const results = await stampede()
    expectAllSucceeded(results)
    expect(tokenIssues() - issued).toBe(1)
    expect(Object.values(readConfig(tmp.dir).token_cache!)[0]!.access_token).not.toBe(before)
    // Each process sent its request once, or, if it read the expired token before the renewal was written,
    // met one 401 and repeated it once: never more (the first stampede sent PROCESSES requests).
    const gets = requestsTo(proxy.requests, 'GET', '/api/v2/customers').length - PROCESSES
    expect(gets).toBeGreaterThanOrEqual(PROCESSES + 1)
    expect(gets).toBeLessThanOrEqual(PROCESSES * 2)
  })
})
