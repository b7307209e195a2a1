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
import {type Sandbox, type SandboxOptions, startSandbox} from '../../src/sandbox/index.js'

export interface TestClock {
  /** Milliseconds since the epoch, as the sandbox sees them. */
  now(): number
  advance(ms: number): void
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
  const sandbox = await startSandbox({retryDelaysMs: [20, 40], ...options, now: clock.now})
  return Object.assign(sandbox, {clock})
}
