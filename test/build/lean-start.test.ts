/**
 * bin/lean.js runs one of our commands with only its own manifest entry when nothing else could take part (issue
 * 62). What it must keep: the id it reads is oclif's for any command line; what it runs is the same as oclif's full
 * path, output and exit code; a command that reads the whole command table never runs that way; the files it reads
 * are the manifest's; and the one place it reaches into oclif still holds.
 */
import {Config, Plugin} from '@oclif/core'
import {normalizeArgv} from '@oclif/core/help'
import fc from 'fast-check'
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {join, relative} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {leanFile, leanStartFiles} from '../../scripts/lean-start.mjs'
import {startSandbox, type Sandbox} from '../../src/sandbox/index.js'
import {ROOT, run, tempConfigDir} from '../helpers/cli.js'

type Manifest = {commands: Record<string, {commands?: unknown}>; version: string}
const lean = createRequire(import.meta.url)(join(ROOT, 'bin', 'lean.js')) as {
  anyUserPlugin(dataDir: string): boolean
  commandId(argv: string[], routes: Routes): string | undefined
  leanManifest(o: {argv: string[]; dataDir: string; env: NodeJS.ProcessEnv; pjson: unknown; root: string}): Manifest | undefined
}
const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {name: string; oclif: Record<string, unknown>}
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {readsAllCommands?: boolean}>
}
const LEAN_DIR = join(ROOT, 'dist', 'bundle', 'lean')
type Routes = {ids: string[]; lean: string[]; takesArgs: string[]}
const routes = () => JSON.parse(readFileSync(join(LEAN_DIR, 'routes.json'), 'utf8')) as Routes

