/**
 * The standalone tarball beside the npm install (the checkout's bin/run.js under the machine's node): the median wall
 * time of `--version`, `customers list --help` and `products list --json` (against a sandbox on 127.0.0.1), side by
 * side. Needs `npm run pack:standalone` (the tarball in dist/) and the build. A benchmark reports; it asserts nothing.
 *
 *   npm run bench -- standalone
 */
import {execFileSync, spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {startSandbox} from '../../src/sandbox/index.js'

const ROOT = resolve(import.meta.dirname, '..', '..')

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

/** Median wall time of `runs` processes after two warm-ups; spawned asynchronously, as the sandbox runs in this process. */
async function time(cmd: string, args: string[], env: NodeJS.ProcessEnv, runs: number): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < runs + 2; i++) {
    const started = process.hrtime.bigint()
    const code = await new Promise<number | null>((resolve) => spawn(cmd, args, {env, stdio: 'ignore'}).on('exit', resolve))
    if (code !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${code}`)
    if (i >= 2) times.push(Number(process.hrtime.bigint() - started) / 1e6)
  }
  return median(times)
}

export async function run(runs = 15): Promise<Record<string, {npm: number; standalone: number}>> {
  const dist = join(ROOT, 'dist')
  const tarball = existsSync(dist) ? readdirSync(dist).find((f) => /^commerce-v.*-linux-x64\.tar\.gz$/.test(f)) : undefined
  if (!tarball) throw new Error('no standalone tarball in dist/: run `npm run pack:standalone` first')
  const scratch = mkdtempSync(join(tmpdir(), 'commerce-bench-standalone-'))
  const sandbox = await startSandbox({host: '127.0.0.1', port: 0})
  try {
    execFileSync('tar', ['-xzf', join(dist, tarball), '-C', scratch])
    const env = {...process.env, COMMERCE_BASE_URL: sandbox.baseUrl, COMMERCE_CONFIG_DIR: join(scratch, 'config'), COMMERCE_SKIP_UPDATE_CHECK: '1'}
    const cases: Record<string, string[]> = {
      '--version': ['--version'],
      'customers list --help': ['customers', 'list', '--help'],
      'products list --json': ['products', 'list', '--json'],
    }
    const results: Record<string, {npm: number; standalone: number}> = {}
    console.log(`median of ${runs} runs (ms)          npm install   standalone   ratio`)
    for (const [name, args] of Object.entries(cases)) {
      const npm = await time(process.execPath, [join(ROOT, 'bin', 'run.js'), ...args], env, runs)
      const standalone = await time(join(scratch, 'commerce', 'bin', 'commerce'), args, env, runs)
      results[name] = {npm, standalone}
      console.log(
        `${name.padEnd(32)} ${npm.toFixed(1).padStart(11)} ${standalone.toFixed(1).padStart(12)} ${(standalone / npm).toFixed(2).padStart(7)}x`,
      )
    }
    return results
  } finally {
    await sandbox.close()
    rmSync(scratch, {force: true, recursive: true})
  }
}
