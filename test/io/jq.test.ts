/** The jq engine wrapper (src/io/jq.ts) and the field projection (src/io/fields.ts), on their own. */
import {describe, expect, it} from 'vitest'

import {CliError, EXIT, UsageError} from '../../src/errors.js'
import {fieldValue, parseFields, project} from '../../src/io/fields.js'
import {compileJq} from '../../src/io/jq.js'

const records = JSON.stringify([
  {email: 'a@example.com', id: 1, metadata: {plan: 'pro'}},
  {email: 'b"c@example.com', id: 2},
])

describe('compileJq', () => {
  it('prints like jq -r: each result on its own line, strings raw, other values compact JSON', async () => {
    const jq = await compileJq('.[].email, length, .[0]')
    expect(jq(records)).toBe('a@example.com\nb"c@example.com\n2\n{"email":"a@example.com","id":1,"metadata":{"plan":"pro"}}\n')
  })

  it('indents objects when pretty (stdout is a terminal), as --json does there', async () => {
    const jq = await compileJq('.[1]', {pretty: true})
    expect(jq(records)).toBe('{\n  "email": "b\\"c@example.com",\n  "id": 2\n}\n')
  })

  it('prints nothing for no results; @csv and @tsv as jq has them', async () => {
    expect((await compileJq('.[] | select(.id > 5)'))(records)).toBe('')
    expect((await compileJq('.[] | [.id, .email] | @csv'))(records)).toBe('1,"a@example.com"\n2,"b""c@example.com"\n')
    expect((await compileJq('.[] | [.id, .metadata.plan] | @tsv'))(records)).toBe('1\tpro\n2\t\n')
  })

  it('a compile error is a UsageError (exit 2) with jq\'s message', async () => {
    for (const expression of ['.[', '.a | nosuchfunction(1)', '{']) {
      const error = await compileJq(expression).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(UsageError)
      expect((error as CliError).exitCode).toBe(EXIT.usage)
      expect((error as Error).message).toMatch(/^--jq: /)
      expect((error as Error).message).not.toMatch(/Non-zero exit code|compile error$/)
    }
    expect(((await compileJq('.[').catch((e: unknown) => e)) as Error).message).toMatch(/syntax error/)
    await expect(compileJq('  ')).rejects.toBeInstanceOf(UsageError)
  })

  it('does not run the expression to compile it (an endless or failing one compiles)', async () => {
    await expect(compileJq('repeat(1)')).resolves.toBeTypeOf('function')
    await expect(compileJq('error("boom")')).resolves.toBeTypeOf('function')
  })

  it('a runtime error is a CliError (exit 1) with jq\'s message, and jq keeps working after it', async () => {
    const jq = await compileJq('.[] | error("boom \\(.id)")')
    let error: unknown
    try {
      jq(records)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(CliError)
    expect(error).not.toBeInstanceOf(UsageError)
    expect((error as CliError).exitCode).toBe(EXIT.failure)
    expect((error as Error).message).toBe('--jq: boom 1')
    expect((await compileJq('length'))(records)).toBe('2\n')
  })
})

describe('--fields', () => {
  it('parseFields: names in order, trimmed, repeated ones once; an empty list or name is exit 2', () => {
    expect(parseFields('id, email,metadata.plan,id')).toEqual(['id', 'email', 'metadata.plan'])
    for (const bad of ['', ' , ', 'id,,email']) expect(() => parseFields(bad)).toThrow(UsageError)
  })

  it('project: only those fields, in that order; nested by dotted name; unknown ones null', () => {
    const record = {created_at: 'x', email: 'a@example.com', id: 7, metadata: {plan: 'pro'}, 'odd.key': 1}
    const shown = project(record, ['email', 'id', 'metadata.plan', 'nope', 'metadata.nope.deeper', 'odd.key'])
    expect(shown).toEqual({email: 'a@example.com', id: 7, 'metadata.nope.deeper': null, 'metadata.plan': 'pro', nope: null, 'odd.key': 1})
    expect(Object.keys(shown)).toEqual(['email', 'id', 'metadata.plan', 'nope', 'metadata.nope.deeper', 'odd.key'])
    expect(fieldValue({a: [{b: 1}]}, 'a.0')).toBeUndefined()
    expect(fieldValue({a: null}, 'a.b')).toBeUndefined()
  })
})