describe('bin/lean.js', () => {
  const tmp = tempConfigDir()
  const emptyData = join(tmp.dir, 'data')
  let full: Config
  let sandbox: Sandbox
  beforeAll(async () => {
    mkdirSync(emptyData)
    const before = process.env.COMMERCE_DATA_DIR
    process.env.COMMERCE_DATA_DIR = emptyData
    try {
      full = await Config.load({pjson: pjson as never, root: ROOT})
    } finally {
      if (before === undefined) delete process.env.COMMERCE_DATA_DIR
      else process.env.COMMERCE_DATA_DIR = before
    }
    sandbox = await startSandbox({host: '127.0.0.1', port: 0})
  })
  afterAll(async () => {
    await sandbox.close()
    tmp.cleanup()
  })

  it('finds in dist/bundle/lean the files the manifest gives (else: npm run build)', async () => {
    const expected = await leanStartFiles(ROOT)
    expect(readdirSync(LEAN_DIR).sort(), 'dist/bundle/lean is stale: run `npm run build`').toEqual(Object.keys(expected).sort())
    for (const [name, text] of Object.entries(expected)) expect(readFileSync(join(LEAN_DIR, name), 'utf8'), name).toBe(text)
    // Every command id and alias oclif knows without user plugins, core plugins' included.
    expect(routes().ids).toEqual([...full.commandIDs].sort())
  })

  it('reads the id oclif reads from any command line', () => {
    const table = routes()
    const words = [...new Set([...table.ids, ...table.takesArgs].flatMap((id) => id.split(':')))]
    const word = fc.oneof(
      fc.constantFrom(...words),
      fc.constantFrom('x', 'list', '42', 'a=b', '--json', '-h', '--', '', 'products:list', 'plugins:install', 'ord_1'),
    )
    fc.assert(
      fc.property(fc.array(word, {maxLength: 5}), (argv) => {
        expect(lean.commandId(argv, table)).toBe(normalizeArgv(full, [...argv])[0])
      }),
      {numRuns: 5000},
    )
  })

  it('runs alone only our commands that read no other command', () => {
    const {lean: ids} = routes()
    const ours = Object.keys(manifest.commands)
    expect(ids).toEqual(ours.filter((id) => manifest.commands[id].readsAllCommands !== true).sort())
    for (const id of ids) expect(full.findCommand(id)?.pluginName, id).toBe(pjson.name)
    // The config commands' base reads it (what an alias may not shadow), and the two that list every command.
    const configCommands = ours.filter((id) =>
      /extends ConfigCommand\b/.test(readFileSync(join(ROOT, 'src', 'commands', `${id.replaceAll(':', '/')}.ts`), 'utf8')),
    )
    expect(configCommands.length).toBeGreaterThan(5)
    expect(ours.filter((id) => manifest.commands[id].readsAllCommands === true).sort()).toEqual(
      [...configCommands, 'autocomplete', 'commands'].sort(),
    )
  })

  it('marks every command whose code reads the command table (a source test)', () => {
    const reads = /\bconfig\s*\.\s*(commands|topics|plugins|commandIDs|getPluginsList|runCommand|findCommand|findTopic|findMatches)\b/
    const files = readdirSync(join(ROOT, 'src'), {recursive: true, withFileTypes: true})
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    // Hooks that run only when no command was found, and the help class: never on the lean path.
    const notLean = new Set(['src/hooks/command-not-found.ts', 'src/hooks/help-class.ts', 'src/hooks/help-aliases.ts'])
    const readers = files.filter((f) => !notLean.has(f) && reads.test(readFileSync(join(ROOT, f), 'utf8')))
    expect(readers.sort()).toEqual(['src/base/config-command.ts', 'src/commands/autocomplete.ts', 'src/commands/commands.ts'])
    for (const file of readers) expect(readFileSync(join(ROOT, file), 'utf8'), file).toMatch(/static readsAllCommands = true/)
  })

  it("still finds where oclif reads a plugin's manifest (@oclif/core is pinned: review bin/lean.js on an upgrade)", () => {
    const proto = Plugin.prototype as unknown as Record<string, unknown>
    expect(typeof proto._manifest, "@oclif/core's Plugin has no _manifest(): bin/lean.js rootOnly() must be reviewed").toBe('function')
    expect(String(proto.load), "@oclif/core's Plugin.load() no longer takes its manifest from _manifest(): review bin/lean.js").toContain(
      'this.manifest = await this._manifest()',
    )
  })

  it('takes the full path with a plugin installed or linked, help, --version or COMMERCE_NO_LEAN_START', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lean-data-'))
    try {
      const o = (argv: string[], env: NodeJS.ProcessEnv = {}) => lean.leanManifest({argv, dataDir, env, pjson, root: ROOT})
      expect(Object.keys(o(['products', 'list', '--json'])?.commands ?? {})).toEqual(['products:list'])
      expect(Object.keys(o(['orders', 'get', 'ord_1'])?.commands ?? {})).toEqual(['orders:get'])
      expect(o(['products', 'list', '--help'])).toBeUndefined()
      expect(o(['products', 'list', '-h'])).toBeUndefined()
      expect(Object.keys(o(['api', '--', '-h'])?.commands ?? {})).toEqual(['api'])
      expect(o(['--version'])).toBeUndefined()
      expect(o([])).toBeUndefined()
      expect(o(['products'])).toBeUndefined()
      expect(o(['config', 'list'])).toBeUndefined()
      expect(o(['plugins'])).toBeUndefined()
      expect(o(['products', 'list'], {COMMERCE_NO_LEAN_START: '1'})).toBeUndefined()
      writeFileSync(join(dataDir, 'package.json'), JSON.stringify({oclif: {plugins: []}, private: true}))
      expect(o(['products', 'list'])).toBeDefined()
      writeFileSync(join(dataDir, 'package.json'), JSON.stringify({oclif: {plugins: [{name: 'p', root: '/p', type: 'link'}]}}))
      expect(o(['products', 'list'])).toBeUndefined()
      writeFileSync(join(dataDir, 'package.json'), JSON.stringify({dependencies: {p: '1.0.0'}, oclif: {plugins: ['p']}}))
      expect(o(['products', 'list'])).toBeUndefined()
      writeFileSync(join(dataDir, 'package.json'), '{not json')
      expect(o(['products', 'list'])).toBeUndefined()
    } finally {
      rmSync(dataDir, {force: true, recursive: true})
    }
  })

  it("prints what oclif's full path prints, and reads no manifest but the command's", async () => {
    const preload = join(tmp.dir, 'preload.cjs')
    const log = join(tmp.dir, 'read.log')
    writeFileSync(
      preload,
      `const fs = require('node:fs'), p = require('node:fs/promises')
const note = (f) => { if (String(f).endsWith('oclif.manifest.json') || String(f).includes('bundle/lean/')) fs.appendFileSync(process.env.READ_LOG, String(f) + '\\n') }
const readFile = p.readFile; p.readFile = (f, ...rest) => (note(f), readFile(f, ...rest))
const readFileSync = fs.readFileSync; fs.readFileSync = (f, ...rest) => (note(f), readFileSync(f, ...rest))\n`,
    )
    // Each command line, and the command it runs alone (undefined: oclif's full path, reading the whole manifest).
    const lines: Array<[string | undefined, string[]]> = [
      ['products:list', ['products', 'list', '--json', '--base-url', sandbox.baseUrl]],
      ['products:get', ['products', 'get', '1', '--json', '--base-url', sandbox.baseUrl]],
      ['products:list', ['products', 'list', '--bogus']],
      [undefined, ['products', 'list', 'extra']],
      ['customers:get', ['customers', 'get', '--json']],
      ['orders:list', ['orders', 'list', '--json', '--base-url', sandbox.baseUrl]],
      ['version', ['version']],
      ['history', ['history', '--json']],
      [undefined, ['config', 'list', '--json']],
    ]
    for (const [id, argv] of lines) {
      const env = {COMMERCE_CONFIG_DIR: join(tmp.dir, 'config'), COMMERCE_DATA_DIR: emptyData, NODE_OPTIONS: `--require ${preload}`, READ_LOG: log}
      rmSync(log, {force: true})
      const viaLean = await run(argv, {env})
      const read = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((f) => relative(ROOT, f))
      const viaFull = await run(argv, {env: {...env, COMMERCE_NO_LEAN_START: '1'}})
      const line = argv.join(' ')
      expect({code: viaLean.code, stderr: viaLean.stderr, stdout: viaLean.stdout}, line).toEqual({
        code: viaFull.code,
        stderr: viaFull.stderr,
        stdout: viaFull.stdout,
      })
      if (id === undefined) expect(read, line).toContain('oclif.manifest.json')
      else expect(read, line).toEqual(['dist/bundle/lean/routes.json', `dist/bundle/lean/${leanFile(id)}`])
    }
  })
})
