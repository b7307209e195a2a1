/**
 * Before any test file (vitest's globalSetup): a single test file runs as it is on a fresh clone
 * (`npm ci && npx vitest run test/commands/orders.test.ts`). The bundle the CLI runs (dist/bundle) is built when it is
 * missing or older than what it is built from; a manifest that names other commands than src/commands has fails at
 * once, naming the command that fixes it. `npm test` builds first, so this finds nothing to do there.
 */
import {execFileSync} from 'node:child_process'
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'

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

function commandIds(): string[] {
  const dir = join(ROOT, 'src', 'commands')
  return (readdirSync(dir, {recursive: true}) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => relative(dir, join(dir, f)).replace(/\.ts$/, '').split(/[\\/]/).join(':'))
    .sort()
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
  const sources = newest([join(ROOT, 'src'), join(ROOT, 'scripts', 'bundle.mjs'), join(ROOT, 'scripts', 'patches.mjs'), join(ROOT, 'package.json')])
  if (built < sources) {
    process.stdout.write(`test set-up: ${built === 0 ? 'no dist/bundle yet' : 'src/ is newer than dist/bundle'}: bundling (scripts/bundle.mjs)…\n`)
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle.mjs')], {cwd: ROOT, stdio: 'inherit'})
  }
  const manifest = Object.keys((JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: object}).commands).sort()
  const ids = commandIds()
  if (JSON.stringify(manifest) !== JSON.stringify(ids)) {
    const added = ids.filter((id) => !manifest.includes(id))
    const gone = manifest.filter((id) => !ids.includes(id))
    throw new Error(
      `oclif.manifest.json is stale (${[...added.map((id) => `no entry for ${id}`), ...gone.map((id) => `${id} has no file`)].join('; ')}): run \`npm run generate\` and commit what it writes.`,
    )
  }
  const before = new Set(leftovers().map((p) => p.pid))
  // Only what this run started counts (a developer may have a CLI of this checkout open meanwhile).
  return async () => {
    const left = leftovers().filter((p) => !before.has(p.pid))
    if (left.length > 0) await teardownOf(left.map((p) => p.pid))
  }
}
