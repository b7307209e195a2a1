/**
 * The standalone builds as a user gets them (`npm run pack:standalone -- --deb` first): the linux-x64 tarball
 * extracted into a temporary folder, and the .deb unpacked with `dpkg -x`, each run under `env -i` with a PATH that
 * holds no node (only the shell tools oclif's launcher uses): --version, --help, a sandbox round trip, --jq,
 * `autocomplete bash`, `plugins link` of the example plugin. Sizes and times are printed.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

const scratch = mkdtempSync(join(tmpdir(), 'commerce-standalone-'))
/** Shell tools for oclif's bin script, and nothing else: no node. */
const tools = join(scratch, 'tools')
afterAll(() => rmSync(scratch, {force: true, recursive: true}))

function artifact(dir: string, pattern: RegExp): string {
  const found = existsSync(dir) ? readdirSync(dir).filter((f) => pattern.test(f)) : []
  if (found.length === 0) throw new Error(`No ${pattern} in ${dir}: run \`npm run pack:standalone -- --deb\` first.`)
  return join(dir, found.sort().at(-1)!)
}

beforeAll(() => {
  mkdirSync(tools)
  for (const tool of ['bash', 'sh', 'dirname', 'readlink', 'uname', 'cat', 'sleep'])
    symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], {encoding: 'utf8'}).trim(), join(tools, tool))
})

interface Installed {
  name: string
  bin: string
  home: string
}

function run(inst: Installed, args: string[], timeout = 60_000): {code: number | null; stdout: string; stderr: string; ms: number} {
  const started = Date.now()
  const r = spawnSync(inst.bin, args, {
    cwd: inst.home,
    encoding: 'utf8',
    env: {COMMERCE_CONFIG_DIR: join(inst.home, 'config'), COMMERCE_DATA_DIR: join(inst.home, 'data'), HOME: inst.home, LANG: 'C.UTF-8', PATH: tools},
    timeout,
  })
  return {code: r.status, ms: Date.now() - started, stderr: r.stderr, stdout: r.stdout}
}

function exercise(inst: Installed): void {
  expect(spawnSync('sh', ['-c', 'command -v node'], {env: {PATH: tools}}).status, 'node must not be on the PATH').not.toBe(0)
  const version = run(inst, ['--version'])
  expect(version.code, version.stderr).toBe(0)
  expect(version.stdout).toMatch(/^commerce-service-cli\/0\.1\.0 linux-x64 node-v20\.20\.2/)
  // The first run after installing takes the code cache shipped with the build (scripts/ship-code-cache.mjs):
  // V8 accepts it, so the run compiles nothing and saves no cache of its own.
  const first = run(inst, ['version'])
  expect(first.code, first.stderr).toBe(0)
  const own = join(inst.home, '.cache', 'commerce', 'v8-code')
  expect(
    existsSync(own) ? readdirSync(own).filter((name) => /bundle_(core|app)\.js-/.test(name)) : [],
    'the first run compiled the bundle itself: the shipped code cache was missing or refused',
  ).toEqual([])
  const help = run(inst, ['--help'])
  expect(help.code, help.stderr).toBe(0)
  expect(help.stdout).toContain('$ commerce [COMMAND]')
  const listHelp = run(inst, ['customers', 'list', '--help'])
  expect(listHelp.code).toBe(0)

  const started = run(inst, ['sandbox', 'start', '--detach', '--port', '0', '--json'])
  expect(started.code, started.stderr).toBe(0)
  try {
    expect(run(inst, ['auth', 'login', '--sandbox']).code).toBe(0)
    const products = run(inst, ['products', 'list', '--json', '--per-page', '3'])
    expect(products.code, products.stderr).toBe(0)
    expect(JSON.parse(products.stdout)).toHaveLength(3)
    const jq = run(inst, ['products', 'list', '--per-page', '2', '--jq', '.[].name'])
    expect(jq.code, jq.stderr).toBe(0)
    expect(jq.stdout.trim().split('\n')).toHaveLength(2)
    // The CLI described to a program, and the MCP server (its SDK in vendor/): one exchange, then its client goes away.
    const described = run(inst, ['commands', '--json'])
    expect((JSON.parse(described.stdout) as {commands: Array<{id: string}>}).commands.map((c) => c.id)).toContain('mcp')
    const initialize = {
      id: 1,
      jsonrpc: '2.0',
      method: 'initialize',
      params: {capabilities: {}, clientInfo: {name: 't', version: '1'}, protocolVersion: '2025-06-18'},
    }
    const list = {id: 2, jsonrpc: '2.0', method: 'tools/list'}
    const mcp = spawnSync(inst.bin, ['mcp'], {
      cwd: inst.home,
      encoding: 'utf8',
      env: {COMMERCE_CONFIG_DIR: join(inst.home, 'config'), HOME: inst.home, LANG: 'C.UTF-8', PATH: tools},
      input: [initialize, {jsonrpc: '2.0', method: 'notifications/initialized'}, list].map((m) => JSON.stringify(m)).join('\n') + '\n',
      timeout: 30_000,
    })
    expect(mcp.status, mcp.stderr).toBe(0)
    expect(mcp.stdout).toContain('"customers_list"')
    const doctor = run(inst, ['doctor', '--json'])
    expect(JSON.parse(doctor.stdout).checks.find((c: {name: string}) => c.name === 'cli').detail).toMatch(
      inst.name === 'deb' ? /installed from deb/ : /installed from tarball/,
    )
    console.log(
      `standalone ${inst.name}: --version ${version.ms} ms, first version ${first.ms} ms, customers list --help ${listHelp.ms} ms, products list --json ${products.ms} ms (their first runs)`,
    )
  } finally {
    expect(run(inst, ['sandbox', 'stop']).code).toBe(0)
  }
  const completion = run(inst, ['autocomplete', 'bash'])
  expect(completion.code, completion.stderr).toBe(0)
  expect(completion.stdout).toContain('commerce')

  const plugin = join(inst.home, 'plugin-hello')
  execFileSync('cp', ['-r', join(ROOT, 'examples', 'plugin-hello'), plugin])
  rmSync(join(plugin, 'node_modules'), {force: true, recursive: true})
  const linked = run(inst, ['plugins', 'link', plugin], 180_000)
  expect(linked.code, linked.stderr).toBe(0)
  const list = run(inst, ['plugins', '--json'])
  expect(JSON.parse(list.stdout).filter((p: {type: string}) => p.type === 'link')).toEqual([expect.objectContaining({name: 'commerce-plugin-hello'})])
  // With no TypeScript in the build, a linked plugin's compiled commands run without a warning on every command.
  const hello = run(inst, ['hello', '--help'])
  expect(hello.code, hello.stderr).toBe(0)
  for (const r of [list, hello]) expect(r.stderr).not.toContain('Could not find typescript')
}

