import {existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, describe, expect, test} from 'vitest'

import {isUuid} from '../../src/domain/validate.js'
import {importFile} from '../../src/bulk/import.js'
import type {ImportRow} from '../../src/bulk/rows.js'
import {FileChangedError, validateFile} from '../../src/bulk/validate-file.js'

const dir = mkdtempSync(join(tmpdir(), 'bulk-rows-'))
afterAll(() => rmSync(dir, {force: true, recursive: true}))

let n = 0
function file(content: string, ext: string): string {
  const path = join(dir, `in${n++}.${ext}`)
  writeFileSync(path, content)
  return path
}

async function rowsOf(validated: {rows(): AsyncGenerator<ImportRow>}): Promise<ImportRow[]> {
  const out: ImportRow[] = []
  for await (const r of validated.rows()) out.push(r)
  return out
}

describe('customers', () => {
  test('CSV: maps columns to the create body (send_invite words, plan and metadata.<key> into metadata, export columns ignored)', async () => {
    const csv = [
      'id,email,name,send_invite,plan,metadata.source,metadata,status,created_at',
      '7, ann@x.io ,Ann Lee,no,pro,fair,"{""tier"":2}",active,2024-01-01',
      ',bob@x.io,Bob,,,,,,',
      ',cy@x.io,Cy,YES,,,,,',
    ].join('\n')
    const v = await validateFile({file: file(csv, 'csv'), format: 'csv', kind: 'customers'})
    expect(v).toMatchObject({invalidCount: 0, valid: 3})
    expect(await rowsOf(v)).toEqual([
      {body: {email: 'ann@x.io', metadata: {plan: 'pro', source: 'fair', tier: 2}, name: 'Ann Lee', send_invite: false}, kind: 'customers', line: 2},
      {body: {email: 'bob@x.io', name: 'Bob'}, kind: 'customers', line: 3},
      {body: {email: 'cy@x.io', name: 'Cy', send_invite: true}, kind: 'customers', line: 4},
    ])
  })

  test('CSV: every bad row is reported by its line, with a one-line reason, and the send pass leaves them out', async () => {
    const csv = [
      'email,name,send_invite', // 1
      'ok@x.io,Ok,true', // 2
      'not-an-email,Bad,true', // 3
      'b@x.io,,maybe', // 4
      'ok@x.io,Again,', // 5: duplicate of line 2
      'c@x.io,"Multi', // 6-7: a valid multi-line name
      'line",1',
      'd@x.io', // 8: too few fields
      `e@x.io,${'n'.repeat(256)},`, // 9: name too long
    ].join('\n')
    const v = await validateFile({file: file(csv, 'csv'), format: 'csv', kind: 'customers'})
    expect(v.valid).toBe(2)
    expect(v.fatal).toBeUndefined()
    expect(v.invalid.map((e) => e.message)).toEqual([
      'line 3: email "not-an-email" is not a valid email address',
      'line 4: send_invite must be true or false (or 1/0, yes/no; got "maybe"); name is required',
      'line 5: email "ok@x.io" is also on line 2',
      'line 8: has 1 field, the header has 3',
      'line 9: name must be at most 255 characters (got 256)',
    ])
    expect((await rowsOf(v)).map((r) => r.line)).toEqual([2, 6])
  })

  test("CSV: a near miss of a create column or a missing one is one fatal error on the header line; other columns are the service's, ignored", async () => {
    const typo = await validateFile({file: file('email,name,plna\na@x.io,A,pro\n', 'csv'), format: 'csv', kind: 'customers'})
    expect(typo.fatal?.message).toBe(
      'line 1: unknown column "plna"; did you mean "plan"? (expected email, name, send_invite, plan, metadata, metadata.<key>)',
    )
    expect(typo.valid).toBe(0)
    const extra = await validateFile({
      file: file('id,email,name,object,updated_at\n4,a@x.io,A,customer,2026-01-01\n', 'csv'),
      format: 'csv',
      kind: 'customers',
    })
    expect(extra.fatal).toBeUndefined()
    expect(await rowsOf(extra)).toEqual([{body: {email: 'a@x.io', name: 'A'}, kind: 'customers', line: 2}])
    expect(extra.ignoredFields).toEqual(['id', 'object', 'updated_at'])
    const missing = await validateFile({file: file('name\nA\n', 'csv'), format: 'csv', kind: 'customers'})
    expect(missing.fatal?.message).toBe('line 1: the header has no "email" column')
  })

  test("JSONL: objects shaped like the create body, plan accepted at the top level, near misses refused, the service's fields ignored", async () => {
    const jsonl = [
      '{"email":"a@x.io","name":"A","send_invite":false,"metadata":{"k":"v"},"plan":"pro"}',
      '{"email":"b@x.io","name":"B","id":4,"status":"active","object":"customer","_links":{"self":"/c/4"}}',
      '{"email":"c@x.io","name":"C","nmae":"typo"}',
      '{"email":"d@x.io","name":"D","send_invite":"no"}',
      '{"email":"e@x.io"',
    ].join('\n')
    const v = await validateFile({file: file(jsonl, 'jsonl'), format: 'jsonl', kind: 'customers'})
    expect(await rowsOf(v)).toEqual([
      {body: {email: 'a@x.io', metadata: {k: 'v', plan: 'pro'}, name: 'A', send_invite: false}, kind: 'customers', line: 1},
      {body: {email: 'b@x.io', name: 'B'}, kind: 'customers', line: 2},
    ])
    expect(v.invalid.map((e) => e.message)).toEqual([
      'line 3: nmae is not a field of an imported customer; did you mean name?',
      'line 4: send_invite must be true or false',
      expect.stringMatching(/^line 5: is not valid JSON/),
    ])
    expect(v.ignoredFields).toEqual(['id', 'status', 'object', '_links'])
    // An active customer comes back as one; an archived one cannot (the create body has no status): counted.
    expect(v.statusNotCarried).toBe(0)
    const archived = await validateFile({
      file: file('{"email":"z@x.io","name":"Z","status":"archived"}\n{"email":"y@x.io","name":"Y","status":"invited"}\n', 'jsonl'),
      format: 'jsonl',
      kind: 'customers',
    })
    expect(archived.statusNotCarried).toBe(1)
  })
})

