import {copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeEach, describe, expect, test} from 'vitest'

import {importFile, type ImportFileResult} from '../../src/bulk/import.js'
import type {ImportRow} from '../../src/bulk/rows.js'
import {customerSender, type OnConflict, orderSender} from '../../src/bulk/senders.js'
import {Crash, FakeCustomers, FakeOrders} from '../helpers/fake-service.js'

const root = mkdtempSync(join(tmpdir(), 'bulk-resume-'))
afterAll(() => rmSync(root, {force: true, recursive: true}))

let dir: string
let n = 0
beforeEach(() => {
  dir = join(root, `case${n++}`)
})

const T0 = Date.parse('2025-03-01T12:00:00Z')
let clock = T0
const now = () => clock

function customersCsv(count: number): string {
  const file = join(root, `customers${n}.csv`)
  writeFileSync(file, ['email,name', ...Array.from({length: count}, (_, i) => `c${i + 1}@x.io,Customer ${i + 1}`)].join('\n'))
  return file
}

function ordersCsv(count: number): string {
  const file = join(root, `orders${n}.csv`)
  // Identical rows on purpose: each line is its own order.
  writeFileSync(file, ['customer_id,currency,items', ...Array.from({length: count}, () => '1,USD,7:2')].join('\n'))
  return file
}

function journalPath(): string {
  const [name] = readdirSync(join(dir, 'journals')).filter((f) => f.endsWith('.jsonl'))
  return join(dir, 'journals', name)
}

async function importCustomers(
  file: string,
  service: FakeCustomers,
  options: {onConflict?: OnConflict; signal?: AbortSignal; concurrency?: number; search?: boolean} = {},
) {
  return importFile<Extract<ImportRow, {kind: 'customers'}>>({
    baseUrl: 'http://sandbox',
    concurrency: options.concurrency ?? 4,
    file,
    format: 'csv',
    journalDir: join(dir, 'journals'),
    kind: 'customers',
    now,
    send: customerSender({api: service.api({search: options.search}), onConflict: options.onConflict ?? 'fail'}),
    signal: options.signal,
  })
}

async function importOrders(file: string, service: FakeOrders, options: {signal?: AbortSignal} = {}) {
  return importFile<Extract<ImportRow, {kind: 'orders'}>>({
    baseUrl: 'http://sandbox',
    file,
    format: 'csv',
    journalDir: join(dir, 'journals'),
    kind: 'orders',
    now,
    send: orderSender({api: service.api()}),
    signal: options.signal,
  })
}

function summary(r: ImportFileResult) {
  if (r.status !== 'done') throw new Error(`not done: ${r.status}`)
  const {created, updated, skipped, failed, invalid} = r.result
  return {created, failed, invalid, skipped, updated}
}

/** Runs an import that gets killed right after its `at`-th request: the journal is restored to what it held then. */
async function killedAt<T>(at: number, service: {crashAfter(n: number, f: () => void): void; heal(): void}, run: () => Promise<T>): Promise<void> {
  const snapshot = join(dir, 'journal-at-kill')
  service.crashAfter(at, () => copyFileSync(journalPath(), snapshot))
  await expect(run()).rejects.toBeInstanceOf(Crash)
  copyFileSync(snapshot, journalPath()) // what a kill -9 leaves: nothing written after that instant
  service.heal()
}

