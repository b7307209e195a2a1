/**
 * The layer table of docs/development.md ("The layers": an import points down, never up), read from the sources and enforced whole:
 * LAYERS says which folders of src/ each folder may import. Static imports, `export … from`, `import type`,
 * `import()` and `require()` all count. src/sandbox (the emulator) imports src/domain and Node's built-in modules only.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

/**
 * Known exceptions to the rules, each `importer -> imported` (paths from the repository root): none today
 * (services take what they use, e.g. AuthContext and WebhookContext, instead of base's Context). Should one ever
 * be needed, it goes here with its reason; the test also fails on an entry that no longer occurs.
 */
const ALLOWED = new Set<string>([])

const SRC = join(ROOT, 'src')
/**
 * Each folder of src/ and the folders it may import (besides itself). As docs/development.md draws them: commands ->
 * base, services, io; services -> bulk, webhooks, api, domain, config; api -> domain, config; sandbox -> domain.
 * What the document leaves open, decided here:
 * - src/domain (with src/errors.ts, its typed errors) is the vocabulary every layer but the sandbox's speaks;
 * - base builds each command's context (the config store, the API client) and maps errors to exit codes: it
 *   imports api and config, and services;
 * - bulk and webhooks are engines below services: they use api and config (journals, inbox, locks), never services;
 * - services/sandbox starts and stops the emulator (the document: "the CLI-side process manager ... lives with
 *   the services"), so services may import src/sandbox; nothing else does.
 */
export const LAYERS: Record<string, readonly string[]> = {
  commands: ['base', 'services', 'io', 'domain', 'errors.ts'],
  hooks: ['base', 'services', 'io', 'domain', 'errors.ts'],
  // The plugin API (the package's main entry): what a plugin command builds on, as commands do.
  'index.ts': ['base', 'services', 'io', 'domain', 'errors.ts'],
  base: ['services', 'io', 'api', 'config', 'domain', 'errors.ts'],
  services: ['bulk', 'webhooks', 'api', 'config', 'sandbox', 'domain', 'errors.ts'],
  bulk: ['api', 'config', 'domain', 'errors.ts'],
  webhooks: ['api', 'config', 'domain', 'errors.ts'],
  api: ['config', 'domain', 'errors.ts'],
  io: ['domain', 'errors.ts'],
  config: ['domain', 'errors.ts'],
  domain: ['errors.ts'],
  'errors.ts': ['domain'],
  sandbox: ['domain'],
}

function sources(dir = SRC): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /(?<!\.d)\.ts$/.test(e.name) ? [join(dir, e.name)] : [],
  )
}

/** Every module specifier a file imports or re-exports, statically or with import(). */
export function specifiers(text: string): string[] {
  const found = []
  for (const m of text.matchAll(/(?:\bfrom\s*|\b(?:import|require)\s*\(\s*|^\s*import\s+)(['"])([^'"\n]+)\1/gm)) found.push(m[2])
  return found
}

/** The first folder of a path under src/ ('errors.ts' for a file at the top). */
const layer = (file: string) => relative(SRC, file).split('/')[0]

interface Edge {
  from: string
  to: string
  /** The module imported: a path under the repository root, or a package name. */
  kind: 'package' | 'builtin' | 'source'
}

function edges(): Edge[] {
  return sources().flatMap((file) =>
    specifiers(readFileSync(file, 'utf8')).map((spec): Edge => {
      const from = relative(ROOT, file)
      if (spec.startsWith('node:')) return {from, kind: 'builtin', to: spec}
      if (!spec.startsWith('.')) return {from, kind: 'package', to: spec}
      return {from, kind: 'source', to: relative(ROOT, resolve(dirname(file), spec)).replace(/\.js$/, '.ts')}
    }),
  )
}

/** The imports that break a rule, each `importer -> imported`. */
function violations(): string[] {
  const broken = new Set<string>()
  for (const edge of edges()) {
    const fromLayer = layer(join(ROOT, edge.from))
    const allowed = LAYERS[fromLayer]
    if (!allowed) broken.add(`${edge.from}: a folder of src/ that LAYERS does not place`)
    else if (edge.kind === 'source') {
      const toLayer = layer(join(ROOT, edge.to))
      if (toLayer !== fromLayer && !allowed.includes(toLayer)) broken.add(`${edge.from} -> ${edge.to}`)
    } else if (edge.kind === 'package' && fromLayer === 'sandbox') broken.add(`${edge.from} -> ${edge.to}`)
  }
  return [...broken].sort()
}

describe('import rules', () => {
  it('reads the imports of the sources (static, re-exports, type-only and import())', () => {
    expect(
      specifiers(
        "import {a} from './a.js'\nimport type {B} from \"../b.js\"\nexport * from './c.js'\nimport './d.js'\nconst e = await import('conf')",
      ),
    ).toEqual(['./a.js', '../b.js', './c.js', './d.js', 'conf'])
    const all = edges()
    expect(all.some((e) => e.from.startsWith('src/commands/') && e.to.startsWith('src/base/'))).toBe(true)
    expect(all.some((e) => e.from.startsWith('src/sandbox/') && e.to.startsWith('src/domain/'))).toBe(true)
  })

  it('places every folder of src/ in the table, and each arrow it allows points to a folder that exists', () => {
    const folders = readdirSync(SRC)
    expect(Object.keys(LAYERS).sort()).toEqual(folders.filter((f) => !f.endsWith('.d.ts')).sort())
    for (const targets of Object.values(LAYERS)) for (const t of targets) expect(folders).toContain(t)
  })

  it('every import follows the layer table (LAYERS), and src/sandbox imports no package', () => {
    const found = violations()
    const fresh = found.filter((v) => !ALLOWED.has(v))
    expect(fresh, 'imports against the layers of docs/development.md ("The layers")').toEqual([])
  })

  it('the allow-list of known violations only shrinks', () => {
    const found = new Set(violations())
    const stale = [...ALLOWED].filter((v) => !found.has(v))
    expect(stale, 'these imports are gone: remove them from ALLOWED in test/build/imports.test.ts').toEqual([])
  })
})
