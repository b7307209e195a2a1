/**
 * What a `commerce` process costs before and around its work: the median wall time of fresh processes (spawn to
 * exit) for `node -e 0`, `commerce --version`, `commerce customers list --help`, `commerce products list --json`
 * against a sandbox on 127.0.0.1, and the same GET made by a bare node:http script and by `curl -s`; the same commands
 * of the standalone build when one is packed in dist/, and gh's `issue list --help` where gh is installed. Prints each
 * median and the ratios the issues set goals for, PASS or MISS: a benchmark reports, it does not assert. Then
 * the size of the JavaScript the bundle ships (the commands' files and shared app.js, @oclif/core, the rest).
 *
 * With `against` (a git ref, or a folder holding a build), an older build's `--version`, `customers list --help` and
 * `products list --json` run in the same rounds, interleaved with today's, and the ratios today / older are printed:
 * a regression shows beside the build it regressed from (a ref is built from `git archive` into a temporary folder,
 * with today's node_modules). Then at least 30 runs.
 *
 * Needs the built CLI (`npm run build`).
 *
 *   node --import tsx test/bench/startup.bench.ts [runs] [warmups] [--against REF|DIR]
 */
import {spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

const ROOT = resolve(import.meta.dirname, '..', '..')
const BIN = join(ROOT, 'bin', 'run.js')
/** Issue 24's goal: `--version` within 2.5x of `node -e 0`. */
const GOAL = 2.5
/** Issue 62's: `products list --json` within 2.2x of a bare GET, at or under an older build; help within 1.8x of `node -e 0`, at or under gh. */
const API_GOAL = 2.2
const HELP_GOAL = 1.8

export interface StartupBenchResult {
  runs: number
  warmups: number
  /** Median wall time of one process, in milliseconds, by case name; `curl` is absent when curl is not installed. */
  medians: Record<string, number>
  /** Each ratio of two medians, with its goal when the issues set one. */
  ratios: Array<{name: string; value: number; goal?: number; pass?: boolean}>
  /** Bytes of JavaScript in dist/bundle (source maps aside), by part. */
  sizes: BundleSizes
}

export interface BundleSizes {
  /** The command and hook files plus the shared app.js: what the CLI ships for its commands. */
  commands: number
  /** @oclif/core (core.js). */
  core: number
  /** The lazily loaded packages (vendor/). */
  vendor: number
  total: number
}

/** Sizes of the JavaScript files of the built bundle, source maps aside. */
export function bundleSizes(bundle = join(ROOT, 'dist', 'bundle')): BundleSizes {
  const bytes = (path: string): number =>
    statSync(path).isDirectory()
      ? readdirSync(path).reduce((sum, name) => sum + bytes(join(path, name)), 0)
      : path.endsWith('.js')
        ? statSync(path).size
        : 0
  const commands = bytes(join(bundle, 'commands')) + bytes(join(bundle, 'hooks')) + bytes(join(bundle, 'app.js'))
  const core = bytes(join(bundle, 'core.js'))
  const vendor = bytes(join(bundle, 'vendor'))
  return {commands, core, total: commands + core + vendor, vendor}
}

interface Case {
  name: string
  command: string
  args: string[]
  /** Variables added to the shared environment for this case. */
  env?: NodeJS.ProcessEnv
}

export async function run(
  options: {runs?: number; warmups?: number; out?: NodeJS.WritableStream; against?: string} = {},
): Promise<StartupBenchResult> {
  const runs = Math.max(options.against ? 30 : 1, options.runs ?? (options.against ? 30 : 15))
  const warmups = Math.max(0, options.warmups ?? 2)
  const out = options.out ?? process.stdout
  if (!existsSync(join(ROOT, 'dist', 'bundle', 'commands'))) throw new Error('The CLI is not built: run `npm run build` first.')

  // In a process of its own, as a service is: in this one, its answers waited on this process's own work (its
  // collections among it), which fell on the same place of every round (the same products list, started two ways,
  // 111.6 and 91.0 ms in one run, the other way round in another).
  const sandbox = await sandboxProcess()
  const configDir = mkdtempSync(join(tmpdir(), 'commerce-bench-startup-'))
  try {
    const url = `${sandbox.baseUrl}/api/v2/products?page=1&per_page=30` // the request `products list` makes
    const node = process.execPath
    const httpScript = `require('node:http').get(${JSON.stringify(url)}, {headers: {accept: 'application/json'}}, (res) => {
      let body = ''; res.setEncoding('utf8'); res.on('data', (d) => (body += d))
      res.on('end', () => process.stdout.write(JSON.stringify(JSON.parse(body).data) + '\\n'))
    })`
    const cases: Case[] = [
      {args: ['-e', '0'], command: node, name: 'node -e 0'},
      {args: [BIN, '--version'], command: node, name: 'commerce --version'},
      // The version command through oclif (its config, plugins, parser and command class), doing nothing else: the
      // floor of any command, which API commands add their HTTP client and their work to.
      {args: [BIN, 'version'], command: node, name: 'commerce version (through oclif)'},
      {args: [BIN, 'customers', 'list', '--help'], command: node, name: 'commerce customers list --help'},
      // Each case that asks the sandbox comes after one that does not, as `products list` does: a case's place in the
      // round moves its median by up to 15 ms on this machine, and the GET used to come right after `products list`,
      // the one case after another request to the sandbox.
      {args: ['-e', httpScript], command: node, name: 'node:http GET'},
      // The same with examples/plugin-hello linked (the data dir's package.json, as `plugins link` writes it): oclif
      // loads plugins for every command but --version (which bin/run.js prints itself).
      {
        args: [BIN, 'customers', 'list', '--help'],
        command: node,
        env: {COMMERCE_DATA_DIR: linkedDataDir(configDir)},
        name: 'commerce customers list --help (plugin linked)',
      },
      {args: [BIN, 'products', 'list', '--json', '--base-url', sandbox.baseUrl], command: node, name: 'commerce products list --json'},
    ]
    if (spawnSync('curl', ['--version'], {stdio: 'ignore'}).status === 0)
      cases.push({args: ['-s', '-H', 'accept: application/json', url], command: 'curl', name: 'curl -s'})
    // The bar people compare with, where installed.
    if (spawnSync('gh', ['--version'], {stdio: 'ignore'}).status === 0)
      cases.push({args: ['issue', 'list', '--help'], command: 'gh', name: 'gh issue list --help'})
    // The standalone build beside the npm one, when it is packed (`npm run pack:standalone`): its own Node and launcher.
    const standalone = extractStandalone(configDir)
    if (standalone)
      cases.push(
        // The npm build as a user starts it, which is how the standalone build is started too: the installed
        // `commerce` is bin/run.js itself, run through its #! line (/usr/bin/env, then node), as the standalone
        // build's bin/commerce is a shell script that starts its node.
        {args: ['--version'], command: BIN, name: 'commerce --version (through #!)'},
        {args: ['customers', 'list', '--help'], command: BIN, name: 'commerce customers list --help (through #!)'},
        {args: ['products', 'list', '--json', '--base-url', sandbox.baseUrl], command: BIN, name: 'commerce products list --json (through #!)'},
        {args: ['--version'], command: standalone, name: 'standalone --version'},
        {args: ['customers', 'list', '--help'], command: standalone, name: 'standalone customers list --help'},
        {args: ['products', 'list', '--json', '--base-url', sandbox.baseUrl], command: standalone, name: 'standalone products list --json'},
      )

    // An older build beside today's, in the same rounds.
    const older = options.against ? olderBuild(options.against, configDir, out) : undefined
    if (older)
      cases.push(
        {args: [older.bin, '--version'], command: node, name: `${older.label} --version`},
        {args: [older.bin, 'customers', 'list', '--help'], command: node, name: `${older.label} customers list --help`},
        {args: [older.bin, 'products', 'list', '--json', '--base-url', sandbox.baseUrl], command: node, name: `${older.label} products list --json`},
      )

    const env = childEnv(configDir)
    const times = new Map<string, number[]>(cases.map((c) => [c.name, []]))
    // Rounds run every case once, so that drift in the machine's load spreads over all of them alike.
    for (let round = 0; round < warmups + runs; round++) {
      for (const c of cases) {
        const ms = await timeProcess(c, {...env, ...c.env})
        if (round >= warmups) times.get(c.name)!.push(ms)
      }
    }

    const medians = Object.fromEntries([...times].map(([name, list]) => [name, median(list)]))
    const ratio = (name: string, a: string, b: string, goal?: number) => {
      if (medians[a] === undefined || medians[b] === undefined) return []
      const value = medians[a] / medians[b]
      return [{goal, name, pass: goal === undefined ? undefined : value <= goal, value}]
    }
    const ratios = [
      ...ratio('--version / node -e 0', 'commerce --version', 'node -e 0', GOAL),
      ...ratio('customers list --help, plugin linked / without', 'commerce customers list --help (plugin linked)', 'commerce customers list --help'),
      ...ratio('customers list --help / node -e 0', 'commerce customers list --help', 'node -e 0', HELP_GOAL),
      ...ratio('products list --json / node:http GET', 'commerce products list --json', 'node:http GET', API_GOAL),
      // The same command started as users start it, in another place of the round: both are held to the goal.
      ...ratio('products list --json (through #!) / node:http GET', 'commerce products list --json (through #!)', 'node:http GET', API_GOAL),
      ...ratio('version through oclif / node:http GET', 'commerce version (through oclif)', 'node:http GET'),
      ...ratio('products list --json / node -e 0', 'commerce products list --json', 'node -e 0'),
      ...ratio('products list --json / curl -s', 'commerce products list --json', 'curl -s'),
      ...ratio('--version / curl -s', 'commerce --version', 'curl -s'),
      ...ratio('customers list --help / gh issue list --help', 'commerce customers list --help', 'gh issue list --help', 1),
      ...(older
        ? [
            ...ratio(`products list --json / ${older.label}`, 'commerce products list --json', `${older.label} products list --json`, 1),
            ...ratio(`customers list --help / ${older.label}`, 'commerce customers list --help', `${older.label} customers list --help`),
            ...ratio(`--version / ${older.label}`, 'commerce --version', `${older.label} --version`),
          ]
        : []),
      ...ratio('standalone products list --json / npm build', 'standalone products list --json', 'commerce products list --json (through #!)', 1),
      ...ratio('standalone customers list --help / npm build', 'standalone customers list --help', 'commerce customers list --help (through #!)', 1),
      ...ratio('standalone --version / npm build', 'standalone --version', 'commerce --version (through #!)', 1),
      ...ratio('standalone products list --json / node bin/run.js', 'standalone products list --json', 'commerce products list --json'),
      ...ratio('standalone customers list --help / node -e 0', 'standalone customers list --help', 'node -e 0'),
      ...ratio('standalone customers list --help / gh issue list --help', 'standalone customers list --help', 'gh issue list --help'),
    ]

    out.write(`startup: median wall time of a fresh process, ${runs} runs after ${warmups} warm-ups (node ${process.version})\n`)
    for (const [name, ms] of Object.entries(medians)) out.write(`  ${name.padEnd(48)} ${ms.toFixed(1).padStart(8)} ms\n`)
    if (!medians['curl -s']) out.write('  curl not found: its ratios are left out\n')
    if (!medians['gh issue list --help']) out.write('  gh not found: its ratios are left out\n')
    if (!standalone) out.write('  no standalone build in dist/ (npm run pack:standalone): its cases are left out\n')
    for (const r of ratios) {
      const verdict = r.goal === undefined ? '' : `   goal <= ${r.goal}x   ${r.pass ? 'PASS' : 'MISS'}`
      out.write(`  ${r.name.padEnd(50)} ${r.value.toFixed(2).padStart(6)}x${verdict}\n`)
    }
    const sizes = bundleSizes()
    const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`
    out.write(`  JavaScript shipped (source maps aside): ${mb(sizes.commands)} for the commands (command files + shared app.js),\n`)
    out.write(`    ${mb(sizes.core)} @oclif/core, ${mb(sizes.vendor)} lazily loaded packages, ${mb(sizes.total)} in all\n`)
    return {medians, ratios, runs, sizes, warmups}
  } finally {
    await sandbox.close()
    rmSync(configDir, {force: true, recursive: true})
  }
}

/**
 * An older build to time beside today's: a folder holding one (its bin/run.js), or a git ref of this repository,
 * taken with `git archive` into `parent` and bundled there with today's node_modules (no install: the bundle step
 * alone, as `npm run build` runs it after type-checking). Undefined, said, when it cannot be had.
 */
function olderBuild(against: string, parent: string, out: NodeJS.WritableStream): {bin: string; label: string} | undefined {
  if (existsSync(join(against, 'bin', 'run.js'))) return {bin: resolve(against, 'bin', 'run.js'), label: 'older'}
  const sha = spawnSync('git', ['rev-parse', '--verify', '--short', `${against}^{commit}`], {cwd: ROOT, encoding: 'utf8'})
  if (sha.status !== 0) {
    out.write(`  ${against}: neither a folder holding a build nor a commit of this repository; left out\n`)
    return undefined
  }
  const dir = join(parent, 'older')
  mkdirSync(dir, {recursive: true})
  const archived = spawnSync('sh', ['-c', 'git archive --format=tar "$1" | tar -x -C "$2"', 'sh', against, dir], {cwd: ROOT, stdio: 'pipe'})
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  const built = existsSync(join(dir, 'scripts', 'bundle.mjs'))
    ? spawnSync(process.execPath, ['scripts/bundle.mjs'], {cwd: dir, stdio: 'pipe'})
    : spawnSync('npm', ['run', 'build'], {cwd: dir, stdio: 'pipe'})
  if (archived.status !== 0 || built.status !== 0) {
    out.write(
      `  ${against}: could not be built (${String(built.stderr ?? archived.stderr)
        .trim()
        .slice(0, 200)}); left out\n`,
    )
    return undefined
  }
  return {bin: join(dir, 'bin', 'run.js'), label: sha.stdout.trim()}
}

/** The packed linux-x64 tarball (dist/commerce-v*-linux-x64.tar.gz), extracted below `parent`: its bin/commerce. */
function extractStandalone(parent: string): string | undefined {
  const dist = join(ROOT, 'dist')
  const tarball = existsSync(dist) ? readdirSync(dist).find((f) => /^commerce-v.*-linux-x64\.tar\.gz$/.test(f)) : undefined
  if (!tarball || process.platform !== 'linux' || process.arch !== 'x64') return undefined
  const dir = join(parent, 'standalone')
  mkdirSync(dir, {recursive: true})
  if (spawnSync('tar', ['-xzf', join(dist, tarball), '-C', dir], {stdio: 'ignore'}).status !== 0) return undefined
  const bin = join(dir, 'commerce', 'bin', 'commerce')
  return existsSync(bin) ? bin : undefined
}

/** A data directory where examples/plugin-hello is linked, as `commerce plugins link` records it. */
/** The sandbox in a child process (through tsx, as in development), until close() ends its stdin. */
async function sandboxProcess(): Promise<{baseUrl: string; close(): Promise<void>}> {
  const entry = pathToFileURL(join(ROOT, 'src', 'sandbox', 'index.ts')).href
  const script = [
    `const {startSandbox} = await import(${JSON.stringify(entry)})`,
    "const sandbox = await startSandbox({host: '127.0.0.1', port: 0})",
    "process.stdout.write(sandbox.baseUrl + '\\n')",
    "process.stdin.on('end', () => sandbox.close().then(() => process.exit(0))).resume()",
  ].join('\n')
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit']})
  const baseUrl = await new Promise<string>((resolvePromise, reject) => {
    let text = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk
      if (text.includes('\n')) resolvePromise(text.trim())
    })
    child.on('error', reject)
    child.on('exit', (code) => reject(new Error(`the sandbox's process ended (${code}) before it listened`)))
    setTimeout(() => {
      child.kill()
      reject(new Error('the sandbox did not listen within 60 s'))
    }, 60_000).unref()
  })
  const exited = new Promise<void>((resolvePromise) => child.on('exit', () => resolvePromise()))
  return {
    baseUrl,
    close: async () => {
      child.stdin.end()
      await exited
    },
  }
}

