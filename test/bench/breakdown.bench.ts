/**
 * Where the start-up of a command goes, from V8's CPU profile (`node --cpu-prof`): for `products list --json`
 * against a sandbox on 127.0.0.1 and `customers list --help`, the time between the process's start and its exit
 * split by what ran: Node's own start-up and built-in modules, oclif (core.js), our code (app.js, the command and
 * hook files, the help class), each lazily loaded package (vendor/), the garbage collector, and idle (the process
 * waiting: on the sandbox's answer, on a write, on a timer). Medians of `runs` fresh processes, in milliseconds.
 *
 *   node --import tsx test/bench/breakdown.bench.ts [runs]
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

import {startSandbox} from '../../src/sandbox/index.js'

const ROOT = resolve(import.meta.dirname, '..', '..')
const BIN = join(ROOT, 'bin', 'run.js')

interface Profile {
  nodes: Array<{id: number; callFrame: {url: string; functionName: string}}>
  samples: number[]
  timeDeltas: number[]
  startTime: number
  endTime: number
}

/** What a frame's time counts as. */
function partOf(url: string, name: string): string {
  if (name === '(garbage collector)') return 'garbage collector'
  if (name === '(idle)') return 'idle (waiting: the answer, I/O)'
  if (name === '(program)') return 'V8 and Node start-up (native)'
  if (url.includes('/dist/bundle/vendor/')) return `package: ${url.slice(url.lastIndexOf('/') + 1).replace(/\.js$/, '')}`
  if (url.endsWith('/dist/bundle/core.js')) return 'oclif (core.js)'
  if (url.includes('/dist/bundle/')) return 'our code (app.js, commands, help)'
  if (url.includes('/bin/')) return 'our entry (bin/run.js, the code cache)'
  if (name === 'Script' && url === 'node:vm') return 'our bundle and packages loaded (vm.Script: code cache read, or compiled)'
  if (name === 'compileForInternalLoader') return "Node's built-in modules compiled on first require"
  if (
    /^(readFileSync|readFileUtf8|openFileHandle|open|openSync|read|readSync|close|closeSync|statSync|stat|lstat|realpathSync|realpath|internalModuleStat|readdir)$/.test(
      name,
    )
  )
    return 'files read (manifest, package.json, code caches)'
  if (url.startsWith('node:') || url === '') return "Node's other internals (module loader, streams, sockets)"
  return 'other'
}

/** Milliseconds by part in one profile. */
function split(profile: Profile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]))
  const parts = new Map<string, number>()
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!
    const part = partOf(frame.url, frame.functionName)
    parts.set(part, (parts.get(part) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000)
  })
  parts.set('total (profiled)', (profile.endTime - profile.startTime) / 1000)
  return parts
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

export async function run(options: {runs?: number; out?: NodeJS.WritableStream} = {}): Promise<Record<string, Record<string, number>>> {
  const runs = Math.max(1, options.runs ?? 9)
  const out = options.out ?? process.stdout
  const sandbox = await startSandbox({host: '127.0.0.1', port: 0})
  const dir = mkdtempSync(join(tmpdir(), 'commerce-bench-breakdown-'))
  try {
    const cases: Record<string, string[]> = {
      'customers list --help': ['customers', 'list', '--help'],
      'products list --json': ['products', 'list', '--json', '--base-url', sandbox.baseUrl],
    }
    const result: Record<string, Record<string, number>> = {}
    for (const [name, args] of Object.entries(cases)) {
      const samples = new Map<string, number[]>()
      // A first run fills the code cache (bin/compile-cache.js), as a user's second run finds it.
      for (let i = 0; i <= runs; i++) {
        const profDir = join(dir, `${name.replaceAll(' ', '-')}-${i}`)
        // Asynchronously: the sandbox answering the child runs on this process's event loop.
        const child = await new Promise<number | null>((resolvePromise) => {
          const p = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, BIN, ...args], {
            env: {...process.env, COMMERCE_CONFIG_DIR: join(dir, 'config'), XDG_CACHE_HOME: join(dir, 'cache')},
            stdio: 'ignore',
          })
          p.on('close', resolvePromise)
        })
        if (child !== 0) throw new Error(`${name} failed (exit ${child})`)
        if (i === 0) continue
        const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'))!
        for (const [part, ms] of split(JSON.parse(readFileSync(join(profDir, file), 'utf8')) as Profile))
          samples.set(part, [...(samples.get(part) ?? []), ms])
      }
      result[name] = Object.fromEntries([...samples].map(([part, list]) => [part, median(list)]))
      out.write(`${name}: medians of ${runs} profiled runs (ms; the parts' medians need not add up to the total's)\n`)
      for (const [part, ms] of Object.entries(result[name]).sort((a, b) => b[1] - a[1]))
        out.write(`  ${part.padEnd(44)} ${ms.toFixed(1).padStart(7)}\n`)
    }
    return result
  } finally {
    await sandbox.close()
    rmSync(dir, {force: true, recursive: true})
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [runs] = process.argv.slice(2).map(Number)
  await run({runs: runs || undefined})
}
