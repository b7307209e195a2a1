/**
 * `commerce customers export` and `orders export` run as processes against sandboxes: an empty list, one page
 * and several pages (in the service's order under --concurrency 4) in JSONL, CSV and JSON; --output written
 * atomically (a failed export leaves no file); the --json summary; usage errors before any request.
 */
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {RESOURCE_COLUMNS} from '../../src/domain/schema.js'
import {run, tempConfigDir} from '../helpers/cli.js'
import {startFaultyServer} from '../helpers/faulty-server.js'
import {issueToken, keyPairEnv, requestsTo, startRecorder} from '../helpers/login.js'
import {type TestSandbox, startTestSandbox} from '../helpers/sandbox.js'

let empty: TestSandbox
let onePage: TestSandbox
let multiPage: TestSandbox
let tmp: {dir: string; cleanup: () => void}
const out = mkdtempSync(join(tmpdir(), 'commerce-export-'))

interface Customer {
  id: number
  email: string
  name: string
  status: string
  created_at: string
  metadata: Record<string, unknown>
}

/** Creates customers straight on a sandbox, `parallel` requests at a time. */
async function seedCustomers(sb: TestSandbox, count: number, parallel = 8): Promise<void> {
  const token = await issueToken(sb.baseUrl, sb.keys[0])
  let next = 0
  const worker = async () => {
    while (next < count) {
      const i = ++next
      const res = await fetch(`${sb.baseUrl}/api/v2/customers`, {
        body: JSON.stringify({email: `c${i}@example.com`, metadata: {plan: i % 2 ? 'pro' : 'free'}, name: `Customer ${i}`, send_invite: i % 3 !== 0}),
        headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
        method: 'POST',
      })
      if (res.status !== 201) throw new Error(`seed failed: ${res.status}`)
      await res.arrayBuffer()
    }
  }
  await Promise.all(Array.from({length: parallel}, worker))
}

/** Every customer as the list operation returns them, in its order. */
async function listAll(sb: TestSandbox): Promise<Customer[]> {
  const token = await issueToken(sb.baseUrl, sb.keys[0])
  const all: Customer[] = []
  for (let page = 1; ; page++) {
    const res = await fetch(`${sb.baseUrl}/api/v2/customers?per_page=100&page=${page}`, {headers: {authorization: `Bearer ${token}`}})
    const body = (await res.json()) as {data: Customer[]}
    if (body.data.length === 0) return all
    all.push(...body.data)
  }
}

beforeAll(async () => {
  ;[empty, onePage, multiPage] = await Promise.all([
    startTestSandbox(),
    startTestSandbox({orderLimit: {limit: 1000, windowSeconds: 60}}),
    startTestSandbox(),
  ])
  tmp = tempConfigDir()
  await Promise.all([seedCustomers(onePage, 30), seedCustomers(multiPage, 250)])
})
afterAll(async () => {
  await Promise.all([empty.close(), onePage.close(), multiPage.close()])
  tmp.cleanup()
  rmSync(out, {force: true, recursive: true})
})

const exportFrom = (sb: TestSandbox, args: string[], topic = 'customers') =>
  run([topic, 'export', ...args], {env: keyPairEnv(tmp.dir, sb.baseUrl, sb.keys[0])})
const jsonl = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Customer)