describe('orders', () => {
  test('CSV: items are PRODUCT_ID[:QUANTITY] entries separated by ";"; each row gets a UUID v5 key unless it brings one', async () => {
    const key = '3f2c1b4a-1d2e-4f50-9a6b-7c8d9e0f1a2b'
    const csv = ['customer_id,currency,items,idempotency_key', '1,USD,12:3; 14,', '1,USD,12:3; 14,', `2,EUR,5,${key}`].join('\n')
    const path = file(csv, 'csv')
    const v = await validateFile({file: path, format: 'csv', kind: 'orders'})
    const rows = await rowsOf(v)
    expect(rows.map((r) => r.body)).toEqual([
      {currency: 'USD', customer_id: 1, items: [{product_id: 12, quantity: 3}, {product_id: 14}]},
      {currency: 'USD', customer_id: 1, items: [{product_id: 12, quantity: 3}, {product_id: 14}]},
      {currency: 'EUR', customer_id: 2, items: [{product_id: 5}]},
    ])
    const keys = rows.map((r) => (r.kind === 'orders' ? r.idempotencyKey : ''))
    expect(keys.every((k) => isUuid(k))).toBe(true)
    expect(keys[0]).not.toBe(keys[1]) // identical rows, different lines
    expect(keys[2]).toBe(key)
    // Stable: validating the same file again gives the same keys.
    expect(
      (await rowsOf(await validateFile({file: path, format: 'csv', kind: 'orders'}))).map((r) => (r.kind === 'orders' ? r.idempotencyKey : '')),
    ).toEqual(keys)
    // Another file with the same rows gives other keys.
    const other = await rowsOf(await validateFile({file: file(csv + '\n', 'csv'), format: 'csv', kind: 'orders'}))
    expect(other.map((r) => (r.kind === 'orders' ? r.idempotencyKey : ''))[0]).not.toBe(keys[0])
  })

  test('CSV: bad customer ids, currencies, items and keys are reported by line', async () => {
    const key = '3f2c1b4a-1d2e-4f50-9a6b-7c8d9e0f1a2b'
    const csv = [
      'customer_id,currency,items,idempotency_key',
      'abc,USD,1,',
      '1,XYZ,1,',
      '1,USD,,',
      '1,USD,12:x;4,',
      '1,USD,0:2,',
      `1,USD,1,${key}`,
      `2,USD,1,${key.toUpperCase()}`,
      '1,USD,1,not-a-uuid',
    ].join('\n')
    const v = await validateFile({file: file(csv, 'csv'), format: 'csv', kind: 'orders'})
    expect(v.valid).toBe(1)
    expect(v.invalid.map((e) => e.message)).toEqual([
      'line 2: customer_id must be a positive integer (got "abc")',
      'line 3: currency must be one of USD, EUR, GBP (got "XYZ")',
      'line 4: items must have at least 1 line item',
      'line 5: items has "12:x", expected PRODUCT_ID[:QUANTITY] entries separated by ";"',
      'line 6: item 1 product_id must be a positive integer (got 0)',
      'line 8: idempotency_key is also used on line 7',
      'line 9: idempotency_key must be a UUID (got "not-a-uuid")',
    ])
  })

  test('JSONL: objects like --from-file, with an optional idempotency_key', async () => {
    const jsonl = [
      '{"customer_id":1,"currency":"GBP","items":[{"product_id":2,"quantity":1}]}',
      '{"customer_id":"1","currency":"GBP","items":[]}',
      '{"customer_id":1,"currency":"GBP","items":[{"product_id":2}],"idempotency_key":42}',
    ].join('\n')
    const v = await validateFile({file: file(jsonl, 'jsonl'), format: 'jsonl', kind: 'orders'})
    expect(v.valid).toBe(1)
    expect(v.invalid.map((e) => e.message)).toEqual([
      'line 2: customer_id must be a positive integer (got "1"); items must have at least 1 line item',
      'line 3: idempotency_key must be a UUID (got 42)',
    ])
  })
})