describe('customers import resumes after a kill', () => {
  test('every customer is created once, and the rows in flight at the kill count as created', async () => {
    const file = customersCsv(30)
    const service = new FakeCustomers(now)
    await killedAt(13, service, () => importCustomers(file, service))
    expect(service.customers.size).toBe(13)
    const journal = readFileSync(journalPath(), 'utf8')
    expect(journal).toMatch(/"started"/)
    const inDoubt = (journal.match(/"started"/g) ?? []).length - (journal.match(/"outcome"/g) ?? []).length
    expect(inDoubt).toBeGreaterThan(0) // some rows were in flight when the process died

    clock += 5000
    const callsBefore = service.creates
    const result = await importCustomers(file, service)
    expect(summary(result)).toEqual({created: 30, failed: 0, invalid: 0, skipped: 0, updated: 0})
    expect(service.customers.size).toBe(30)
    // Only the rows without a recorded outcome were sent again.
    expect(service.creates - callsBefore).toBe(30 - (13 - inDoubt))

    // A rerun of the finished import sends nothing and reports the same.
    const creates = service.creates
    const again = await importCustomers(file, service)
    expect(summary(again)).toEqual({created: 30, failed: 0, invalid: 0, skipped: 0, updated: 0})
    expect(again.status === 'done' && again.result.sent).toBe(0)
    expect(service.creates).toBe(creates)
  })

  test('a row in doubt whose email was taken before the import is a conflict, not "created"', async () => {
    const file = customersCsv(3)
    const service = new FakeCustomers(now)
    service.seed('c2@x.io', 'Old', T0 - 86_400_000)
    await killedAt(2, service, () => importCustomers(file, service, {concurrency: 1}))
    // Row 3 (c2@x.io) was sent and answered "taken", but the answer was never recorded.
    const result = await importCustomers(file, service, {concurrency: 1})
    expect(summary(result)).toEqual({created: 2, failed: 1, invalid: 0, skipped: 0, updated: 0})
  })

  test('without a way to look customers up (v1), a row in doubt whose email is taken counts as created', async () => {
    const file = customersCsv(5)
    const service = new FakeCustomers(now)
    await killedAt(3, service, () => importCustomers(file, service, {search: false}))
    const result = await importCustomers(file, service, {search: false})
    expect(summary(result)).toMatchObject({created: 5, failed: 0})
    expect(service.customers.size).toBe(5)
  })

  test('Ctrl-C stops taking rows, records those in flight, and the rerun sends only the rest', async () => {
    const file = customersCsv(20)
    const service = new FakeCustomers(now)
    const controller = new AbortController()
    const api = service.api()
    const first = await importFile<Extract<ImportRow, {kind: 'customers'}>>({
      baseUrl: 'http://sandbox',
      file,
      format: 'csv',
      journalDir: join(dir, 'journals'),
      kind: 'customers',
      now,
      onProgress: () => {
        if (service.creates === 6) controller.abort()
      },
      send: customerSender({api, onConflict: 'fail'}),
      signal: controller.signal,
    })
    expect(first.status === 'done' && first.result.interrupted).toBe(true)
    const done = summary(first).created
    expect(done).toBe(service.customers.size) // every request that was sent has its outcome recorded
    expect(done).toBeGreaterThanOrEqual(6)
    expect(done).toBeLessThan(20)
    const creates = service.creates
    const second = await importCustomers(file, service)
    expect(summary(second).created).toBe(20)
    expect(service.creates - creates).toBe(20 - done)
  })
})

describe('customers --on-conflict', () => {
  async function withTaken(onConflict: OnConflict) {
    const file = customersCsv(3)
    const service = new FakeCustomers(now)
    const old = service.seed('c2@x.io', 'Old name', T0 - 1000)
    const result = await importCustomers(file, service, {onConflict})
    return {old, result, service}
  }

  test('fail (the default): the row is failed with the reason, the others are created', async () => {
    const {old, result} = await withTaken('fail')
    expect(summary(result)).toEqual({created: 2, failed: 1, invalid: 0, skipped: 0, updated: 0})
    expect(old.name).toBe('Old name')
  })

  test('skip: the row is skipped, the customer untouched', async () => {
    const {old, result} = await withTaken('skip')
    expect(summary(result)).toEqual({created: 2, failed: 0, invalid: 0, skipped: 1, updated: 0})
    expect(old.name).toBe('Old name')
  })

  test('update: the existing customer gets the row by PATCH', async () => {
    const {old, result, service} = await withTaken('update')
    expect(summary(result)).toEqual({created: 2, failed: 0, invalid: 0, skipped: 0, updated: 1})
    expect(old.name).toBe('Customer 2')
    expect(service.updates).toBe(1)
  })

  test('update needs a way to find and update customers', () => {
    expect(() => customerSender({api: new FakeCustomers(now).api({search: false}), onConflict: 'update'})).toThrow(/findByEmail/)
  })

  test('failed rows are sent again on a rerun (here with another --on-conflict), done rows are not', async () => {
    const {result, service} = await withTaken('fail')
    expect(summary(result).failed).toBe(1)
    const creates = service.creates
    const rerun = await importCustomers(customersCsvSame(), service, {onConflict: 'skip'})
    expect(summary(rerun)).toEqual({created: 2, failed: 0, invalid: 0, skipped: 1, updated: 0})
    expect(service.creates - creates).toBe(1)
  })
})