describe('customers export of an empty list', () => {
  it('jsonl: no output at all', async () => {
    const r = await exportFrom(empty, [])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('')
  })

  it('csv: the header row alone, the resource columns', async () => {
    const r = await exportFrom(empty, ['--format', 'csv'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe(RESOURCE_COLUMNS.customer.join(',') + '\n')
  })

  it('json: an empty array; with --json alone as well', async () => {
    const r = await exportFrom(empty, ['--format', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual([])
    const j = await exportFrom(empty, ['--json'])
    expect(j.code, j.stderr).toBe(0)
    expect(j.json()).toEqual([])
  })
})

describe('customers export of one page', () => {
  it('jsonl: every customer as the service returns it, in its order', async () => {
    const r = await exportFrom(onePage, ['--format', 'jsonl'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.endsWith('\n')).toBe(true)
    expect(jsonl(r.stdout)).toEqual(await listAll(onePage))
    expect(r.stderr).toBe('') // no progress bar or summary on a pipe
  })

  it('csv: header of the top-level fields, nested metadata as compact JSON, RFC 4180 quoting', async () => {
    const r = await exportFrom(onePage, ['--format', 'csv'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('id,email,name,status,created_at,metadata')
    expect(lines).toHaveLength(31)
    const first = (await listAll(onePage))[0]
    expect(lines[1]).toBe(
      `${first.id},${first.email},${first.name},${first.status},${first.created_at},"${JSON.stringify(first.metadata).replaceAll('"', '""')}"`,
    )
  })

  it('json: one array equal to the list', async () => {
    const r = await exportFrom(onePage, ['--format', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual(await listAll(onePage))
  })
})

describe('customers export of several pages', () => {
  it('--concurrency 4: 250 customers over 3 pages, in the service order, none twice', async () => {
    const r = await exportFrom(multiPage, ['--concurrency', '4'])
    expect(r.code, r.stderr).toBe(0)
    const records = jsonl(r.stdout)
    expect(records).toHaveLength(250)
    expect(records.map((c) => c.id)).toEqual((await listAll(multiPage)).map((c) => c.id))
    expect(new Set(records.map((c) => c.email)).size).toBe(250)
  })

  it('--output FILE --json: the file holds the records, stdout the summary, no temporary file is left', async () => {
    const dir = mkdtempSync(join(out, 'csv-'))
    const file = join(dir, 'customers.csv')
    const r = await exportFrom(multiPage, ['--format', 'csv', '--output', file, '--json', '--concurrency', '3'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual({exported: 250, output: file})
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
    expect(lines).toHaveLength(251)
    expect(lines.slice(1).map((l) => Number(l.split(',')[0]))).toEqual((await listAll(multiPage)).map((c) => c.id))
    expect(readdirSync(dir)).toEqual(['customers.csv'])
  })

  it('--output without --json: a line on stderr, nothing on stdout', async () => {
    const file = join(out, 'all.jsonl')
    const r = await exportFrom(multiPage, ['--output', file])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain(`Exported 250 customers to ${file}.`)
    expect(jsonl(readFileSync(file, 'utf8'))).toHaveLength(250)
  })

  it('--status filters (the service does the filtering)', async () => {
    const r = await exportFrom(multiPage, ['--status', 'active'])
    expect(r.code, r.stderr).toBe(0)
    const records = jsonl(r.stdout)
    expect(records.length).toBe((await listAll(multiPage)).filter((c) => c.status === 'active').length)
    expect(records.every((c) => c.status === 'active')).toBe(true)
  })
})

describe('a failed export', () => {
  it('leaves no file behind: page 2 keeps failing with 500 -> exit 1, neither the file nor a temporary one exists', async () => {
    const faulty = await startFaultyServer(
      (req) => (/[?&]page=([2-9]|\d\d)/.test(req.url) ? {body: {message: 'boom'}, status: 500} : {forward: true}),
      {upstream: multiPage.baseUrl},
    )
    try {
      const dir = mkdtempSync(join(out, 'fail-'))
      const file = join(dir, 'customers.jsonl')
      const r = await run(['customers', 'export', '--output', file], {env: keyPairEnv(tmp.dir, faulty.url, multiPage.keys[0])})
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toMatch(/500|boom/)
      expect(existsSync(file)).toBe(false)
      expect(readdirSync(dir)).toEqual([])
      expect(requestsTo(faulty.requests, 'GET', '/customers').length).toBeGreaterThan(1)
    } finally {
      await faulty.close()
    }
  })

  it('an --output in a missing directory, or naming a directory, is exit 2 before any request', async () => {
    const recorder = await startRecorder()
    try {
      const r = await run(['customers', 'export', '--output', join(out, 'no', 'such', 'dir.jsonl')], {
        env: keyPairEnv(tmp.dir, recorder.url, empty.keys[0]),
      })
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toContain('--output')
      const dir = await run(['customers', 'export', '--output', out], {env: keyPairEnv(tmp.dir, recorder.url, empty.keys[0])})
      expect(dir.code, dir.stderr).toBe(2)
      expect(dir.stderr).toContain('is a directory')
      expect(recorder.requests).toHaveLength(0)
    } finally {
      await recorder.close()
    }
  })
})

describe('usage errors, before any request', () => {
  it('--json with --format csv and no --output; --search with v1; an unknown --format', async () => {
    const recorder = await startRecorder()
    try {
      const env = keyPairEnv(tmp.dir, recorder.url, empty.keys[0])
      const csvJson = await run(['customers', 'export', '--format', 'csv', '--json'], {env})
      expect(csvJson.code).toBe(2)
      expect(csvJson.json().error.message).toContain('--json without --output')
      const v1 = await run(['customers', 'export', '--search', 'x', '--api-version', 'v1'], {env})
      expect(v1.code).toBe(2)
      expect(v1.stderr).toContain('--search')
      const xml = await run(['orders', 'export', '--format', 'xml'], {env})
      expect(xml.code).toBe(2)
      expect(recorder.requests).toHaveLength(0)
    } finally {
      await recorder.close()
    }
  })
})

describe('orders export', () => {
  it('csv: the order columns, only the customer asked for', async () => {
    const token = await issueToken(onePage.baseUrl, onePage.keys[0])
    const post = (customer: number) =>
      fetch(`${onePage.baseUrl}/api/v2/orders`, {
        body: JSON.stringify({currency: 'USD', customer_id: customer, items: [{product_id: 1, quantity: 2}]}),
        headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID()},
        method: 'POST',
      }).then((res) => res.json() as Promise<{id: number}>)
    const mine = [await post(1), await post(1), await post(1)]
    await post(2)
    const r = await exportFrom(onePage, ['--format', 'csv', '--customer', '1'], 'orders')
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    // The known columns, then those the service sends besides (the sandbox's list has amount_refunded), and the unit.
    expect(lines[0]).toBe([...RESOURCE_COLUMNS.order, 'amount_refunded', 'money_unit'].join(','))
    expect(
      lines
        .slice(1)
        .map((l) => Number(l.split(',')[0]))
        .sort(),
    ).toEqual(mine.map((o) => o.id).sort())
    expect(lines.slice(1).every((l) => l.split(',')[1] === '1')).toBe(true)
  })

  it("an orders export imported back is refused, saying why: the service's list carries no items", async () => {
    const env = keyPairEnv(tmp.dir, onePage.baseUrl, onePage.keys[0])
    for (const format of ['csv', 'jsonl']) {
      const file = join(tmp.dir, `orders.${format}`)
      const exported = await run(['orders', 'export', '--format', format, '--output', file], {env})
      expect(exported.code, exported.stderr).toBe(0)
      const imported = await run(['orders', 'import', file], {env})
      expect(imported.code, format).toBe(2)
      expect(imported.stderr, format).toContain("an orders export has no items: the service's order list does not return them")
    }
  })
})