test('the send pass refuses a file that changed since validation', async () => {
  const path = file('email,name\na@x.io,A\n', 'csv')
  const v = await validateFile({file: path, format: 'csv', kind: 'customers'})
  writeFileSync(path, 'email,name\na@x.io,A\nb@x.io,B\n')
  utimesSync(path, new Date(), new Date(Date.now() + 5000))
  await expect(rowsOf(v)).rejects.toBeInstanceOf(FileChangedError)
})

describe('importFile', () => {
  const csv = 'email,name\ngood@x.io,Good\nbad,Bad\nalso-good@x.io,Also\n'

  test('with a bad row, sends nothing and opens no journal', async () => {
    const journals = join(dir, 'journals-a')
    let sends = 0
    const errors: unknown[] = []
    const result = await importFile({
      baseUrl: 'http://service',
      errors: {write: (row) => void errors.push(row)},
      file: file(csv, 'csv'),
      format: 'csv',
      journalDir: journals,
      kind: 'customers',
      send: async () => {
        sends++
        return {outcome: 'created'}
      },
    })
    expect(result.status).toBe('invalid')
    expect(result.file.invalid.map((e) => e.line)).toEqual([3])
    expect(sends).toBe(0)
    expect(existsSync(journals)).toBe(false)
    expect(errors).toEqual([expect.objectContaining({line: 3, status: 'invalid'})]) // --errors-file lists it too
  })

  test('a fatal error sends nothing even with skipInvalid; dryRun sends nothing', async () => {
    let sends = 0
    const send = async () => {
      sends++
      return {outcome: 'created' as const}
    }
    const common = {baseUrl: 'http://service', format: 'csv' as const, journalDir: join(dir, 'journals-b'), kind: 'customers' as const, send}
    const fatal = await importFile({...common, file: file('email,name\n"a@x.io,A\n', 'csv'), skipInvalid: true})
    expect(fatal.status).toBe('invalid')
    const dry = await importFile({...common, dryRun: true, file: file('email,name\na@x.io,A\n', 'csv')})
    expect(dry).toMatchObject({file: {valid: 1}, status: 'dry-run'})
    expect(sends).toBe(0)
  })

  test('skipInvalid sends the valid rows and counts the others as invalid, writing both kinds to the errors file', async () => {
    const sent: number[] = []
    const errors: unknown[] = []
    const result = await importFile({
      baseUrl: 'http://service',
      errors: {write: (row) => void errors.push(row)},
      file: file(csv, 'csv'),
      format: 'csv',
      journalDir: join(dir, 'journals-c'),
      kind: 'customers',
      send: async (row) => {
        sent.push(row.line)
        return row.line === 4 ? {outcome: 'failed', reason: 'email "also-good@x.io" is already taken'} : {id: 1, outcome: 'created'}
      },
      skipInvalid: true,
    })
    expect(sent.sort()).toEqual([2, 4])
    expect(result.status === 'done' && result.result).toMatchObject({created: 1, failed: 1, invalid: 1, skipped: 0, updated: 0})
    expect(errors).toEqual([
      {errors: {email: ['"bad" is not a valid email address']}, line: 3, reason: 'email "bad" is not a valid email address', status: 'invalid'},
      {line: 4, reason: 'email "also-good@x.io" is already taken', status: 'failed'},
    ])
    expect(readdirSync(join(dir, 'journals-c')).filter((f) => f.endsWith('.jsonl'))).toHaveLength(1)
  })
})
