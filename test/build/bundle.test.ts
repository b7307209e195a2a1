/**
 * What the build relies on, checked against the installed packages and the built bundle (`npm test` builds
 * first): each failure says in plain words what changed and what to review. See scripts/patches.mjs.
 */
import {createHash} from 'node:crypto'
import {existsSync, readdirSync, readFileSync, realpathSync} from 'node:fs'
import {createRequire} from 'node:module'
import {runInNewContext} from 'node:vm'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {
  COMMAND_ID_SORT,
  CONF_WITHOUT_AJV,
  CORE_PLUGIN_MATCH,
  DEBUG_WHEN_ASKED,
  DYNAMIC_IMPORT_REWRITE,
  HELP_RENDER,
  ID_ORDER,
  JQ_OUTPUT_HOOK_IN,
  LAZY_REQUIRES,
  LITERAL_OR_GLOB,
  PINNED,
  PLATFORM_VIA_IS_WSL,
  PLUGIN_ROOT_FIRST_LOOK,
  UNDICI_LAZY_H2,
  UNDICI_MAKE_DISPATCHER,
  WSL_IS_WSL_REEXPORT,
} from '../../scripts/patches.mjs'
import {asciiOnly} from '../../scripts/ascii-only.mjs'
import {JQ_OUTPUT_HOOK} from '../../src/io/jq.js'
import {ROOT, run} from '../helpers/cli.js'

const require = createRequire(join(ROOT, 'package.json'))
const BUNDLE = join(ROOT, 'dist', 'bundle')

interface Metafile {
  outputs: Record<string, {inputs: Record<string, unknown>}>
}

/** Every .js file of the bundle, relative to dist/bundle. */
function bundleFiles(dir = BUNDLE, prefix = ''): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? bundleFiles(join(dir, e.name), `${prefix}${e.name}/`) : e.name.endsWith('.js') ? [`${prefix}${e.name}`] : [],
  )
}

