/**
 * Starts an in-memory sandbox on 127.0.0.1 (ephemeral port) with a clock the test controls.
 *
 *   const sb = await startTestSandbox()
 *   try { ...fetch(`${sb.baseUrl}/api/v2/...`)...; sb.clock.advance(3_600_000) } finally { await sb.close() }
 *
 * Closing is the caller's job (afterEach/afterAll). The clock starts at the real time (so that webhook
 * signatures verify with the default tolerance) and moves only when told. Webhook retries default to
 * 20 ms then 40 ms, so a failing receiver is retried within the test. Any `SandboxOptions` may be passed.
 */
import {writeFileSync} from 'node:fs'

import {type Sandbox, type SandboxOptions, startSandbox} from '../../src/sandbox/index.js'
import {newKeyPairs} from '../../src/sandbox/seed.js'
import {recordAnswer} from './openapi-check.js'
import type {CustomerRecord, Snapshot} from '../../src/sandbox/record-store.js'

export interface TestClock {
  /** Milliseconds since the epoch, as the sandbox sees them. */
  now: () => number
  advance: (ms: number) => void
}

export interface TestSandbox extends Sandbox {
  clock: TestClock
}

export async function startTestSandbox(options: Omit<SandboxOptions, 'now'> = {}): Promise<TestSandbox> {
  let current = Date.now()
  const clock: TestClock = {
    advance: (ms) => {
      current += ms
    },
    now: () => current,
  }
  const sandbox = await startSandbox({onAnswer: recordAnswer, retryDelaysMs: [20, 40], ...options, now: clock.now})
  return Object.assign(sandbox, {clock})
}

/**
 * A sandbox data file holding `count` customers (and nothing else), for benchmarks that need a large store
 * without creating it request by request. Start the sandbox with `{dataFile}` pointing at it.
 */
export function writeCustomersDataFile(path: string, count: number): string {
  const start = Date.parse('2026-01-01T00:00:00Z')
  const customers: CustomerRecord[] = Array.from({length: count}, (_, i) => ({
    addresses: [],
    created_at: new Date(start + i * 1000).toISOString(),
    email: `customer${i + 1}@example.com`,
    id: i + 1,
    metadata: {plan: i % 3 === 0 ? 'pro' : 'free'},
    name: `Customer ${i + 1}`,
    status: i % 5 === 0 ? 'invited' : 'active',
  }))
  const snapshot: Snapshot = {
    customers,
    idempotency: {},
    keys: newKeyPairs(),
    next: {address: 1, customer: count + 1, order: 1, refund: 1},
    orders: [],
    version: 1,
    webhooks: [],
  }
  writeFileSync(path, JSON.stringify(snapshot))
  return path
}
