/**
 * Issue 24's export figure: `customers export --format jsonl` of 50,000 customers against the sandbox's raw page
 * rate, side by side in one run (A/B alternated, medians): the raw rate is a child process fetching every page
 * (per_page 100) over 10 keep-alive connections with undici and reading the bodies, nothing else, timed from its
 * first request to its last body (its start-up left out); the CLI is timed end to end, start-up included, writing
 * the records to a file. The sandbox runs in this process, which does nothing else meanwhile. Goal: the CLI at
 * 50% of the raw rate or more. Also printed, for what the CLI costs once started: its rate over the time it
 * takes beyond an export of an empty list (start-up, token, one page), from a sandbox with no customers.
 *
 *   node --import tsx test/bench/export-rate.bench.ts [records] [rounds]
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

import {startSandbox} from '../../src/sandbox/index.js'
import {writeCustomersDataFile} from '../helpers/sandbox.js'

const ROOT = resolve(import.meta.dirname, '..', '..')
const BIN = join(ROOT, 'bin', 'run.js')
const GOAL = 0.5

const RAW = `
const {Pool} = require(${JSON.stringify(join(ROOT, 'node_modules', 'undici'))})
const [url, token, pages] = process.argv.slice(1)
const pool = new Pool(url, {connections: 10, pipelining: 1})
let next = 1, bytes = 0
const started = performance.now()
async function worker() {
  while (next <= Number(pages)) {
    const page = next++
    const res = await pool.request({headers: {accept: 'application/json', authorization: 'Bearer ' + token}, method: 'GET', path: '/api/v2/customers?per_page=100&page=' + page})
    for await (const chunk of res.body) bytes += chunk.length
  }
}
Promise.all(Array.from({length: 10}, worker)).then(() => { process.stdout.write(String(performance.now() - started)); return pool.close() })
`

/** Wall time of the child, or the time it printed when `own` (the raw fetcher times itself). */
function timed(command: string, args: string[], env: NodeJS.ProcessEnv, own = false): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now()
    const child = spawn(command, args, {env, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${args[0]} failed: ${stderr.slice(0, 400)}`))
      else resolvePromise(own ? Number(stdout) : performance.now() - started)
    })
  })
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

export async function run(options: {records?: number; rounds?: number; out?: NodeJS.WritableStream} = {}) {
  const records = options.records ?? 50_000
  const rounds = options.rounds ?? 3
  const out = options.out ?? process.stdout
  const dir = mkdtempSync(join(tmpdir(), 'commerce-bench-export-'))
  const sandbox = await startSandbox({dataFile: writeCustomersDataFile(join(dir, 'data.json'), records), host: '127.0.0.1', port: 0})
  const empty = await startSandbox({dataFile: writeCustomersDataFile(join(dir, 'empty.json'), 0), host: '127.0.0.1', port: 0})
  try {
    const {key_id: keyId, key_secret: keySecret} = sandbox.keys[0]
    const tokenRes = await fetch(`${sandbox.baseUrl}/api/v2/auth/tokens`, {
      body: JSON.stringify({key_id: keyId, key_secret: keySecret}),
      headers: {'content-type': 'application/json'},
      method: 'POST',
    })
    const token = ((await tokenRes.json()) as {access_token: string}).access_token
    const env: NodeJS.ProcessEnv = {HOME: dir, PATH: process.env.PATH, XDG_CACHE_HOME: join(dir, 'cache')}
    const cliEnv = {
      ...env,
      COMMERCE_BASE_URL: sandbox.baseUrl,
      COMMERCE_CONFIG_DIR: join(dir, 'config'),
      COMMERCE_KEY_ID: keyId,
      COMMERCE_KEY_SECRET: keySecret,
    }
    const output = join(dir, 'export.jsonl')
    const emptyEnv = {
      ...cliEnv,
      COMMERCE_BASE_URL: empty.baseUrl,
      COMMERCE_KEY_ID: empty.keys[0].key_id,
      COMMERCE_KEY_SECRET: empty.keys[0].key_secret,
    }
    const raw: number[] = []
    const cli: number[] = []
    const started: number[] = []
    for (let round = 0; round <= rounds; round++) {
      const rawMs = await timed(process.execPath, ['-e', RAW, sandbox.baseUrl, token, String(Math.ceil(records / 100))], env, true)
      rmSync(output, {force: true})
      const cliMs = await timed(process.execPath, [BIN, 'customers', 'export', '--format', 'jsonl', '--output', output], cliEnv)
      if (statSync(output).size === 0) throw new Error('the export wrote nothing')
      const emptyMs = await timed(process.execPath, [BIN, 'customers', 'export', '--format', 'jsonl', '--output', join(dir, 'empty.jsonl')], emptyEnv)
      if (round === 0) continue // a warm-up of all three (code caches, the sandbox's JIT)
      raw.push((records / rawMs) * 1000)
      cli.push((records / cliMs) * 1000)
      started.push((records / Math.max(1, cliMs - emptyMs)) * 1000)
    }
    const rawRate = median(raw)
    const cliRate = median(cli)
    const share = cliRate / rawRate
    const startedRate = median(started)
    out.write(`export of ${records.toLocaleString('en')} customers, median of ${rounds} alternated rounds (node ${process.version})\n`)
    out.write(`  raw page rate (undici, 10 connections, no start-up)  ${Math.round(rawRate).toLocaleString('en').padStart(9)} records/s\n`)
    out.write(`  customers export --format jsonl (end to end)         ${Math.round(cliRate).toLocaleString('en').padStart(9)} records/s\n`)
    out.write(
      `  export / raw                                          ${(share * 100).toFixed(0).padStart(8)}%   goal >= ${GOAL * 100}%   ${share >= GOAL ? 'PASS' : 'MISS'}\n`,
    )
    out.write(
      `  the CLI once started (beyond an empty export)        ${Math.round(startedRate).toLocaleString('en').padStart(9)} records/s = ${((startedRate / rawRate) * 100).toFixed(0)}% of raw\n`,
    )
    return {cliRate, rawRate, share, startedRate}
  } finally {
    await Promise.all([sandbox.close(), empty.close()])
    rmSync(dir, {force: true, recursive: true})
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run({records: Number(process.argv[2]) || undefined, rounds: Number(process.argv[3]) || undefined})
}