/** The file of the test just run (same name, same content), for reruns. */
function customersCsvSame(): string {
  return join(root, `customers${n}.csv`)
}

describe('orders import resumes after a kill', () => {
  test('exactly one order per row, identical rows included', async () => {
    const file = ordersCsv(25)
    const service = new FakeOrders(now)
    await killedAt(11, service, () => importOrders(file, service))
    expect(service.orders).toHaveLength(11)
    const result = await importOrders(file, service)
    expect(summary(result)).toEqual({created: 25, failed: 0, invalid: 0, skipped: 0, updated: 0})
    expect(service.orders).toHaveLength(25)
    expect(new Set(service.orders.map((o) => o.key)).size).toBe(25)
    const calls = service.calls
    await importOrders(file, service)
    expect(service.calls).toBe(calls)
  })

  test('a row the service rejects is failed with its reason, and the rest go on', async () => {
    const file = join(root, `orders-bad${n}.csv`)
    writeFileSync(file, 'customer_id,currency,items\n1,USD,7\n999,USD,7\n2,USD,7\n')
    const service = new FakeOrders(now)
    const result = await importOrders(file, service)
    expect(summary(result)).toEqual({created: 2, failed: 1, invalid: 0, skipped: 0, updated: 0})
  })
})

test('a service error (not a row error) stops the import and is thrown; the rerun resumes', async () => {
  const file = customersCsv(10)
  const service = new FakeCustomers(now)
  const api = service.api()
  let calls = 0
  const failing = {
    ...api,
    create: async (body: Parameters<typeof api.create>[0]) => {
      if (++calls === 4) throw new Error('HTTP 503')
      return api.create(body)
    },
  }
  await expect(
    importFile<Extract<ImportRow, {kind: 'customers'}>>({
      baseUrl: 'http://sandbox',
      concurrency: 2,
      file,
      format: 'csv',
      journalDir: join(dir, 'journals'),
      kind: 'customers',
      now,
      send: customerSender({api: failing, onConflict: 'fail'}),
    }),
  ).rejects.toThrow('HTTP 503')
  expect(service.customers.size).toBeLessThan(10)
  const result = await importCustomers(file, service)
  expect(summary(result).created).toBe(10)
  expect(service.customers.size).toBe(10)
})

test('never more requests in flight than the concurrency', async () => {
  const file = customersCsv(40)
  let inFlight = 0
  let max = 0
  const result = await importFile<Extract<ImportRow, {kind: 'customers'}>>({
    baseUrl: 'http://sandbox',
    concurrency: 3,
    file,
    format: 'csv',
    journalDir: join(dir, 'journals'),
    kind: 'customers',
    send: async () => {
      max = Math.max(max, ++inFlight)
      for (let hops = Math.floor(Math.random() * 4); hops >= 0; hops--) await new Promise((r) => setImmediate(r))
      inFlight--
      return {outcome: 'created'}
    },
  })
  expect(summary(result).created).toBe(40)
  expect(max).toBe(3)
})
