/**
 * The builders' loop, timed: the quick tier (`npm run test:quick`, the inner loop; goal: under 60 s on an idle 2-core
 * machine) and the slowest files of a tier, from vitest's own JSON report. `npm run bench -- suite` times the quick
 * tier; COMMERCE_BENCH_SUITE=full times the whole suite too (about 15 minutes on 2 cores) and names its slowest files.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, relative} from 'node:path'

const ROOT = join(import.meta.dirname, '..', '..')
const QUICK_GOAL_S = 60

interface FileResult {
  name: string
  startTime: number
  endTime: number
}

/** Runs a tier with vitest's JSON reporter: its wall time, its test count and its files by time. */
function tier(config: string | undefined): {seconds: number; tests: number; failed: number; slowest: Array<[string, number]>} {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-bench-suite-'))
  const out = join(dir, 'report.json')
  try {
    const started = performance.now()
    spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...(config ? ['--config', config] : []), '--reporter=json', `--outputFile=${out}`],
      {
        cwd: ROOT,
        stdio: 'ignore',
      },
    )
    const seconds = (performance.now() - started) / 1000
    const report = JSON.parse(readFileSync(out, 'utf8')) as {numTotalTests: number; numFailedTests: number; testResults: FileResult[]}
    const slowest = report.testResults
      .map((f): [string, number] => [relative(ROOT, f.name), (f.endTime - f.startTime) / 1000])
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
    return {failed: report.numFailedTests, seconds, slowest, tests: report.numTotalTests}
  } finally {
    rmSync(dir, {force: true, recursive: true})
  }
}

function say(name: string, t: ReturnType<typeof tier>, goal?: number): void {
  const verdict = goal === undefined ? '' : t.seconds <= goal ? ` (goal ${goal} s: met)` : ` (goal ${goal} s: MISSED)`
  process.stdout.write(`${name}: ${t.tests} tests (${t.failed} failed) in ${t.seconds.toFixed(1)} s${verdict}\n`)
  for (const [file, seconds] of t.slowest) process.stdout.write(`  ${seconds.toFixed(1).padStart(6)} s  ${file}\n`)
}

export async function run(): Promise<Record<string, unknown>> {
  const quick = tier('vitest.quick.config.ts')
  say('quick tier (npm run test:quick)', quick, QUICK_GOAL_S)
  if (process.env.COMMERCE_BENCH_SUITE !== 'full') return {quick}
  const full = tier(undefined)
  say('whole suite (vitest run)', full)
  return {full, quick}
}
