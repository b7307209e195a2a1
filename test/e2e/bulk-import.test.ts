/**
 * `commerce customers import` and `orders import` run as processes against the sandbox: bad rows reported by
 * line with nothing sent, --skip-invalid, --dry-run, --errors-file, --on-conflict each way, a rerun of a
 * finished import that sends nothing (counted at a forwarding proxy), orders with their Idempotency-Keys, v1
 * refusals, and the CSV quoting round trip through export then import.
 */
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {run, tempConfigDir} from '../helpers/cli.js'
import {startFaultyServer} from '../helpers/faulty-server.js'
import {issueToken, keyPairEnv, requestsTo, startRecorder} from '../helpers/login.js'
import {type TestSandbox, startTestSandbox} from '../helpers/sandbox.js'

let sb: TestSandbox
let tmp: {dir: string; cleanup: () => void}
let token: string
const files = mkdtempSync(join(tmpdir(), 'commerce-import-'))

interface Customer {
  id: number
  email: string
  name: string
  status: string
  metadata: Record<string, unknown>
}

beforeAll(async () => {
  sb = await startTestSandbox({orderLimit: {limit: 1000, windowSeconds: 60}})
  tmp = tempConfigDir()
  token = await issueToken(sb.baseUrl, sb.keys[0])
})
afterAll(async () => {
  await sb.close()
  tmp.cleanup()
  rmSync(files, {force: true, recursive: true})
})

let n = 0
/** A file with this content under a fresh name (journals are per file and content). */
function file(ext: string, content: string): string {
  const path = join(files, `f${++n}.${ext}`)
  writeFileSync(path, content)
  return path
}

const env = (baseUrl = sb.baseUrl) => keyPairEnv(tmp.dir, baseUrl, sb.keys[0])
const cli = (args: string[], baseUrl?: string) => run(args, {env: env(baseUrl)})

async function api<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(`${sb.baseUrl}/api/v2${path}`, {
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers},
    method,
  })
  return (await res.json()) as T
}

const customerByEmail = async (email: string) =>
  (await api<{data: Customer[]}>('GET', `/customers?q=${encodeURIComponent(email)}&per_page=100`)).data.find((c) => c.email === email)

