/**
 * The HTTP client against hostile servers: `commerce products list` against a server that
 * streams a body without end (as fast as the client reads), one that announces a 10 GB Content-Length, and one
 * that drips a byte every 100 ms. Prints, per case, the peak RSS of the CLI process (its own
 * `process.resourceUsage().maxRSS`, written at exit by a preloaded script), the wall time, the exit code and the
 * bytes the server got to send; goals: peak RSS under 100 MB, and an end within COMMERCE_HTTP_TIMEOUT (plus
 * start-up). A benchmark reports, it does not assert.
 *
 * Needs the built CLI (`npm run build`).
 *
 *   node --import tsx test/bench/hostile-server.bench.ts
 */
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

import {type Step, startFaultyServer} from '../helpers/faulty-server.js'

const ROOT = resolve(import.meta.dirname, '..', '..')
const BIN = join(ROOT, 'bin', 'run.js')
const RSS_GOAL_MB = 100
const TIMEOUT_S = 5
/** A process start and its exit, beside the deadline: what "within the timeout" allows on this machine. */
const START_UP_ALLOWANCE_S = 2

export interface HostileCaseResult {
  name: string
  exitCode: number | null
  seconds: number
  peakRssMb: number
  streamedMb: number
  passRss: boolean
  passTime: boolean
}

const RECORD = JSON.stringify({currency: 'EUR', id: 1, in_stock: true, name: 'Teapot 1 l', price: 3200}) + ','

const CASES: Array<{name: string; step: Step}> = [
  {name: 'endless body, full speed', step: {stream: {chunk: RECORD.repeat(64), prefix: '{"data":['}}},
  {
    name: 'Content-Length 10 GB',
    step: {headers: {'content-length': String(10 * 1024 ** 3)}, stream: {chunk: RECORD.repeat(64), prefix: '{"data":['}},
  },
  {name: 'one byte per 100 ms', step: {stream: {chunk: ' ', intervalMs: 100, prefix: '{'}}},
]

export async function run(options: {out?: NodeJS.WritableStream} = {}): Promise<HostileCaseResult[]> {
  const out = options.out ?? process.stdout
  if (!existsSync(join(ROOT, 'dist', 'bundle', 'commands'))) throw new Error('The CLI is not built: run `npm run build` first.')
  const dir = mkdtempSync(join(tmpdir(), 'commerce-bench-hostile-'))
  const preload = join(dir, 'max-rss.cjs')
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(process.env.MAX_RSS_FILE, String(process.resourceUsage().maxRSS)))\n`,
  )
  const results: HostileCaseResult[] = []
  try {
    for (const c of CASES) {
      const server = await startFaultyServer(() => c.step)
      try {
        const rssFile = join(dir, 'rss')
        const started = performance.now()
        const exitCode = await new Promise<number | null>((done, fail) => {
          const child = spawn(process.execPath, ['--require', preload, BIN, 'products', 'list'], {
            env: {
              COMMERCE_BASE_URL: server.url,
              COMMERCE_CONFIG_DIR: dir,
              COMMERCE_HTTP_TIMEOUT: String(TIMEOUT_S),
              HOME: dir,
              MAX_RSS_FILE: rssFile,
              PATH: process.env.PATH ?? '',
            },
            stdio: 'ignore',
          })
          // A bound of its own, far past the goal, so that a regression cannot hang the benchmark.
          const killer = setTimeout(() => child.kill('SIGKILL'), (TIMEOUT_S + 30) * 1000)
          child.on('error', fail)
          child.on('close', (code) => {
            clearTimeout(killer)
            done(code)
          })
        })
        const seconds = (performance.now() - started) / 1000
        const peakRssMb = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8')) / 1024 : Number.NaN
        rmSync(rssFile, {force: true})
        const result = {
          exitCode,
          name: c.name,
          passRss: peakRssMb < RSS_GOAL_MB,
          passTime: seconds <= TIMEOUT_S + START_UP_ALLOWANCE_S,
          peakRssMb,
          seconds,
          streamedMb: server.streamedBytes() / 1024 / 1024,
        }
        results.push(result)
        out.write(
          `${c.name.padEnd(28)} exit ${String(exitCode).padEnd(4)} ${seconds.toFixed(2).padStart(6)} s (goal ≤ ${TIMEOUT_S} s timeout + ${START_UP_ALLOWANCE_S} s: ${result.passTime ? 'PASS' : 'MISS'})` +
            `  peak RSS ${peakRssMb.toFixed(1).padStart(6)} MB (goal < ${RSS_GOAL_MB} MB: ${result.passRss ? 'PASS' : 'MISS'})  server sent ${result.streamedMb.toFixed(1)} MB\n`,
        )
      } finally {
        await server.close()
      }
    }
  } finally {
    rmSync(dir, {force: true, recursive: true})
  }
  return results
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run()
