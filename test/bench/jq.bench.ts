/**
 * `--jq` over 10,000 records: the median wall time of `customers list --all --per-page 100 --jq
 * '.[].email'` against the same command's `--json` piped to the jq binary, and the goal that the first is within
 * 3x of the second (when jq is installed; said otherwise). `customers list --help` alongside, for scale: the
 * jq library loads only when --jq is used (the startup bench compares start-up with its goals). A benchmark
 * reports, it does not assert.
 *
 * Needs the built CLI (`npm run build`).
 *
 *   node --import tsx test/bench/jq.bench.ts
 */
import {spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

import {startSandbox} from '../../src/sandbox/index.js'
import {keyPairEnv} from '../helpers/login.js'
import {writeCustomersDataFile} from '../helpers/sandbox.js'

const ROOT = resolve(import.meta.dirname, '..', '..')
const BIN = join(ROOT, 'bin', 'run.js')
const GOAL = 3

export interface JqBenchResult {
  records: number
  runs: number
  /** Median milliseconds by case; `json | jq` is absent when jq is not installed. */
  medians: Record<string, number>
  ratio?: {value: number; goal: number; pass: boolean}
}

function timed(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ms: number; lines: number}> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now()
    const child = spawn(command, args, {cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe']})
    let lines = 0
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 10) lines++
    })
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr.slice(0, 500)}`))
      else resolvePromise({lines, ms: performance.now() - started})
    })
  })
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

export async function run(options: {records?: number; runs?: number; out?: NodeJS.WritableStream} = {}): Promise<JqBenchResult> {
  const records = options.records ?? 10_000
  const runs = Math.max(1, options.runs ?? 3)
  const out = options.out ?? process.stdout
  if (!existsSync(join(ROOT, 'dist', 'bundle', 'commands'))) throw new Error('The CLI is not built: run `npm run build` first.')
  const hasJq = spawnSync('jq', ['--version'], {stdio: 'ignore'}).status === 0

  const dir = mkdtempSync(join(tmpdir(), 'commerce-bench-jq-'))
  const sandbox = await startSandbox({dataFile: writeCustomersDataFile(join(dir, 'data.json'), records), host: '127.0.0.1', log: () => {}, port: 0})
  try {
    const base: NodeJS.ProcessEnv = {}
    for (const [k, v] of Object.entries(process.env))
      if (!k.startsWith('COMMERCE_') && !['CI', 'FORCE_COLOR', 'NO_COLOR', 'NODE_OPTIONS'].includes(k)) base[k] = v
    const env = {...base, ...keyPairEnv(dir, sandbox.baseUrl, sandbox.keys[0])}
    const list = ['customers', 'list', '--all', '--per-page', '100']
    const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`
    const cases: Array<{name: string; command: string; args: string[]; lines?: number}> = [
      {args: [BIN, 'customers', 'list', '--help'], command: process.execPath, name: 'customers list --help'},
      {args: [BIN, ...list, '--jq', '.[].email'], command: process.execPath, lines: records, name: '--jq .[].email'},
    ]
    if (hasJq)
      cases.push({
        args: ['-c', `${quote(process.execPath)} ${[BIN, ...list, '--json'].map(quote).join(' ')} | jq -r '.[].email'`],
        command: 'sh',
        lines: records,
        name: '--json | jq -r .[].email',
      })
    const medians: Record<string, number> = {}
    // One warm-up of each (disk cache, the code cache of bin/compile-cache.js), then interleaved runs.
    for (const c of cases) await timed(c.command, c.args, env)
    const times = new Map<string, number[]>(cases.map((c) => [c.name, []]))
    for (let i = 0; i < runs; i++)
      for (const c of cases) {
        const t = await timed(c.command, c.args, env)
        if (c.lines !== undefined && t.lines !== c.lines) throw new Error(`${c.name}: ${t.lines} lines, expected ${c.lines}`)
        times.get(c.name)!.push(t.ms)
      }
    for (const c of cases) medians[c.name] = Math.round(median(times.get(c.name)!))
    out.write(`${records.toLocaleString('en')} customers, median of ${runs} runs:\n`)
    for (const [name, ms] of Object.entries(medians)) out.write(`  ${name.padEnd(28)} ${String(ms).padStart(6)} ms\n`)
    let ratio: JqBenchResult['ratio']
    if (hasJq) {
      const value = medians['--jq .[].email'] / medians['--json | jq -r .[].email']
      ratio = {goal: GOAL, pass: value <= GOAL, value: Math.round(value * 100) / 100}
      out.write(`  --jq / (--json | jq): ${ratio.value}x (goal: within ${GOAL}x) ${ratio.pass ? 'PASS' : 'MISS'}\n`)
    } else {
      out.write('  jq is not installed here: the --json | jq comparison was not run.\n')
    }
    return {medians, records, runs, ...(ratio ? {ratio} : {})}
  } finally {
    await sandbox.close()
    rmSync(dir, {force: true, recursive: true})
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run()
