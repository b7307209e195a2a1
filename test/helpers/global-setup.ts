/**
 * Before any test file (vitest's globalSetup): a single test file runs as it is on a fresh clone
 * (`npm ci && npx vitest run test/commands/orders.test.ts`). The bundle the CLI runs (dist/bundle) is built when it is
 * missing or older than what it is built from (`npm test` builds first, so this finds nothing to do there). Generated
 * files are the drift tests' to judge, not a gate before every run.
 */
import {execFileSync} from 'node:child_process'
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'

const ROOT = join(import.meta.dirname, '..', '..')

/** The newest modification time among `paths` (files, or every file below a folder). */
function newest(paths: string[]): number {
  let max = 0
  for (const path of paths) {
    if (!existsSync(path)) continue
    const stat = statSync(path)
    if (stat.isDirectory())
      for (const entry of readdirSync(path, {recursive: true, withFileTypes: true}))
        if (entry.isFile()) max = Math.max(max, statSync(join(entry.parentPath, entry.name)).mtimeMs)
    max = Math.max(max, stat.mtimeMs)
  }
  return max
}

/**
 * Processes the suite started that are still alive: a CLI of this checkout (bin/run.js, scripts/demo.js), a tmux
 * server on one of the helper's sockets, a sandbox exec watchdog. Read from /proc (Linux, as CI); elsewhere none.
 */
function leftovers(): Array<{pid: number; command: string}> {
  if (!existsSync('/proc')) return []
  const marks = [
    join(ROOT, 'bin', 'run.js'),
    join(ROOT, 'scripts', 'demo.js'),
    'commerce-tmux-',
    'commerce-exec-',
    "createReadStream('', {fd: 0}).on('end', end)",
  ]
  const found: Array<{pid: number; command: string}> = []
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || pid === process.pid) continue
    let command: string
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()
    } catch {
      continue
    }
    if (marks.some((m) => command.includes(m))) found.push({command: command.slice(0, 160), pid})
  }
  return found
}

/** After every test file: the run fails when a process it started is alive (each is ended first). */
async function teardownOf(pids: number[]): Promise<void> {
  // Processes end a moment after their last test (a killed tmux server, a sandbox closing): a short grace.
  const alive = () => leftovers().filter((p) => pids.includes(p.pid))
  let left = alive()
  for (let i = 0; i < 20 && left.length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    left = alive()
  }
  if (left.length === 0) return
  for (const {pid} of left)
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  // vitest reports an error thrown here but keeps its exit code: the exit code is set too.
  process.exitCode = 1
  throw new Error(`The suite left ${left.length} process(es) running (now killed): ${left.map((p) => `${p.pid} ${p.command}`).join('; ')}`)
}

export default function setup(): () => Promise<void> {
  const bundle = join(ROOT, 'dist', 'bundle', 'core.js')
  const built = existsSync(bundle) ? statSync(bundle).mtimeMs : 0
  const sources = newest([
    join(ROOT, 'src'),
    join(ROOT, 'scripts', 'bundle.mjs'),
    join(ROOT, 'scripts', 'patches.mjs'),
    join(ROOT, 'scripts', 'lean-start.mjs'),
    join(ROOT, 'package.json'),
  ])
  if (built < sources) {
    process.stdout.write(`test set-up: ${built === 0 ? 'no dist/bundle yet' : 'src/ is newer than dist/bundle'}: bundling (scripts/bundle.mjs)…\n`)
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle.mjs')], {cwd: ROOT, stdio: 'inherit'})
  }
  // A stale manifest or generated list fails its own drift test (test/e2e/generated.test.ts, test/build), naming
  // `npm run generate`: never every run, so a new command's first test runs before the docs are written.
  const before = new Set(leftovers().map((p) => p.pid))
  // Only what this run started counts (a developer may have a CLI of this checkout open meanwhile).
  return async () => {
    const left = leftovers().filter((p) => !before.has(p.pid))
    if (left.length > 0) await teardownOf(left.map((p) => p.pid))
  }
}
