/**
 * Imports that are cut short, run as processes against sandboxes on the real clock: `kill -9` mid-way then
 * the same command again (customers through a slow proxy, orders under a small order limit) leaves exactly the
 * right number of records; Ctrl-C stops with the summary so far and exit 130, and the rerun finishes; an
 * orders import paced by a 10-per-second limit creates exactly its orders.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setTimeout as delay} from 'node:timers/promises'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {type Sandbox, startSandbox} from '../../src/sandbox/index.js'
import {newKeyPairs} from '../../src/sandbox/seed.js'
import {BIN, ROOT, run, tempConfigDir} from '../helpers/cli.js'
import {type FaultyServer, startFaultyServer} from '../helpers/faulty-server.js'
import {issueToken, keyPairEnv} from '../helpers/login.js'

let tmp: {dir: string; cleanup: () => void}
const files = mkdtempSync(join(tmpdir(), 'commerce-resume-'))
const open: Array<{close(): Promise<void>}> = []
const children: ChildProcess[] = []

beforeAll(() => {
  tmp = tempConfigDir()
})
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  await Promise.all(open.splice(0).map((s) => s.close()))
})
afterAll(() => {
  tmp.cleanup()
  rmSync(files, {force: true, recursive: true})
})

async function sandbox(orderLimit = {limit: 1000, windowSeconds: 60}): Promise<Sandbox> {
  const sb = await startSandbox({log: () => {}, orderLimit})
  open.push(sb)
  return sb
}

/** The CLI as a child process whose end can be awaited (code or signal). */
function start(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: {HOME: tmpdir(), LANG: 'C.UTF-8', PATH: process.env.PATH ?? '', ...env},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  const ended = new Promise<{code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string}>((resolve) =>
    child.on('close', (code, signal) => resolve({code, signal, stderr, stdout})),
  )
  return {child, ended}
}

/** Polls until `condition` holds; fails when the child ended first or after `timeoutMs`. */
async function until(condition: () => boolean, child: ChildProcess, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (child.exitCode !== null) throw new Error('the import finished before it could be interrupted')
    if (Date.now() > deadline) throw new Error('timed out waiting for the import to make progress')
    await delay(5)
  }
}

async function seedCustomer(sb: Sandbox): Promise<number> {
  const token = await issueToken(sb.baseUrl, sb.keys[0])
  const res = await fetch(`${sb.baseUrl}/api/v2/customers`, {
    body: JSON.stringify({email: 'buyer@example.com', name: 'Buyer'}),
    headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
    method: 'POST',
  })
  return ((await res.json()) as {id: number}).id
}

async function listOrders(sb: Sandbox): Promise<Array<{id: number; placed_at: string}>> {
  const token = await issueToken(sb.baseUrl, sb.keys[0])
  const res = await fetch(`${sb.baseUrl}/api/v2/orders?per_page=100`, {headers: {authorization: `Bearer ${token}`}})
  return ((await res.json()) as {data: Array<{id: number; placed_at: string}>}).data
}

function ordersFile(name: string, customer: number, count: number): string {
  const path = join(files, name)
  // Identical rows on purpose: each line is its own order, and its own Idempotency-Key.
  writeFileSync(path, ['customer_id,currency,items', ...Array.from({length: count}, () => `${customer},USD,1:2`)].join('\n') + '\n')
  return path
}

describe('kill -9 mid-way, then the same command again', () => {
  it('customers: 300 rows, exactly 300 customers, none twice, the rerun reporting the rest as created and the others as already_done', async () => {
    const sb = await sandbox()
    // A slow network (40 ms per request) keeps the import running long enough to be killed mid-way.
    const proxy: FaultyServer = await startFaultyServer(
      async () => {
        await delay(40)
        return {forward: true}
      },
      {upstream: sb.baseUrl},
    )
    open.push(proxy)
    const file = join(files, 'customers.csv')
    writeFileSync(file, ['email,name', ...Array.from({length: 300}, (_, i) => `k${i + 1}@example.com,Kill ${i + 1}`)].join('\n') + '\n')
    const env = keyPairEnv(tmp.dir, proxy.url, sb.keys[0])

    const first = start(['customers', 'import', file, '--concurrency', '4'], env)
    await until(() => sb.counts().customers >= 40, first.child)
    // Meanwhile the same import in a second process is refused: it would send the same rows.
    const second = await run(['customers', 'import', file], {env})
    expect(second.code).toBe(1)
    expect(second.stderr).toContain('Another import of this file is running')
    first.child.kill('SIGKILL')
    expect((await first.ended).signal).toBe('SIGKILL')
    const atKill = sb.counts().customers
    expect(atKill).toBeLessThan(300)

    const again = await run(['customers', 'import', file, '--json'], {env, timeoutMs: 60_000})
    expect(again.code, again.stderr).toBe(0)
    // This run's counts: what the first run had journaled is already_done; the rest (rows in doubt too) created now.
    const summary = again.json<{created: number; already_done: number}>()
    expect(summary).toMatchObject({updated: 0, skipped: 0, failed: 0, invalid: 0})
    expect(summary.already_done).toBeGreaterThan(0)
    expect(summary.created + summary.already_done).toBe(300)
    expect(sb.counts().customers).toBe(300)
  }, 60_000)

  it('orders: 40 rows under a 10-per-second limit, exactly 40 orders', async () => {
    const sb = await sandbox({limit: 10, windowSeconds: 1})
    const customer = await seedCustomer(sb)
    const file = ordersFile('orders-kill.csv', customer, 40)
    const env = keyPairEnv(tmp.dir, sb.baseUrl, sb.keys[0])

    const first = start(['orders', 'import', file], env)
    await until(() => sb.counts().orders >= 12, first.child)
    first.child.kill('SIGKILL')
    await first.ended
    expect(sb.counts().orders).toBeLessThan(40)

    const again = await run(['orders', 'import', file, '--json'], {env, timeoutMs: 60_000})
    expect(again.code, again.stderr).toBe(0)
    const summary = again.json<{created: number; already_done: number}>()
    expect(summary).toMatchObject({updated: 0, skipped: 0, failed: 0, invalid: 0})
    expect(summary.already_done).toBeGreaterThan(0)
    expect(summary.created + summary.already_done).toBe(40)
    expect(sb.counts().orders).toBe(40)
  }, 60_000)
})

