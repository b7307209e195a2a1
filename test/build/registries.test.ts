/**
 * What a command says of itself on its class (src/base/command.ts: `static pick`, `static operations`) is the one
 * place it is said: completion, `commands --json` and the docs' lists are generated from it (scripts/generated-docs.ts).
 * These tests tie the declarations to the code, so that a command that picks or talks to the service declares it.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'

import {describe, expect, it} from 'vitest'

import {OPERATIONS} from '../../src/domain/schema.js'
import {ROOT} from '../helpers/cli.js'

const commands = join(ROOT, 'src', 'commands')
const files = (readdirSync(commands, {recursive: true}) as string[]).filter((f) => f.endsWith('.ts'))
/** `customers/get.ts` -> `customers get` (oclif's id, topics separated by a space). */
const idOf = (file: string) => relative(commands, join(commands, file)).replace(/\.ts$/, '').split(/[\\/]/).join(' ')
const source = (file: string) => readFileSync(join(commands, file), 'utf8')
const DECLARED_OPERATIONS = /static operations: readonly OperationId\[\] = \[([^\]]*)\]/

describe('what a command declares on its class', () => {
  it('a command that picks an id (this.pick) declares the kind it picks (static pick), which its completion follows', () => {
    const wrong = files.filter((file) => /this\.pick\(/.test(source(file)) !== /static pick: PickKind = '[\w-]+'/.test(source(file)))
    expect(wrong.map(idOf), 'declare `static pick: PickKind = ...` on each command that calls this.pick(), and on no other').toEqual([])
  })

  it('every command that talks to the service declares the operations it makes, or that it may change anything (api)', () => {
    const missing = files.filter((file) => {
      const text = source(file)
      return /extends (ApiCommand|BulkCommand)\b/.test(text) && !DECLARED_OPERATIONS.test(text) && !/static effect = '(account|local)'/.test(text)
    })
    expect(missing.map(idOf), 'declare `static operations` on each').toEqual([])
  })

  it('every command says what it changes: its operations, or `static effect` (reads, local, account)', () => {
    const silent = files.filter(
      (file) => !DECLARED_OPERATIONS.test(source(file)) && !/static effect = '(reads|local|account)' as const/.test(source(file)),
    )
    expect(silent.map(idOf), "declare `static effect = 'reads' | 'local' | 'account' as const` on each").toEqual([])
  })

  it('every operation of the service is made by some command, and every declared one exists', () => {
    const declared = files.flatMap((file) => DECLARED_OPERATIONS.exec(source(file))?.[1].match(/\w+/g) ?? [])
    expect(Object.keys(OPERATIONS).filter((op) => !declared.includes(op))).toEqual([])
    expect(declared.filter((op) => !Object.hasOwn(OPERATIONS, op))).toEqual([])
  })
})

describe('docs/operations.md', () => {
  it('names every operation the CLI knows, at its method and path, in each version', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8')
    const missing = Object.values(OPERATIONS)
      .flatMap((op) => op.versions.map((v) => `\`${op.method} /api/${v}${op.path}\``))
      .filter((line) => !doc.includes(line))
    expect(missing, 'docs/operations.md is generated from src/domain/schema.ts OPERATIONS: run `npm run generate`').toEqual([])
  })
})
