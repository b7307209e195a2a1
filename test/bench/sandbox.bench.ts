/**
 * Requests per second the sandbox serves, measured with autocannon against a sandbox on 127.0.0.1:0:
 * a page of 100 customers (`GET /api/v2/customers?per_page=100`) with 1,000 and with 100,000 stored customers
 * (a page must not cost more with more data), and token issue (`POST /api/v2/auth/tokens`). Each case runs
 * for a bounded time; the load runs in a worker thread so that it does not share the sandbox's event loop.
 * The customers are written straight into a data file, which the sandbox loads at start.
 *
 *   node --import tsx test/bench/sandbox.bench.ts [seconds] [connections]
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

import {startSandbox} from '../../src/sandbox/index.js'
import {writeCustomersDataFile} from '../helpers/sandbox.js'

interface AutocannonResult {
  requests: {average: number; total: number}
  latency: {p50: number; p99: number}
  non2xx: number
  errors: number
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon

export interface CaseResult {
  name: string
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  non2xx: number
  errors: number
}

export interface SandboxBenchResult {
  seconds: number
  connections: number
  cases: CaseResult[]
}

export async function run(options: {seconds?: number; connections?: number; out?: NodeJS.WritableStream} = {}): Promise<SandboxBenchResult> {
  const seconds = Math.min(Math.max(1, options.seconds ?? 3), 30)
  const connections = Math.min(Math.max(1, options.connections ?? 10), 200)
  const out = options.out ?? process.stdout
  const dir = mkdtempSync(join(tmpdir(), 'commerce-bench-sandbox-'))
  const cases: CaseResult[] = []

  const measure = async (name: string, opts: Record<string, unknown>): Promise<void> => {
    const r = await autocannon({connections, duration: seconds, workers: 1, ...opts})
    const result = {
      errors: r.errors,
      name,
      non2xx: r.non2xx,
      p50Ms: r.latency.p50,
      p99Ms: r.latency.p99,
      requestsPerSecond: Math.round(r.requests.average),
    }
    cases.push(result)
    out.write(
      `${name.padEnd(48)} ${String(result.requestsPerSecond).padStart(7)} req/s  p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms` +
        (result.non2xx || result.errors ? `  (non-2xx ${result.non2xx}, errors ${result.errors})` : '') +
        '\n',
    )
  }

  try {
    out.write(`${seconds} s per case, ${connections} connections\n`)
    for (const customers of [1_000, 100_000]) {
      const dataFile = writeCustomersDataFile(join(dir, `data-${customers}.json`), customers)
      const sandbox = await startSandbox({dataFile})
      try {
        const {key_id, key_secret} = sandbox.keys[0]
        const issued = await fetch(`${sandbox.baseUrl}/api/v2/auth/tokens`, {
          body: JSON.stringify({key_id, key_secret}),
          headers: {'content-type': 'application/json'},
          method: 'POST',
        })
        const {access_token: token} = (await issued.json()) as {access_token: string}
        await measure(`GET customers?per_page=100 (${customers.toLocaleString('en')} stored)`, {
          headers: {accept: 'application/json', authorization: `Bearer ${token}`},
          url: `${sandbox.baseUrl}/api/v2/customers?per_page=100&page=3`,
        })
        if (customers === 1_000) {
          await measure('POST auth/tokens', {
            body: JSON.stringify({key_id, key_secret}),
            headers: {accept: 'application/json', 'content-type': 'application/json'},
            method: 'POST',
            url: `${sandbox.baseUrl}/api/v2/auth/tokens`,
          })
        }
      } finally {
        await sandbox.close()
      }
    }
    return {cases, connections, seconds}
  } finally {
    rmSync(dir, {force: true, recursive: true})
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [seconds, connections] = process.argv.slice(2).map(Number)
  await run({connections: connections || undefined, seconds: seconds || undefined})
}
