/**
 * `commerce autocomplete bash`: the median wall time of the first run (cache built) and of repeat runs (cache
 * reused), beside `commerce --version` for scale. Prints figures; asserts nothing. Needs `npm run build`.
 *
 *   node --import tsx test/bench/autocomplete.bench.ts [runs]
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

const ROOT = resolve(import.meta.dirname, '..', '..')
const BIN = join(ROOT, 'bin', 'run.js')

function time(args: string[], env: Record<string, string>): number {
  const started = performance.now()
  const result = spawnSync(process.execPath, [BIN, ...args], {cwd: ROOT, env, stdio: 'ignore', timeout: 30_000})
  if (result.status !== 0) throw new Error(`commerce ${args.join(' ')} exited ${result.status}`)
  return performance.now() - started
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

export async function run(runs = 5): Promise<{first: number; repeat: number; version: number}> {
  const firsts: number[] = []
  const repeats: number[] = []
  const versions: number[] = []
  for (let i = 0; i < runs; i++) {
    const home = mkdtempSync(join(tmpdir(), 'commerce-bench-ac-'))
    const env = {HOME: home, LANG: 'C.UTF-8', PATH: process.env.PATH ?? '', XDG_CACHE_HOME: join(home, 'cache')}
    try {
      firsts.push(time(['autocomplete', 'bash'], env))
      repeats.push(time(['autocomplete', 'bash'], env))
      versions.push(time(['--version'], env))
    } finally {
      rmSync(home, {force: true, recursive: true})
    }
  }
  const figures = {first: median(firsts), repeat: median(repeats), version: median(versions)}
  console.log(`autocomplete bash, first run (cache built):  ${figures.first.toFixed(0)} ms (median of ${runs})`)
  console.log(`autocomplete bash, repeat run (cache reused): ${figures.repeat.toFixed(0)} ms`)
  console.log(`commerce --version, for scale:                ${figures.version.toFixed(0)} ms`)
  return figures
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run(Number(process.argv[2] ?? 5))
