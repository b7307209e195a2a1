/**
 * A service that returns more than the spec shows (the independent fake adds `object`, `updated_at` and `_links` to
 * every resource): records and tables show the extra fields, `--fields` selects them, export then import takes every
 * format back (the fields the service sets named once in the summary), and a typo is still refused with the nearest.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {run, tempConfigDir} from '../helpers/cli.js'
import {startIndependentService, type IndependentService} from '../helpers/independent-service.js'

let source: IndependentService
let cfg: {dir: string; cleanup: () => void}
const envFor = (s: IndependentService, dir = cfg.dir) => ({
  COMMERCE_BASE_URL: s.url,
  COMMERCE_CONFIG_DIR: join(dir, `config-${s.key.key_id}`),
  COMMERCE_KEY_ID: s.key.key_id,
  COMMERCE_KEY_SECRET: s.key.key_secret,
})

beforeAll(async () => {
  source = await startIndependentService()
  cfg = tempConfigDir()
  for (const [email, name] of [
    ['ada@tolerant.example', 'Ada'],
    ['grace@tolerant.example', 'Grace'],
  ]) {
    const made = await run(['customers', 'create', '--email', email, '--name', name, '--no-send-invite', '--json'], {env: envFor(source)})
    expect(made.code, made.stderr).toBe(0)
    // The create answer's extra fields are kept in --json, as the service sent them.
    expect(made.json<Record<string, unknown>>()).toMatchObject({email, object: 'customer', updated_at: expect.any(String)})
  }
})
afterAll(async () => {
  await source.close()
  cfg.cleanup()
})

describe('a service that sends fields the spec does not show', () => {
  it('--fields takes any field the records carry, in --json, on a pipe and for one record', async () => {
    const [json, tsv, one] = await Promise.all([
      run(['customers', 'list', '--fields', 'id,updated_at,object', '--json'], {env: envFor(source)}),
      run(['customers', 'list', '--fields', 'email,_links.self'], {env: envFor(source)}),
      run(['customers', 'get', String([...source.customers.keys()][0]), '--fields', 'id,updated_at'], {env: envFor(source)}),
    ])
    expect(json.code, json.stderr).toBe(0)
    for (const record of json.json<Array<Record<string, unknown>>>()) {
      expect(Object.keys(record)).toEqual(['id', 'updated_at', 'object'])
      expect(record.updated_at).toEqual(expect.any(String))
    }
    expect(tsv.code, tsv.stderr).toBe(0)
    expect(tsv.stdout.split('\n')[0]).toBe('email\t_links.self')
    expect(tsv.stdout).toContain('grace@tolerant.example\t/api/v2/customers')
    expect(one.code, one.stderr).toBe(0)
    expect(one.stdout).toMatch(/^updated_at\t\d{4}-/m)
  })

  it('a name that no record carries and the CLI does not know is exit 2 with the nearest, and nothing printed', async () => {
    const [typo, json] = await Promise.all([
      run(['customers', 'list', '--fields', 'id,updatd_at'], {env: envFor(source)}),
      run(['customers', 'list', '--fields', 'id,objekt', '--json'], {env: envFor(source)}),
    ])
    expect(typo.code).toBe(2)
    expect(typo.stdout).toBe('')
    expect(typo.stderr).toContain('no record has a field "updatd_at"; did you mean updated_at?')
    expect(json.code).toBe(2)
    expect(json.json<{error: {message: string}}>().error.message).toContain('did you mean object?')
  })

  it('records show the extra fields as they show known ones', async () => {
    const got = await run(['customers', 'get', String([...source.customers.keys()][0])], {env: envFor(source)})
    expect(got.code, got.stderr).toBe(0)
    expect(got.stdout).toMatch(/^object\tcustomer$/m)
    expect(got.stdout).toMatch(/^_links\t\{"self":"\/api\/v2\/customers\/\d+"\}$/m)
  })

  for (const format of ['jsonl', 'json', 'csv'] as const)
    it(`customers export --format ${format} imports again into another account; the fields the service sets are named once`, async () => {
      const file = join(cfg.dir, `export-${format}.${format}`)
      const exported = await run(['customers', 'export', '--format', format, '--output', file], {env: envFor(source)})
      expect(exported.code, exported.stderr).toBe(0)
      expect(readFileSync(file, 'utf8')).toContain('updated_at')
      const target = await startIndependentService()
      try {
        const imported = await run(['customers', 'import', file, '--no-send-invite', '--json'], {env: envFor(target)})
        expect(imported.code, imported.stderr).toBe(0)
        const summary = imported.json<{created: number; ignored_fields: string[]}>()
        expect(summary.created).toBe(2)
        expect(summary.ignored_fields).toEqual(expect.arrayContaining(['id', 'created_at', 'object', 'updated_at', '_links']))
        expect(new Set(summary.ignored_fields).size).toBe(summary.ignored_fields.length)
        expect([...target.customers.values()].map((c) => c.email).sort()).toEqual(['ada@tolerant.example', 'grace@tolerant.example'])
        // Nothing the service sets was sent back to it.
        for (const r of target.apiRequests().filter((q) => q.method === 'POST'))
          expect(Object.keys(r.body).sort()).toEqual(['email', 'name', 'send_invite'])
      } finally {
        await target.close()
      }
    })

  it('a near miss of a create field is still refused, naming the nearest (JSON lines and a CSV header)', async () => {
    const jsonl = join(cfg.dir, 'typo.jsonl')
    writeFileSync(jsonl, '{"email": "x@tolerant.example", "nmae": "X"}\n')
    const csv = join(cfg.dir, 'typo.csv')
    writeFileSync(csv, 'emial,name\nx@tolerant.example,X\n')
    const [a, b] = await Promise.all([
      run(['customers', 'import', jsonl, '--dry-run'], {env: envFor(source)}),
      run(['customers', 'import', csv, '--dry-run'], {env: envFor(source)}),
    ])
    expect(a.code).toBe(2)
    expect(a.stderr).toContain('nmae is not a field of an imported customer; did you mean name?')
    expect(b.code).toBe(2)
    expect(b.stderr).toContain('unknown column "emial"; did you mean "email"?')
  })
})