describe('standalone builds', () => {
  it('each folder of artifacts has a SHA256SUMS that sha256sum -c accepts, naming every artifact', () => {
    for (const [dir, pattern] of [
      [join(ROOT, 'dist'), /^commerce-v.*-linux-x64\.tar\.(gz|xz)$|^openapi\.json$/],
      [join(ROOT, 'dist', 'deb'), /^commerce_.*_amd64\.deb$/],
    ] as const) {
      const sums = readFileSync(join(dir, 'SHA256SUMS'), 'utf8')
      for (const f of readdirSync(dir).filter((name) => pattern.test(name))) expect(sums).toContain(`  ${f}\n`)
      expect(spawnSync('sha256sum', ['-c', 'SHA256SUMS'], {cwd: dir, encoding: 'utf8'}).status).toBe(0)
    }
    // The OpenAPI document beside the builds is the one the npm package ships.
    expect(readFileSync(join(ROOT, 'dist', 'openapi.json'), 'utf8')).toBe(readFileSync(join(ROOT, 'openapi.json'), 'utf8'))
  })

  it('packing leaves nothing behind in the repository but the builds: tmp/ keeps only the Node cache, no stray folder', () => {
    expect(existsSync(join(ROOT, 'apt-ftparchive.conf'))).toBe(false)
    expect(existsSync(join(ROOT, 'dist', 'deb', 'apt-ftparchive.conf'))).toBe(false)
    expect(existsSync(join(ROOT, 'tmp')) ? readdirSync(join(ROOT, 'tmp')) : []).toEqual(['cache'])
  })

  it('the linux-x64 tarball, extracted anywhere, runs with no node on the PATH', () => {
    const tarball = artifact(join(ROOT, 'dist'), /^commerce-v.*-linux-x64\.tar\.gz$/)
    const home = join(scratch, 'tarball')
    mkdirSync(home)
    execFileSync('tar', ['-xzf', tarball, '-C', home])
    const xz = tarball.replace(/\.gz$/, '.xz')
    console.log(
      `standalone tarball: ${(statSync(tarball).size / 1e6).toFixed(1)} MB gz, ${existsSync(xz) ? (statSync(xz).size / 1e6).toFixed(1) : '-'} MB xz`,
    )
    exercise({bin: join(home, 'commerce', 'bin', 'commerce'), home, name: 'tarball'})
  })

  it('the .deb, unpacked with dpkg -x, runs the same way', () => {
    const deb = artifact(join(ROOT, 'dist', 'deb'), /^commerce_.*_amd64\.deb$/)
    const home = join(scratch, 'deb')
    mkdirSync(home)
    execFileSync('dpkg', ['-x', deb, join(home, 'root')])
    console.log(`standalone deb: ${(statSync(deb).size / 1e6).toFixed(1)} MB`)
    const control = execFileSync('dpkg-deb', ['-f', deb], {encoding: 'utf8'})
    expect(control, 'no field of the control file says undefined (oclif wrote Aliases: undefined)').not.toContain('undefined')
    expect(control).toContain('Architecture: amd64')
    exercise({bin: join(home, 'root', 'usr', 'lib', 'commerce', 'bin', 'commerce'), home, name: 'deb'})
  })
})