function linkedDataDir(parent: string): string {
  const dir = join(parent, 'data-linked')
  mkdirSync(dir, {recursive: true})
  const plugin = {name: 'commerce-plugin-hello', root: join(ROOT, 'examples', 'plugin-hello'), type: 'link'}
  writeFileSync(join(dir, 'package.json'), JSON.stringify({dependencies: {}, name: 'commerce', oclif: {plugins: [plugin], schema: 1}, private: true}))
  return dir
}

/**
 * The environment of every measured process: the caller's, without what would make one case pay for something
 * the others do not (NODE_EXTRA_CA_CERTS loads certificates at startup, NODE_OPTIONS may preload modules) or
 * change what the CLI does (COMMERCE_*, CI, colour), and a private config directory.
 */
function childEnv(configDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('COMMERCE_') || k.startsWith('XDG_') || ['CI', 'FORCE_COLOR', 'NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'NO_COLOR'].includes(k))
      continue
    env[k] = v
  }
  env.COMMERCE_CONFIG_DIR = configDir
  // No plugins but those a case links: the user's own would be measured too.
  env.COMMERCE_DATA_DIR = join(configDir, 'data')
  return env
}

/** Runs one case to its exit and returns the wall time in ms; a failing case stops the benchmark. */
function timeProcess(c: Case, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now()
    const child = spawn(c.command, c.args, {cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe']})
    let output = 0
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (output += d.length))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => {
      const ms = performance.now() - started
      const expectsOutput = c.name !== 'node -e 0'
      if (code !== 0 || (expectsOutput && output === 0)) reject(new Error(`${c.name} failed (exit ${code}): ${stderr.trim().slice(0, 500)}`))
      else resolvePromise(ms)
    })
  })
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2)
  const at = args.indexOf('--against')
  const against = at === -1 ? undefined : args[at + 1]
  const [runs, warmups] = args.filter((_, i) => at === -1 || (i !== at && i !== at + 1)).map(Number)
  await run({against, runs: runs || undefined, warmups: Number.isNaN(warmups) ? undefined : warmups})
}