describe('customers import: validation before anything is sent', () => {
  it('every bad row is reported by its line (a quoted record spanning lines counts from its first), exit 2, nothing sent', async () => {
    const f = file(
      'csv',
      ['email,name,send_invite', 'v1@x.io,"Two\nlines",true', 'not-an-email,Bad,', 'v2@x.io,,no', 'v3@x.io,Ok,maybe', 'v1@x.io,Again,'].join('\n') +
        '\n',
    )
    const before = sb.counts().customers
    const r = await cli(['customers', 'import', f])
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain('4 invalid rows')
    expect(r.stderr).toMatch(/line 4: email "not-an-email" is not a valid email address/)
    expect(r.stderr).toMatch(/line 5: name /)
    expect(r.stderr).toMatch(/line 6: send_invite must be true or false/)
    expect(r.stderr).toMatch(/line 7: email "v1@x.io" is also on line 2/)
    expect(r.stderr).not.toMatch(/line [23]:/)
    expect(sb.counts().customers).toBe(before)

    const j = await cli(['customers', 'import', f, '--json'])
    expect(j.code).toBe(2)
    expect(Object.keys(j.json().error.errors)).toEqual(['line 4', 'line 5', 'line 6', 'line 7'])
    expect(sb.counts().customers).toBe(before)
  })

  it('a bad header or unclosed quote ends the file: exit 2 even with --skip-invalid', async () => {
    const before = sb.counts().customers
    const header = await cli(['customers', 'import', file('csv', 'email,nmae\na@x.io,A\n'), '--skip-invalid'])
    expect(header.code).toBe(2)
    expect(header.stderr).toMatch(/line 1: unknown column "nmae"/)
    const quote = await cli(['customers', 'import', file('csv', 'email,name\nq1@x.io,Fine\nq2@x.io,"never closed\n'), '--skip-invalid'])
    expect(quote.code).toBe(2)
    expect(quote.stderr).toMatch(/line 3: CSV syntax error/)
    expect(sb.counts().customers).toBe(before)
  })

  it('--skip-invalid imports the others and counts the invalid ones', async () => {
    const f = file(
      'jsonl',
      [
        '{"email":"s1@x.io","name":"S1","plan":"pro"}',
        '{"email":"s2@x.io"}',
        'not json',
        '',
        '{"email":"s3@x.io","name":"S3","metadata":{"team":"a"}}',
      ].join('\n'),
    )
    const r = await cli(['customers', 'import', f, '--skip-invalid', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual({created: 2, updated: 0, skipped: 0, failed: 0, invalid: 2, already_done: 0})
    expect(r.stderr).toMatch(/skipping invalid line 2: name/)
    expect(r.stderr).toMatch(/skipping invalid line 3: is not valid JSON/)
    expect((await customerByEmail('s1@x.io'))?.metadata).toEqual({plan: 'pro'})
    expect((await customerByEmail('s3@x.io'))?.metadata).toEqual({team: 'a'})
  })

  it('--dry-run validates and sends nothing, and needs no credentials or base URL', async () => {
    const f = file('csv', 'email,name\nd1@x.io,D1\nbad,D2\nd3@x.io,D3\n')
    const r = await run(['customers', 'import', f, '--dry-run', '--skip-invalid', '--json'], {env: {COMMERCE_CONFIG_DIR: tmp.dir}})
    expect(r.code, r.stderr).toBe(0)
    // The contract's summary, exactly (the valid rows are counted on stderr).
    expect(r.json()).toEqual({created: 0, updated: 0, skipped: 0, failed: 0, invalid: 1, already_done: 0})
    expect(r.stderr).toContain('Dry run: 2 valid rows, 1 invalid; nothing was sent.')
    const strict = await run(['customers', 'import', f, '--dry-run'], {env: {COMMERCE_CONFIG_DIR: tmp.dir}})
    expect(strict.code).toBe(2)
    expect(strict.stderr).toContain('line 3:')
    expect(await customerByEmail('d1@x.io')).toBeUndefined()
  })

  it('a file of the wrong format: the first 20 bad rows, how many more, and where they all are; not 4,003 lines', async () => {
    const rows = Array.from({length: 4003}, (_, i) => `row-${i},${i}`).join('\n')
    const f = file('jsonl', `email,name\n${rows}\n`)
    const r = await run(['customers', 'import', f, '--dry-run'], {env: {COMMERCE_CONFIG_DIR: tmp.dir}})
    expect(r.code).toBe(2)
    expect(r.stderr.match(/line \d+:/g)).toHaveLength(20)
    expect(r.stderr).toContain('… and 3,984 more invalid rows (--errors-file FILE lists them all)')
    expect(r.stderr.split('\n').length).toBeLessThan(40)
    const errorsFile = join(files, 'wrong-format-errors.jsonl')
    const withFile = await run(['customers', 'import', f, '--dry-run', '--errors-file', errorsFile], {env: {COMMERCE_CONFIG_DIR: tmp.dir}})
    expect(withFile.stderr).toContain(`(all of them in ${errorsFile})`)
    expect(readFileSync(errorsFile, 'utf8').trimEnd().split('\n')).toHaveLength(4004)
    const json = await run(['customers', 'import', f, '--dry-run', '--json'], {env: {COMMERCE_CONFIG_DIR: tmp.dir}})
    expect(Object.keys(json.json().error.errors)).toHaveLength(4004)
  })

  it('the .json that customers export --format json writes is imported as it is', async () => {
    const out = join(files, 'exported.json')
    const exported = await cli(['customers', 'export', '--format', 'json', '--output', out])
    expect(exported.code, exported.stderr).toBe(0)
    const count = (JSON.parse(readFileSync(out, 'utf8')) as unknown[]).length
    expect(count).toBeGreaterThan(0)
    const r = await run(['customers', 'import', out, '--dry-run'], {env: {COMMERCE_CONFIG_DIR: tmp.dir}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain(`Dry run: ${count} valid row${count === 1 ? '' : 's'}, 0 invalid; nothing was sent.`)
    // No table of zeros after what it found (--json keeps its document).
    expect(r.stdout).toBe('')
  })

  it('an unknown extension, a missing file: exit 2 before any request', async () => {
    const recorder = await startRecorder()
    try {
      const ext = await cli(['customers', 'import', file('txt', 'email,name\n')], recorder.url)
      expect(ext.code).toBe(2)
      expect(ext.stderr).toContain('--format')
      const missing = await cli(['customers', 'import', join(files, 'nope.csv')], recorder.url)
      expect(missing.code).toBe(2)
      expect(missing.stderr).toContain('nope.csv')
      expect(recorder.requests).toHaveLength(0)
    } finally {
      await recorder.close()
    }
  })
})

describe('customers import: --on-conflict', () => {
  const taken = async (tag: string) => {
    const existing = await api<Customer>('POST', '/customers', {email: `${tag}-old@x.io`, metadata: {plan: 'free'}, name: 'Old Name'})
    const f = file('csv', `email,name,plan\n${tag}-new@x.io,Brand New,pro\n${tag}-old@x.io,New Name,pro\n`)
    return {existing, f}
  }

  it('fail (the default): the taken row fails, the others are created, exit 1, the reason on stderr', async () => {
    const {existing, f} = await taken('fail')
    const r = await cli(['customers', 'import', f, '--json'])
    expect(r.code, r.stderr).toBe(1)
    expect(r.json()).toEqual({created: 1, updated: 0, skipped: 0, failed: 1, invalid: 0, already_done: 0})
    expect(r.stderr).toMatch(/line 3: email "fail-old@x.io" is already taken/)
    expect((await customerByEmail('fail-old@x.io'))?.name).toBe(existing.name)
    expect(await customerByEmail('fail-new@x.io')).toBeDefined()
  })

  it('skip: the taken row is skipped, exit 0', async () => {
    const {existing, f} = await taken('skip')
    const r = await cli(['customers', 'import', f, '--on-conflict', 'skip', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual({created: 1, updated: 0, skipped: 1, failed: 0, invalid: 0, already_done: 0})
    expect((await customerByEmail('skip-old@x.io'))?.name).toBe(existing.name)
  })

  it("update: the existing customer gets the row's name and metadata (PATCH), exit 0", async () => {
    const {existing, f} = await taken('upd')
    const r = await cli(['customers', 'import', f, '--on-conflict', 'update', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual({created: 1, updated: 1, skipped: 0, failed: 0, invalid: 0, already_done: 0})
    const after = await customerByEmail('upd-old@x.io')
    expect(after).toMatchObject({id: existing.id, metadata: {plan: 'pro'}, name: 'New Name'})
  })

  it('update needs v2: exit 2 with --api-version v1, before any request', async () => {
    const recorder = await startRecorder()
    try {
      const r = await cli(
        ['customers', 'import', file('csv', 'email,name\nu@x.io,U\n'), '--on-conflict', 'update', '--api-version', 'v1'],
        recorder.url,
      )
      expect(r.code).toBe(2)
      expect(r.stderr).toContain('v2')
      expect(recorder.requests).toHaveLength(0)
    } finally {
      await recorder.close()
    }
  })
})

describe('customers import: --errors-file', () => {
  it('CSV: the invalid and the failed rows with their line, status and reason', async () => {
    await api('POST', '/customers', {email: 'ef-taken@x.io', name: 'Taken'})
    const f = file('csv', 'email,name\nef1@x.io,Ok\nbroken,Bad\nef-taken@x.io,Dup\n')
    const errors = join(files, 'errors.csv')
    const r = await cli(['customers', 'import', f, '--skip-invalid', '--errors-file', errors])
    expect(r.code, r.stderr).toBe(1)
    const lines = readFileSync(errors, 'utf8').trimEnd().split('\n')
    expect(lines[0]).toBe('line,status,reason')
    expect(lines.slice(1)).toEqual([
      '3,invalid,"email ""broken"" is not a valid email address"',
      '4,failed,"email ""ef-taken@x.io"" is already taken (--on-conflict fail)"',
    ])
  })

  it('JSONL, also for a refused import: the invalid rows with their field errors', async () => {
    const f = file('jsonl', '{"email":"ej@x.io","name":"Ok"}\n{"email":"ej2@x.io","name":7}\n')
    const errors = join(files, 'errors.jsonl')
    const r = await cli(['customers', 'import', f, '--errors-file', errors])
    expect(r.code).toBe(2)
    const rows = readFileSync(errors, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(rows).toEqual([{errors: {name: [expect.any(String)]}, line: 2, reason: expect.stringMatching(/^name /), status: 'invalid'}])
  })
})

describe('a rerun of a finished import', () => {
  it('sends nothing (counted at a forwarding proxy), reports created: 0 and already_done: 12, and exits 0', async () => {
    const proxy = await startFaultyServer(() => ({forward: true}), {upstream: sb.baseUrl})
    try {
      const f = file('csv', ['email,name', ...Array.from({length: 12}, (_, i) => `rerun${i}@x.io,Rerun ${i}`)].join('\n'))
      const first = await cli(['customers', 'import', f, '--json'], proxy.url)
      expect(first.code, first.stderr).toBe(0)
      expect(first.json()).toEqual({created: 12, updated: 0, skipped: 0, failed: 0, invalid: 0, already_done: 0})
      expect(requestsTo(proxy.requests, 'POST', '/customers')).toHaveLength(12)
      const count = sb.counts().customers
      const seen = proxy.requests.length

      const again = await cli(['customers', 'import', f, '--json'], proxy.url)
      expect(again.code, again.stderr).toBe(0)
      // The summary counts this run: nothing created now, all 12 done before.
      expect(again.json()).toEqual({created: 0, updated: 0, skipped: 0, failed: 0, invalid: 0, already_done: 12})
      expect(again.stderr).toContain('Nothing to send')
      expect(proxy.requests.slice(seen)).toEqual([])
      expect(sb.counts().customers).toBe(count)
    } finally {
      await proxy.close()
    }
  })
})

describe('orders import', () => {
  it('JSONL and CSV: each row one order, with its idempotency_key or a UUID v5 of the file and row', async () => {
    const customer = await api<Customer>('POST', '/customers', {email: 'buyer@x.io', name: 'Buyer'})
    const key = crypto.randomUUID()
    const proxy = await startFaultyServer(() => ({forward: true}), {upstream: sb.baseUrl})
    try {
      const jsonlFile = file(
        'jsonl',
        [
          JSON.stringify({currency: 'USD', customer_id: customer.id, idempotency_key: key, items: [{product_id: 1, quantity: 2}]}),
          JSON.stringify({currency: 'EUR', customer_id: customer.id, items: [{product_id: 2}]}),
        ].join('\n'),
      )
      const before = sb.counts().orders
      const r = await cli(['orders', 'import', jsonlFile, '--json'], proxy.url)
      expect(r.code, r.stderr).toBe(0)
      expect(r.json()).toEqual({created: 2, updated: 0, skipped: 0, failed: 0, invalid: 0, already_done: 0})
      const keys = requestsTo(proxy.requests, 'POST', '/api/v2/orders').map((req) => req.headers['idempotency-key'])
      expect(keys[0] === key || keys[1] === key).toBe(true)
      expect(keys.find((k) => k !== key)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)

      const csv = file('csv', `customer_id,currency,items\n${customer.id},GBP,1:2;3\n${customer.id},GBP,1:2;3\n999999,USD,1\n`)
      const c = await cli(['orders', 'import', csv, '--json'])
      expect(c.code).toBe(1) // the unknown customer is refused by the service: that row fails
      expect(c.json()).toEqual({created: 2, updated: 0, skipped: 0, failed: 1, invalid: 0, already_done: 0})
      expect(c.stderr).toMatch(/line 4: customer_id no customer has id 999999/)
      expect(sb.counts().orders).toBe(before + 4)
    } finally {
      await proxy.close()
    }
  })

  it('v1 is refused (no Idempotency-Key): exit 2 before any request', async () => {
    const recorder = await startRecorder()
    try {
      const r = await cli(['orders', 'import', file('csv', 'customer_id,currency,items\n1,USD,1\n'), '--api-version', 'v1'], recorder.url)
      expect(r.code).toBe(2)
      expect(r.stderr).toContain('Idempotency-Key')
      expect(recorder.requests).toHaveLength(0)
    } finally {
      await recorder.close()
    }
  })
})

describe('CSV round trip: export, then import into another service', () => {
  it('commas, quotes, newlines and unicode survive both ways', async () => {
    const names = [
      'Smith, Anne',
      'Bob "The Builder" Jr.',
      'Line one\nline two',
      'Zoë Ångström-Øre 山田 太郎 😀',
      'Ends with comma,',
      '"Quoted"',
      'Crlf\r\nname',
    ]
    for (const [i, name] of names.entries())
      await api('POST', '/customers', {email: `rt${i}@x.io`, metadata: {note: `a,b "c"\n${i}`, plan: 'pro'}, name})
    const exported = join(files, 'roundtrip.csv')
    const e = await cli(['customers', 'export', '--search', 'rt', '--format', 'csv', '--output', exported])
    expect(e.code, e.stderr).toBe(0)

    const other = await startTestSandbox()
    try {
      const otherEnv = keyPairEnv(tmp.dir, other.baseUrl, other.keys[0])
      const i = await run(['customers', 'import', exported, '--json'], {env: otherEnv})
      expect(i.code, i.stderr).toBe(0)
      expect(i.json()).toMatchObject({created: names.length, failed: 0, invalid: 0})
      const back = await run(['customers', 'export', '--json'], {env: otherEnv})
      const byEmail = new Map(back.json<Customer[]>().map((c) => [c.email, c]))
      for (const [i, name] of names.entries()) {
        // A CRLF inside a quoted value reads back as LF (the reader turns every CRLF into LF).
        expect(byEmail.get(`rt${i}@x.io`)?.name).toBe(name.replaceAll('\r\n', '\n'))
        expect(byEmail.get(`rt${i}@x.io`)?.metadata).toEqual({note: `a,b "c"\n${i}`, plan: 'pro'})
      }
    } finally {
      await other.close()
    }
  })
})
