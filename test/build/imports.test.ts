/**
 * The import rules of ../shared/architecture.md ("Arrows point down"), read from the sources:
 * - nothing below src/base (every folder but commands/, hooks/ and base/ itself: services, api, bulk, webhooks,
 *   io, config, domain, sandbox, and src/errors.ts) imports src/base or src/commands;
 * - src/sandbox (the emulator) imports src/domain and Node's built-in modules only.
 * Static imports, `export … from`, `import type`, `import()` and `require()` all count.
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
/** The entry layers: only they may import src/base and src/commands. */
const TOP = new Set(['base', 'commands', 'hooks'])

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
    const toLayer = edge.kind === 'source' ? layer(join(ROOT, edge.to)) : undefined
    if (!TOP.has(fromLayer) && (toLayer === 'base' || toLayer === 'commands')) broken.add(`${edge.from} -> ${edge.to}`)
    if (fromLayer === 'sandbox') {
      if (edge.kind === 'package') broken.add(`${edge.from} -> ${edge.to}`)
      if (edge.kind === 'source' && toLayer !== 'sandbox' && toLayer !== 'domain') broken.add(`${edge.from} -> ${edge.to}`)
    }
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

  it('nothing below src/base imports src/base or src/commands, and src/sandbox imports only src/domain', () => {
    const found = violations()
    const fresh = found.filter((v) => !ALLOWED.has(v))
    expect(fresh, 'imports against the arrows of ../shared/architecture.md (see the README, "Development")').toEqual([])
  })

  it('the allow-list of known violations only shrinks', () => {
    const found = new Set(violations())
    const stale = [...ALLOWED].filter((v) => !found.has(v))
    expect(stale, 'these imports are gone: remove them from ALLOWED in test/build/imports.test.ts').toEqual([])
  })
})
