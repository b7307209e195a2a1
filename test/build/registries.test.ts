/**
 * The lists a new command must join are tied to their sources, so that forgetting one fails here with the file and
 * the fix named, not silently (bash and zsh offering nothing for a new command's ids).
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ID_COMPLETIONS, PICK_KINDS} from '../../src/services/pick-kinds.js'
import {ROOT} from '../helpers/cli.js'

const commands = join(ROOT, 'src', 'commands')
const files = (readdirSync(commands, {recursive: true}) as string[]).filter((f) => f.endsWith('.ts'))
/** `customers/get.ts` -> `customers get` (oclif's id, topics separated by a space). */
const idOf = (file: string) => relative(commands, join(commands, file)).replace(/\.ts$/, '').split(/[\\/]/).join(' ')

describe('src/services/pick-kinds.ts, the one registry of pickers and id completion', () => {
  it('every command that picks an id (this.pick) is listed under its kind, so its id argument completes', () => {
    const missing: string[] = []
    for (const file of files) {
      const text = readFileSync(join(commands, file), 'utf8')
      for (const [, kind] of text.matchAll(/this\.pick\('([\w-]+)'/g)) {
        const listed = (PICK_KINDS as Record<string, {commands: readonly string[]}>)[kind]?.commands ?? []
        if (!listed.includes(idOf(file))) missing.push(`${idOf(file)} (kind ${kind})`)
      }
    }
    expect(missing, `add each to its kind's commands in src/services/pick-kinds.ts`).toEqual([])
  })

  it('every command it lists exists', () => {
    const ids = new Set(files.map(idOf))
    expect(
      Object.keys(ID_COMPLETIONS).filter((id) => !ids.has(id)),
      'src/services/pick-kinds.ts names commands that do not exist',
    ).toEqual([])
  })
})

/** `customers get|update|delete`, `orders get|refund` and `webhooks replay` -> each command's words. */
function commandList(text: string): string[] {
  return [...text.matchAll(/`([a-z ]+?)([a-z|]+)`/g)].flatMap(([, head, tails]) => tails.split('|').map((t) => `${head}${t}`)).sort()
}

describe('the README and docs lists of commands and operations, tied to their sources', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ')
  const registry = Object.keys(ID_COMPLETIONS).sort()

  for (const [what, before, after] of [
    ['id completion', 'The id argument of ', ' completes from the account'],
    ['pickers', 'as `gh run view` does: ', ' open a search picker'],
  ] as const)
    it(`the README's list of commands with ${what} is the registry's`, () => {
      const start = readme.indexOf(before)
      const end = readme.indexOf(after, start)
      expect(start, `README.md no longer says "${before}…${after}"`).toBeGreaterThan(-1)
      expect(
        commandList(readme.slice(start + before.length, end)),
        `README.md's list of commands with ${what} differs from src/services/pick-kinds.ts: make the README's list match it`,
      ).toEqual(registry)
    })

  it('docs/operations.md names every operation the CLI knows, at its method and path, in each version', async () => {
    const {OPERATIONS} = await import('../../src/domain/schema.js')
    const doc = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8')
    const missing = Object.values(OPERATIONS)
      .flatMap((op) => op.versions.map((v) => `\`${op.method} /api/${v}${op.path}\``))
      .filter((line) => !doc.includes(line))
    expect(missing, 'add a row for each to docs/operations.md (src/domain/schema.ts OPERATIONS is the source)').toEqual([])
  })
})