describe('Ctrl-C', () => {
  it('stops taking rows, prints the summary so far, exits 130; the rerun creates only the rest', async () => {
    const sb = await sandbox({limit: 10, windowSeconds: 1})
    const customer = await seedCustomer(sb)
    const file = ordersFile('orders-int.csv', customer, 30)
    const env = keyPairEnv(tmp.dir, sb.baseUrl, sb.keys[0])

    const first = start(['orders', 'import', file, '--json'], env)
    await until(() => sb.counts().orders >= 10, first.child)
    first.child.kill('SIGINT')
    const stopped = await first.ended
    expect(stopped.code, stopped.stderr).toBe(130)
    const summary = JSON.parse(stopped.stdout) as {created: number; failed: number}
    expect(summary.failed).toBe(0)
    expect(summary.created).toBe(sb.counts().orders) // every order that exists was journaled
    expect(summary.created).toBeLessThan(30)
    expect(stopped.stderr).toContain('Run the same command again to resume')

    // The rerun starts in the window the first run used up: its first requests are refused before any succeeds,
    // which must not teach the pacer a limit of one order per window.
    const again = await run(['orders', 'import', file, '--json'], {env, timeoutMs: 60_000})
    expect(again.code, again.stderr).toBe(0)
    expect(again.json()).toMatchObject({created: 30 - summary.created, failed: 0, already_done: summary.created})
    expect(sb.counts().orders).toBe(30)
    const placed = (await listOrders(sb))
      .filter((o) => o.id > summary.created)
      .map((o) => Date.parse(o.placed_at))
      .sort((a, b) => a - b)
    expect(placed.slice(1).some((t, i) => t - placed[i] < 500)).toBe(true)
  }, 60_000)
})

describe('Ctrl-C during an export to a file', () => {
  it('exit 130, and neither the file nor its temporary file is left', async () => {
    // 2,000 customers written straight into a data file the sandbox loads; 100 ms per page through a proxy.
    const dataFile = join(files, 'data.json')
    const customers = Array.from({length: 2000}, (_, i) => ({
      addresses: [],
      created_at: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
      email: `e${i}@example.com`,
      id: i + 1,
      metadata: {},
      name: `E ${i}`,
      status: 'active' as const,
    }))
    writeFileSync(
      dataFile,
      JSON.stringify({
        customers,
        idempotency: {},
        keys: newKeyPairs(),
        next: {address: 1, customer: 2001, order: 1, refund: 1},
        orders: [],
        version: 1,
        webhooks: [],
      }),
    )
    const sb = await startSandbox({dataFile, log: () => {}})
    open.push(sb)
    const proxy = await startFaultyServer(
      async () => {
        await delay(100)
        return {forward: true}
      },
      {upstream: sb.baseUrl},
    )
    open.push(proxy)
    const exportDir = mkdtempSync(join(files, 'export-'))
    const output = join(exportDir, 'customers.jsonl')

    const child = start(['customers', 'export', '--concurrency', '1', '--output', output], keyPairEnv(tmp.dir, proxy.url, sb.keys[0]))
    await until(() => proxy.requests.filter((r) => r.url.includes('page=')).length >= 3, child.child)
    child.child.kill('SIGINT')
    const ended = await child.ended
    expect(ended.code, ended.stderr).toBe(130)
    expect(readdirSync(exportDir)).toEqual([])
  }, 60_000)
})

describe('pacing', () => {
  it('30 orders against a limit of 10 per second: all 30 created, none refused for good', async () => {
    const sb = await sandbox({limit: 10, windowSeconds: 1})
    const customer = await seedCustomer(sb)
    const file = ordersFile('orders-paced.csv', customer, 30)
    const r = await run(['orders', 'import', file, '--json', '--concurrency', '8'], {
      env: keyPairEnv(tmp.dir, sb.baseUrl, sb.keys[0]),
      timeoutMs: 60_000,
    })
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual({created: 30, updated: 0, skipped: 0, failed: 0, invalid: 0, already_done: 0})
    expect(sb.counts().orders).toBe(30)
  }, 60_000)
})