describe('packages whose internals the build touches', () => {
  it.each(PINNED)('%s is pinned to the exact version installed', (name: string) => {
    const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {dependencies: Record<string, string>}
    // Read from node_modules: a package's exports may not include its package.json (conf's do not).
    const installed = (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {version: string}).version
    expect(pjson.dependencies[name], `package.json must pin ${name} to an exact version (scripts/patches.mjs says why)`).toBe(installed)
  })

  it.each([
    ['the fast help render', HELP_RENDER],
    ["undici's lazy HTTP/2 client", UNDICI_LAZY_H2],
    ["oclif's match of core plugin names", CORE_PLUGIN_MATCH],
    ["oclif's sort of a plugin's commands", COMMAND_ID_SORT],
    ["oclif's platform check", PLATFORM_VIA_IS_WSL],
    ["oclif's logger", DEBUG_WHEN_ASKED],
    ["oclif's search for a plugin's root", PLUGIN_ROOT_FIRST_LOOK],
  ])('%s: the line the bundle patches is still there, once', (_name, patch) => {
    const source = readFileSync(join(dirname(require.resolve(`${patch.package}/package.json`)), patch.module), 'utf8')
    expect(source.split(patch.original).length - 1, `${patch.package}/${patch.module} changed: review the patch (scripts/patches.mjs)`).toBe(1)
  })

  it('a core plugin name without glob characters matches as minimatch decides it, and a glob goes to minimatch', () => {
    const minimatch = (require('minimatch') as {minimatch: (p: string, w: string) => boolean}).minimatch
    // The expression is text spliced into oclif's module by the build: evaluated here as that module would.
    const decide = (m: unknown, p: string, w: string) => runInNewContext(LITERAL_OR_GLOB, {minimatch_1: m, p, w}) as boolean
    const names = ['@oclif/plugin-help', '@oclif/plugin-plugins', '@oclif/core', 'chalk', 'conf', '@oclif/plugin-help-extra', 'plugin-help']
    const patterns = [
      '@oclif/plugin-help',
      'chalk',
      '@oclif/plugin-*',
      '@oclif/*',
      '*',
      'c*',
      '!chalk',
      '@oclif/plugin-{help,plugins}',
      '@(chalk|conf)',
      'plugin-help',
    ]
    for (const p of names) for (const w of patterns) expect(decide({minimatch}, p, w), `${p} against ${w}`).toBe(minimatch(p, w))
  })

  it.each(LAZY_REQUIRES)("oclif's $module requires $original when first used: the line is there, and nothing but $uses is read of it", (patch) => {
    const source = readFileSync(join(dirname(require.resolve('@oclif/core/package.json')), patch.module), 'utf8')
    const review = `@oclif/core/${patch.module} changed: review LAZY_REQUIRES (scripts/patches.mjs)`
    expect(source.split(patch.original).length - 1, review).toBe(1)
    const read = [...source.matchAll(new RegExp(`\\b${patch.binding}\\b(\\.(\\w+))?`, 'g'))].slice(1).map((m) => m[2] ?? '(the binding itself)')
    expect(read.length, review).toBeGreaterThan(0)
    for (const use of read) expect(patch.uses, review).toContain(use)
  })

  it("oclif's logger calls nothing of debug but the function that makes a namespace's logger", () => {
    const source = readFileSync(join(dirname(require.resolve('@oclif/core/package.json')), DEBUG_WHEN_ASKED.module), 'utf8')
    const uses = [...source.matchAll(/\bdebug_1\b(\.\w+)?/g)].slice(1).map((m) => m[1] ?? '(the binding itself)')
    expect(uses, `@oclif/core/${DEBUG_WHEN_ASKED.module} changed: review DEBUG_WHEN_ASKED (scripts/patches.mjs)`).toEqual(['.default'])
  })

  it("DEBUG still turns on oclif's debug output in the bundle, and nothing is printed without it", async () => {
    const on = await run(['version'], {env: {DEBUG: 'oclif:main'}})
    expect(on.stderr).toContain('oclif:main')
    const off = await run(['version'])
    expect(off.stderr).toBe('')
  })

  it("wsl-utils' isWsl is still is-wsl's default export, which oclif's patched platform check imports", () => {
    const source = readFileSync(join(ROOT, 'node_modules', WSL_IS_WSL_REEXPORT.module), 'utf8')
    expect(source.includes(WSL_IS_WSL_REEXPORT.line), `${WSL_IS_WSL_REEXPORT.module} changed: review PLATFORM_VIA_IS_WSL (scripts/patches.mjs)`).toBe(
      true,
    )
  })

  it('command ids sort as localeCompare sorts them, without it where an id is made of a-z, 0-9, - and :', () => {
    const order = runInNewContext(ID_ORDER) as (x: string, y: string) => number
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, unknown>}
    const ids = [...Object.keys(manifest.commands), 'plugins:install', 'autocomplete:script', 'help', 'a', 'a-', 'a:', 'a0', 'a-b', 'a:b', 'ab']
    // Every string of one to three characters from the alphabet's edges, and a few with characters outside it.
    const edges = ['-', ':', '0', '9', 'a', 'z']
    const short = edges.flatMap((x) => ['', ...edges].flatMap((y) => ['', ...edges].map((z) => x + y + z)))
    const outside = ['A', 'a_b', 'a.b', 'é', 'a b', 'Z', '_', 'customers:LIST']
    for (const list of [ids, short, [...ids.slice(0, 20), ...outside]])
      for (const x of list) for (const y of list) expect(Math.sign(order(x, y)), `${x} vs ${y}`).toBe(Math.sign(x.localeCompare(y)))
  })

  it("the bundle's oclif finds each core plugin at the root require.resolve gives", async () => {
    const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {oclif: {plugins: string[]}}
    const core = require(join(BUNDLE, 'core.js')) as {Config: {load(o: object): Promise<{plugins: Map<string, {root: string}>}>}}
    const config = await core.Config.load({pjson, root: ROOT})
    for (const name of pjson.oclif.plugins) {
      // Up from the file require.resolve gives to the directory whose package.json names the plugin.
      let expected = dirname(realpathSync(require.resolve(name)))
      const names = (dir: string) =>
        existsSync(join(dir, 'package.json')) ? (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {name?: string}).name : undefined
      while (names(expected) !== name) expected = dirname(expected)
      expect(config.plugins.get(name)?.root, name).toBe(expected)
    }
  })

  it('conf still imports ajv only for a schema, which the bundle leaves out', () => {
    const source = readFileSync(join(ROOT, 'node_modules', CONF_WITHOUT_AJV.module), 'utf8')
    const review = `${CONF_WITHOUT_AJV.module} changed: review CONF_WITHOUT_AJV (scripts/patches.mjs) before bundling conf without ajv`
    for (const line of Object.values(CONF_WITHOUT_AJV.imports)) expect(source.includes(line), review).toBe(true)
    expect(source.includes(CONF_WITHOUT_AJV.guard), review).toBe(true)
    // The only `new Ajv` is behind that guard: the stand-ins are never constructed without a schema.
    expect(source.split('new Ajv(').length - 1, review).toBe(1)
    const bundled = readFileSync(join(ROOT, 'dist', 'bundle', 'vendor', 'conf.js'), 'utf8')
    expect(bundled).toContain('conf schema validation is not in the bundle')
    expect(bundled, 'ajv is in vendor/conf.js').not.toContain('strictSchema')
  })

  it('jq-web still has the output line the --jq worker hooks', () => {
    const source = readFileSync(require.resolve(JQ_OUTPUT_HOOK.module), 'utf8')
    expect(source.split(JQ_OUTPUT_HOOK.original).length - 1, `${JQ_OUTPUT_HOOK.module} changed: review JQ_OUTPUT_HOOK (${JQ_OUTPUT_HOOK_IN})`).toBe(1)
  })

  it("undici's makeDispatcher is the one scripts/undici-lite.cjs copies", () => {
    const source = readFileSync(require.resolve(UNDICI_MAKE_DISPATCHER.module), 'utf8')
    const fn = /^function makeDispatcher \(fn\) \{[\s\S]*?\n\}\n/m.exec(source)?.[0]
    expect(fn, `${UNDICI_MAKE_DISPATCHER.module} no longer defines makeDispatcher: review scripts/undici-lite.cjs`).toBeDefined()
    const sha256 = createHash('sha256').update(fn!).digest('hex')
    expect(sha256, `undici's makeDispatcher changed: compare scripts/undici-lite.cjs's copy, then update scripts/patches.mjs`).toBe(
      UNDICI_MAKE_DISPATCHER.sha256,
    )
  })

  it("undici-lite's exports are undici's own objects (the modules it requires are the ones undici's index uses)", () => {
    const lite = require(join(ROOT, 'scripts', 'undici-lite.cjs')) as Record<string, unknown>
    const full = require('undici') as Record<string, unknown>
    const wrapped = new Set(['connect', 'pipeline', 'request', 'stream', 'upgrade'])
    for (const [name, value] of Object.entries(lite)) {
      expect(name in full, `undici no longer exports ${name}: review scripts/undici-lite.cjs`).toBe(true)
      if (wrapped.has(name)) expect(typeof value, name).toBe('function')
      else expect(value === full[name], `undici's ${name} is no longer lib's: review scripts/undici-lite.cjs`).toBe(true)
    }
  })
})

