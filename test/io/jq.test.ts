/** The jq engine wrapper (src/io/jq.ts) and the field projection (src/io/fields.ts), on their own. */
import {describe, expect, it} from 'vitest'

import {CliError, EXIT, UsageError} from '../../src/errors.js'
import {fieldValue, parseFields, project} from '../../src/io/fields.js'
import {type JqFilter, compileJq} from '../../src/io/jq.js'

/** What the filter prints for `json`, gathered from the pieces it streams. */
async function out(jq: JqFilter, json: string): Promise<string> {
  let text = ''
  await jq.run(json, (piece) => (text += piece))
  return text
}
/** A compiled filter's output for `json`, its worker closed after. */
async function once(expression: string, json: string, options: {pretty?: boolean; env?: NodeJS.ProcessEnv} = {}): Promise<string> {
  const jq = await compileJq(expression, options)
  try {
    return await out(jq, json)
  } finally {
    await jq.close()
  }
}

const records = JSON.stringify([
  {email: 'a@example.com', id: 1, metadata: {plan: 'pro'}},
  {email: 'b"c@example.com', id: 2},
])

describe('compileJq', () => {
  it('prints like jq -r: each result on its own line, strings raw, other values compact JSON', async () => {
    expect(await once('.[].email, length, .[0]', records)).toBe(
      'a@example.com\nb"c@example.com\n2\n{"email":"a@example.com","id":1,"metadata":{"plan":"pro"}}\n',
    )
  })

  it('indents objects when pretty (stdout is a terminal), as --json does there', async () => {
    expect(await once('.[1]', records, {pretty: true})).toBe('{\n  "email": "b\\"c@example.com",\n  "id": 2\n}\n')
  })

  it('prints nothing for no results; @csv and @tsv as jq has them', async () => {
    expect(await once('.[] | select(.id > 5)', records)).toBe('')
    expect(await once('.[] | [.id, .email] | @csv', records)).toBe('1,"a@example.com"\n2,"b""c@example.com"\n')
    expect(await once('.[] | [.id, .metadata.plan] | @tsv', records)).toBe('1\tpro\n2\t\n')
  })

  it("a compile error is a UsageError (exit 2) with jq's message", async () => {
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
    for (const expression of ['repeat(1)', 'error("boom")']) await (await compileJq(expression)).close()
  })

  it("a runtime error is a CliError (exit 1) with jq's message, and jq keeps working after it", async () => {
    const jq = await compileJq('.[] | error("boom \\(.id)")')
    const error = await out(jq, records).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CliError)
    expect(error).not.toBeInstanceOf(UsageError)
    expect((error as CliError).exitCode).toBe(EXIT.failure)
    expect((error as Error).message).toBe('--jq: boom 1')
    expect(await out(jq, '[]')).toBe('')
    await jq.close()
    expect(await once('length', records)).toBe('2\n')
  })

  it('streams results as jq prints them, and keeps to a deadline that holds: an endless filter is stopped', async () => {
    const jq = await compileJq('repeat(1)', {env: {COMMERCE_JQ_TIMEOUT: '1'}})
    let seen = 0
    const started = Date.now()
    const error = await jq.run('null', (piece) => (seen += piece.length)).catch((e: unknown) => e)
    expect(seen, 'output arrived while the filter ran').toBeGreaterThan(0)
    expect(error).toBeInstanceOf(CliError)
    expect((error as CliError).exitCode).toBe(EXIT.failure)
    expect((error as Error).message).toBe('--jq: the filter took longer than 1 s and was stopped.')
    expect(Date.now() - started).toBeLessThan(5000)
    await jq.close()
  })

  it('a filter that computes without end and prints nothing is stopped at the deadline too', async () => {
    const error = await once('[range(1e9)] | length', 'null', {env: {COMMERCE_JQ_TIMEOUT: '0.5'}}).catch((e: unknown) => e)
    expect((error as Error).message).toMatch(/^--jq: the filter (took longer than 0.5 s|ran out of memory) and was stopped\.$/)
  })

  it('COMMERCE_JQ_TIMEOUT that is not a positive number is exit 2 naming it', async () => {
    await expect(compileJq('.', {env: {COMMERCE_JQ_TIMEOUT: '-1'}})).rejects.toThrow(/COMMERCE_JQ_TIMEOUT must be a positive number of seconds/)
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
