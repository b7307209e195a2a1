/**
 * The release as users get it: `npm pack` of the built project (`npm test` builds first; --ignore-scripts, as
 * `prepack` would regenerate the files other tests are reading), the tarball installed with
 * `npm install -g --prefix` into a temporary prefix, and the installed `commerce` run from an unrelated
 * directory with a home of its own. Dependencies come from the npm cache where it has them (--prefer-offline).
 */
import {execFile, spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {leanFile} from '../../scripts/lean-start.mjs'
import {ROOT} from '../helpers/cli.js'

const exec = promisify(execFile)

interface PackResult {
  filename: string
  size: number
  unpackedSize: number
  files: Array<{path: string}>
}

let scratch: string
let pack: PackResult
let commerce: string
let home: string
let elsewhere: string
let sandboxPid: number | undefined

/**
 * The environment of npm and the installed CLI: no COMMERCE_* variables, nor what `npm test` sets about this
 * package and its prefix; npm's own settings (cache, registry, user config) stay.
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  const dropped = /^(commerce_|npm_(package|lifecycle|command|config_(local_prefix|global_prefix|prefix|global)$))/i
  for (const [k, v] of Object.entries(process.env)) if (!dropped.test(k) && !['CI', 'FORCE_COLOR', 'NODE_OPTIONS', 'INIT_CWD'].includes(k)) env[k] = v
  return {...env, ...extra}
}

function installed(args: string[], input?: string): Promise<{code: number | null; stdout: string; stderr: string}> {
  return new Promise((resolve, reject) => {
    const env = cleanEnv({HOME: home, LANG: 'C.UTF-8', XDG_CACHE_HOME: join(home, '.cache'), XDG_CONFIG_HOME: join(home, '.config')})
    const child = spawn(commerce, args, {cwd: elsewhere, env, stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, stderr, stdout})
    })
    child.stdin.end(input ?? '')
  })
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'commerce-package-'))
  home = join(scratch, 'home')
  elsewhere = join(scratch, 'elsewhere')
  mkdirSync(home)
  mkdirSync(elsewhere)
  const packed = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], {cwd: ROOT, env: cleanEnv()})
  ;[pack] = JSON.parse(packed.stdout) as PackResult[]
  process.stdout.write(
    `package: ${pack.filename}, ${pack.files.length} files, ${(pack.size / 1e6).toFixed(2)} MB packed, ${(pack.unpackedSize / 1e6).toFixed(2)} MB unpacked\n`,
  )
  const prefix = join(scratch, 'prefix')
  await exec(
    'npm',
    ['install', '--global', '--prefix', prefix, join(scratch, pack.filename), '--prefer-offline', '--no-audit', '--no-fund', '--no-update-notifier'],
    {
      cwd: elsewhere,
      env: cleanEnv({HOME: process.env.HOME ?? home}),
    },
  )
  commerce = join(prefix, 'bin', 'commerce')
}, 180_000)

afterAll(async () => {
  if (sandboxPid !== undefined) {
    await installed(['sandbox', 'stop']).catch(() => undefined)
    try {
      process.kill(sandboxPid, 'SIGKILL')
    } catch {}
  }
  if (scratch) rmSync(scratch, {force: true, recursive: true})
})

describe('the packed tarball', () => {
  it('holds only what the installed CLI loads, the README and the licence', () => {
    const files = pack.files.map((f) => f.path).sort()
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, {readsAllCommands?: boolean; relativePath: string[]}>
    }
    const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      main: string
      oclif: {helpClass: string; hooks: Record<string, string>}
    }
    const app = readFileSync(join(ROOT, 'dist', 'bundle', 'app.js'), 'utf8')
    const vendors = [...app.matchAll(/require\("\.\/vendor\/([^"]+)\.js"\)/g)].map((m) => m[1])
    const withMap = (path: string) => [path, `${path}.map`]
    const expected = [
      'LICENSE',
      'README.md',
      'package.json',
      'oclif.manifest.json',
      // The OpenAPI document, a release artifact (scripts/openapi-artifact.ts).
      'openapi.json',
      // The JSON Schema of the error document (scripts/error-codes.ts), for programs that read it.
      'schemas/error.schema.json',
      // The documentation pages, which `commerce mcp` offers as resources (services/mcp/resources.ts).
      ...readdirSync(join(ROOT, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
      'bin/run.js',
      'bin/compile-cache.js',
      'bin/help-cache.js',
      // Runs one of our commands with its own manifest entry (lean/, below).
      'bin/lean.js',
      'bin/package.json',
      // Copied over oclif's bin/commerce in the standalone builds (package.json's pretarball).
      'bin/standalone-launcher.sh',
      'dist/bundle/package.json',
      ...withMap('dist/bundle/core.js'),
      ...withMap('dist/bundle/app.js'),
      // One file per command of the manifest and per hook, each a line requiring app.js (no source map).
      ...Object.values(manifest.commands).map((c) => c.relativePath.join('/')),
      ...Object.values(pjson.oclif.hooks).map((path) => `${path.replace(/^\.\//, '')}.js`),
      // The help class, bundled on its own (a command's --help reads no app.js), and the line it requires its
      // alias parts from app.js with.
      ...withMap(`${pjson.oclif.helpClass.replace(/^\.\//, '')}.js`),
      'dist/bundle/hooks/help-aliases.js',
      // The plugin API (the package's main entry), a line requiring app.js like the commands.
      pjson.main.replace(/^\.\//, ''),
      // The table of ids and each command's own manifest entry, for bin/lean.js (scripts/lean-start.mjs).
      'dist/bundle/lean/routes.json',
      ...Object.entries(manifest.commands)
        .filter(([, c]) => c.readsAllCommands !== true)
        .map(([id]) => `dist/bundle/lean/${leanFile(id)}`),
      // The packages app.js requires lazily.
      ...new Set(vendors.flatMap((name) => withMap(`dist/bundle/vendor/${name}.js`))),
    ].sort()
    expect(files, 'the tarball holds a file the installed CLI does not load, or lacks one it does').toEqual(expected)
    expect(files.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/bundle/'))).toEqual([])
  })

  it('installs a `commerce` that prints its version and help from an unrelated directory', async () => {
    const version = await installed(['--version'])
    expect(version.code, version.stderr).toBe(0)
    expect(version.stdout).toMatch(/^commerce-service-cli\/0\.1\.0 \S+ node-v\d+/)
    const help = await installed(['--help'])
    expect(help.code, help.stderr).toBe(0)
    expect(help.stdout).toContain('$ commerce [COMMAND]')
    expect(help.stdout).toMatch(/^\s+sandbox\s+Run a local emulator/m)
  })

  it('runs the sandbox, logs in to it and lists products, then stops it', async () => {
    const started = await installed(['sandbox', 'start', '--detach', '--port', '0', '--in-memory', '--json'])
    expect(started.code, started.stderr).toBe(0)
    const sandbox = JSON.parse(started.stdout) as {base_url: string; pid: number}
    sandboxPid = sandbox.pid
    expect(sandbox.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)

    const login = await installed(['auth', 'login', '--sandbox', '--json'])
    expect(login.code, login.stderr).toBe(0)
    expect(login.stdout).not.toContain('sbx_secret_')

    const products = await installed(['products', 'list', '--json', '--per-page', '3'])
    expect(products.code, products.stderr).toBe(0)
    const list = JSON.parse(products.stdout) as Array<{id: unknown; name: unknown}>
    expect(list).toHaveLength(3)
    expect(list[0]).toHaveProperty('name')

    const stopped = await installed(['sandbox', 'stop'])
    expect(stopped.code, stopped.stderr).toBe(0)
    expect(stopped.stdout + stopped.stderr).toContain(`pid ${sandbox.pid}`)
    sandboxPid = undefined
  })

  it('`commerce autocomplete bash` prints its set-up (the plugin loads from the installed package)', async () => {
    const result = await installed(['autocomplete', 'bash'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('Set up commerce completion for bash') // ours; its first run runs the plugin's `autocomplete create`
    expect(result.stdout).toContain('commerce autocomplete script bash')
  })
})
