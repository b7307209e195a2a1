/**
 * What keeping the key secret in the OS keyring costs. For `storage file` and `storage keyring`, the median wall
 * time of fresh `commerce customers list --json` processes (an operation that needs a token; products are public)
 * against a sandbox on 127.0.0.1:
 *   - cached: the profile's token is valid (the usual start-up; the token stays in config.json either way, so the
 *     keyring is not touched: the binding is not even loaded);
 *   - renewal: the token is expired before each run (expires_at set in the past), so the process reads the key
 *     secret (from config.json, or from the keyring through its helper process) and issues a token.
 * The keyring is a real Secret Service: gnome-keyring in a private D-Bus session (test/helpers/keyring.ts); where
 * it cannot be started, the keyring cases are skipped with the reason. A benchmark reports, it does not assert.
 *
 * Needs the built CLI (`npm run build`).
 *
 *   node --import tsx test/bench/keyring.bench.ts [runs]
 */
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

import {startSandbox} from '../../src/sandbox/index.js'
import {startTestKeyring} from '../helpers/keyring.js'

const ROOT = resolve(import.meta.dirname, '..', '..')
const BIN = join(ROOT, 'bin', 'run.js')

export interface KeyringBenchResult {
  runs: number
  /** Median ms by `<storage> <case>`, e.g. `keyring renewal`; keyring cases absent when skipped. */
  medians: Record<string, number>
  skipped?: string
}

export async function run(options: {runs?: number; out?: NodeJS.WritableStream} = {}): Promise<KeyringBenchResult> {
  const runs = Math.max(1, options.runs ?? 15)
  const out = options.out ?? process.stdout
  if (!existsSync(join(ROOT, 'dist', 'bundle', 'commands'))) throw new Error('The CLI is not built: run `npm run build` first.')
  const sandbox = await startSandbox({host: '127.0.0.1', port: 0})
  const keyring = await startTestKeyring()
  const medians: Record<string, number> = {}
  let skipped: string | undefined
  try {
    const key = sandbox.keys[0]
    const storages = keyring.available ? (['file', 'keyring'] as const) : (['file'] as const)
    if (!keyring.available) {
      skipped = `keyring cases skipped: ${keyring.reason}`
      out.write(`${skipped}\n`)
    }
    // One config directory per storage, logged in once; then the runs alternate between them, so that the load
    // of a shared machine falls on both alike.
    const dirs = storages.map(() => mkdtempSync(join(tmpdir(), 'commerce-bench-keyring-')))
    try {
      const envs = dirs.map((dir): NodeJS.ProcessEnv => ({
        COMMERCE_CONFIG_DIR: dir,
        HOME: dir,
        LANG: 'C.UTF-8',
        PATH: process.env.PATH ?? '',
        ...keyring.env,
      }))
      const list = ['customers', 'list', '--json']
      const times = storages.map(() => ({cached: [] as number[], renewal: [] as number[]}))
      for (const [i, storage] of storages.entries()) {
        await cli(
          ['auth', 'login', '--base-url', sandbox.baseUrl, '--key-id', key.key_id, '--key-secret-stdin', '--storage', storage, '--json'],
          envs[i],
          key.key_secret,
        )
        const stored = JSON.parse(readFileSync(join(dirs[i], 'config.json'), 'utf8')).profiles.default
        if (stored.storage !== storage) throw new Error(`login kept the secret in ${stored.storage}, not ${storage}`)
        await cli(list, envs[i]) // warm-up
      }
      for (let r = 0; r < runs; r++)
        for (const i of storages.keys()) {
          times[i].cached.push(await cli(list, envs[i]))
          const path = join(dirs[i], 'config.json')
          const data = JSON.parse(readFileSync(path, 'utf8'))
          data.profiles.default.expires_at = new Date(0).toISOString()
          writeFileSync(path, JSON.stringify(data), {mode: 0o600})
          times[i].renewal.push(await cli(list, envs[i]))
        }
      for (const [i, storage] of storages.entries()) {
        medians[`${storage} cached`] = median(times[i].cached)
        medians[`${storage} renewal`] = median(times[i].renewal)
      }
    } finally {
      for (const dir of dirs) rmSync(dir, {force: true, recursive: true})
    }
    out.write(`median of ${runs} fresh \`commerce customers list --json\` processes\n`)
    for (const [name, ms] of Object.entries(medians)) out.write(`  ${name.padEnd(18)} ${ms.toFixed(0).padStart(6)} ms\n`)
    if (medians['keyring renewal'] !== undefined)
      out.write(
        `  keyring - file: cached ${(medians['keyring cached'] - medians['file cached']).toFixed(0)} ms, renewal ${(medians['keyring renewal'] - medians['file renewal']).toFixed(0)} ms\n`,
      )
  } finally {
    await keyring.close()
    await sandbox.close()
  }
  return {medians, runs, skipped}
}

/** Runs the CLI to its exit (spawned asynchronously: the sandbox answers on this event loop); wall time in ms. */
function cli(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env, stdio: ['pipe', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0) resolvePromise(performance.now() - started)
      else reject(new Error(`commerce ${args[0]} ${args[1]} failed (exit ${code}): ${stderr.trim().slice(0, 500)}`))
    })
    child.stdin.end(input ?? '')
  })
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [runs] = process.argv.slice(2).map(Number)
  await run({runs: runs || undefined})
}
