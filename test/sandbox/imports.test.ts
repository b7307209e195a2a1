/**
 * The emulator stands alone (issue 8, item 2): a file under src/sandbox imports only src/sandbox, src/domain and
 * node's built-ins. The CLI-side process manager lives in src/services/sandbox.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {builtinModules} from 'node:module'
import {dirname, join, relative, resolve} from 'node:path'

import {describe, expect, it} from 'vitest'

const SRC = resolve(import.meta.dirname, '../../src')
const SANDBOX = join(SRC, 'sandbox')
/** Packages the emulator may use besides node's built-ins (none today). */
const ALLOWED_PACKAGES: string[] = []

function files(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []))
}

/** Every module specifier of a file: static imports and re-exports, dynamic import(), require(). */
export function specifiers(source: string): string[] {
  const found: string[] = []
  const patterns = [/\b(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g]
  for (const re of patterns) for (const m of source.matchAll(re)) found.push(m[1]!)
  return found
}

function violations(file: string, source: string): string[] {
  return specifiers(source).flatMap((spec) => {
    if (spec.startsWith('.')) {
      const target = relative(SRC, resolve(dirname(file), spec))
      return target.startsWith('sandbox/') || target.startsWith('domain/') ? [] : [`${relative(SRC, file)} imports ${spec} (src/${target})`]
    }
    const name = spec.startsWith('node:') ? spec.slice(5) : spec
    if (builtinModules.includes(name) || ALLOWED_PACKAGES.includes(spec)) return []
    return [`${relative(SRC, file)} imports the package ${spec}`]
  })
}

describe('src/sandbox import rule', () => {
  it('imports nothing outside src/sandbox and src/domain but node built-ins', () => {
    const all = files(SANDBOX).flatMap((f) => violations(f, readFileSync(f, 'utf8')))
    expect(all, 'src/sandbox must import only src/domain, itself and node built-ins').toEqual([])
  })

  it('would catch a file importing src/config, src/base or a package', () => {
    const file = join(SANDBOX, 'x.ts')
    expect(violations(file, `import {a} from '../config/paths.js'`)).toHaveLength(1)
    expect(violations(file, `export {b} from '../base/command.js'`)).toHaveLength(1)
    expect(violations(file, `const m = await import('../services/sandbox/process.js')`)).toHaveLength(1)
    expect(violations(file, `import chalk from 'chalk'`)).toHaveLength(1)
    expect(violations(file, `import type {X} from '../domain/schema.js'\nimport {y} from './store.js'\nimport {z} from 'node:fs'`)).toEqual([])
  })
})