describe('the bundle', () => {
  it('holds each module of src/ in one file only (classes are one object everywhere)', () => {
    const meta = JSON.parse(readFileSync(join(ROOT, 'dist', 'metafile.json'), 'utf8')) as Metafile
    const where = new Map<string, string[]>()
    for (const [output, {inputs}] of Object.entries(meta.outputs))
      for (const input of Object.keys(inputs)) if (input.startsWith('src/')) where.set(input, [...(where.get(input) ?? []), output])
    expect(where.size, 'the metafile lists no module of src/').toBeGreaterThan(20)
    // The help class is a file of its own (a command's --help reads no app.js): it and the pure functions it wraps
    // text with (io/wrap.ts: no class, no state) are the one exception.
    const copied = [...where].filter(([input, outputs]) => outputs.length > 1 && input !== 'src/io/wrap.ts')
    expect(copied, 'modules of src/ bundled into more than one file').toEqual([])
    expect(where.get('src/hooks/help-class.ts')).toEqual(['hooks/help-class.js'])
  })

  it("command and hook files, and the package's index, are one line requiring the shared app.js (the help class aside)", () => {
    const stubs = bundleFiles().filter(
      (f) => (f.startsWith('commands/') || f.startsWith('hooks/') || f === 'index.js') && f !== 'hooks/help-class.js',
    )
    expect(stubs.length).toBeGreaterThan(20)
    for (const file of stubs) {
      const text = readFileSync(join(BUNDLE, file), 'utf8')
      expect(text, file).toMatch(/^'use strict'\nmodule\.exports = require\('(\.\/|(\.\.\/)+)app\.js'\)\.load\("[\w/-]+"\)\n$/)
      // By a path relative to the file (a bare `app.js` would be looked for as a package).
      expect(createRequire(join(BUNDLE, file)).resolve(/require\('([^']+)'\)/.exec(text)![1]), file).toBe(join(BUNDLE, 'app.js'))
    }
  })

  it('rewrites import() only on the third-party lines scripts/patches.mjs lists', () => {
    const meta = JSON.parse(readFileSync(join(ROOT, 'dist', 'metafile.json'), 'utf8')) as Metafile
    const inputs = new Set(Object.values(meta.outputs).flatMap(({inputs}) => Object.keys(inputs)))
    const found: Record<string, string[]> = {}
    for (const input of inputs) {
      if (!input.startsWith('node_modules/')) continue
      const lines = readFileSync(join(ROOT, input), 'utf8')
        .split('\n')
        .filter((line) => line.match(DYNAMIC_IMPORT_REWRITE.pattern))
      if (lines.length > 0) found[input] = lines.map((line) => line.trim())
    }
    expect(found, 'the import() calls the bundle rewrites changed: review DYNAMIC_IMPORT_REWRITE (scripts/patches.mjs)').toEqual(
      DYNAMIC_IMPORT_REWRITE.sites,
    )
  })

  it('no import() is left in a shipped file but through the importer of bin/compile-cache.js', () => {
    const importer = /\(globalThis\[Symbol\.for\("commerce-cli\.import"\)\]\?\?\((\w+)=>import\(\1\)\)\)\(/g
    for (const file of bundleFiles()) {
      const source = readFileSync(join(BUNDLE, file), 'utf8').replaceAll(importer, '')
      // Strings such as "import()" in error messages are not calls.
      expect(source.match(/(?<![\w$.'"`])import\((?!\s*['"`)])/g), `${file}: an import() that a code-cached script cannot run`).toBeNull()
    }
  })

  it('is ASCII: no file is read as a two-byte string (scripts/ascii-only.mjs)', () => {
    for (const file of bundleFiles()) {
      const at = readFileSync(join(BUNDLE, file), 'utf8').search(/[^\x00-\x7f]/)
      expect(at, `${file} has a character past ASCII at ${at}`).toBe(-1)
    }
  })

  it('an escape put for a character past ASCII reads as the character did, in a regex, a string and after a backslash', () => {
    const samples = ['/…$/', '/[\u001b\u009b]/', '/\\…/', '/\\\\…/', '"naïve 😀"', '`é${1}`', '/😀/u', '"\\\\é"']
    for (const sample of samples) {
      const escaped = asciiOnly(sample)
      expect(escaped, sample).toMatch(/^[\x00-\x7f]*$/)
      const [before, after] = [runInNewContext(sample), runInNewContext(escaped)] as unknown[]
      const isRegExp = (value: unknown) => Object.prototype.toString.call(value) === '[object RegExp]' // of another realm
      if (isRegExp(before) || isRegExp(after)) {
        const [a, b] = [before as RegExp, after as RegExp]
        expect(b.flags, sample).toBe(a.flags)
        for (const probe of ['…', 'x…', '\\…', '\u009b', '😀', 'é']) expect(b.test(probe), `${sample} on ${probe}`).toBe(a.test(probe))
      } else expect(after, sample).toBe(before)
    }
  })
})
