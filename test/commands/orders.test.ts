/**
 * `commerce orders ...` run as processes against the sandbox: create (v2 with a generated or given
 * Idempotency-Key that replays, v1 without one, --item / --from-file / stdin), list, get, refund with --yes,
 * the sandbox's own order-creation limit (429 waited out, or exit 5), and every client-side validation error
 * refused before any request.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'

import {type Sandbox, startSandbox} from '../../src/sandbox/index.js'
// In this process, through the commands' seam (test/helpers/in-process.ts): none of these tests needs a process.
import {runInProcess as run} from '../helpers/in-process.js'
import {tempConfigDir} from '../helpers/cli.js'
import {useSandboxFixture} from '../helpers/sandbox-fixture.js'
import {startFaultyServer} from '../helpers/faulty-server.js'
import {type Key, issueToken, keyPairEnv, occurrences, requestsTo, startRecorder} from '../helpers/login.js'
import {startTestSandbox} from '../helpers/sandbox.js'
import {startIndependentService} from '../helpers/independent-service.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

// The test clock never moves by itself: a generous limit keeps order creation in this file unthrottled.
const fx = useSandboxFixture({orderLimit: {limit: 1000, windowSeconds: 60}})
let customerId: number

/** Creates a customer straight on a sandbox (not through the CLI). */
async function seedCustomer(baseUrl: string, key: Key, email: string): Promise<number> {
  const token = await issueToken(baseUrl, key)
  const res = await fetch(`${baseUrl}/api/v2/customers`, {
    body: JSON.stringify({email, name: 'Order Taker', send_invite: false}),
    headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
    method: 'POST',
  })
  return ((await res.json()) as {id: number}).id
}

beforeAll(async () => {
  customerId = await seedCustomer(fx.sb.baseUrl, fx.sb.keys[0], 'buyer@example.com')
})

const env = (extra: Record<string, string> = {}) => ({...keyPairEnv(fx.dir, fx.sb.baseUrl, fx.sb.keys[0]), ...extra})
const orders = (args: string[], extra: Record<string, string> = {}, input?: string) => run(['orders', ...args], {env: env(extra), input})

interface Order {
  id: number
  customer_id: number
  status: string
  total: number
  currency: string
  items: Array<{product_id: number; quantity: number; unit_price: number}>
  placed_at: string
  idempotency_key?: string
}

async function createOrder(extra: string[] = []): Promise<Order> {
  const r = await orders(['create', '--customer', String(customerId), '--currency', 'USD', '--item', '1:2', ...extra, '--json'])
  expect(r.code, r.stderr).toBe(0)
  return r.json<Order>()
}

/** Pays an order through the sandbox's control path (so that it can be refunded). */
async function pay(id: number): Promise<void> {
  const res = await fetch(`${fx.sb.baseUrl}/_sandbox/orders/${id}/pay`, {headers: {'content-type': 'application/json'}, method: 'POST'})
  expect(res.status).toBe(200)
  await res.arrayBuffer()
}

describe('orders create', () => {
  it('v2: a fresh UUID v4 Idempotency-Key, printed on stderr and carried in the JSON as idempotency_key', async () => {
    const before = fx.sb.counts().orders
    const r = await orders(['create', '--customer', String(customerId), '--currency', 'USD', '--item', '1:2', '--item', '3', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const order = r.json<Order>()
    expect(order).toMatchObject({currency: 'USD', customer_id: customerId, id: expect.any(Number), status: 'pending', total: expect.any(Number)})
    expect(order.items.map((i) => [i.product_id, i.quantity])).toEqual([
      [1, 2],
      [3, 1],
    ])
    expect(order.idempotency_key).toMatch(UUID)
    expect(r.stderr).toContain(`Idempotency-Key: ${order.idempotency_key}`)
    expect(fx.sb.counts().orders).toBe(before + 1)
  })

  it('the key is said after the order is made, in 80 columns; a request the service refuses does not mention it', async () => {
    const made = await orders(['create', '--customer', String(customerId), '--currency', 'USD', '--item', '1'])
    expect(made.code, made.stderr).toBe(0)
    expect(made.stderr).toMatch(/^Idempotency-Key: [0-9a-f-]{36}$/m)
    for (const line of made.stderr.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80)
    const refused = await orders(['create', '--customer', '99999999', '--currency', 'USD', '--item', '1'])
    expect(refused.code, refused.stderr).not.toBe(0)
    expect(refused.stderr).not.toMatch(/idempotency/i)
  })

  it('a rerun with --idempotency-key replays the original order instead of creating a second one', async () => {
    const first = await createOrder()
    const before = fx.sb.counts().orders
    const rerun = ['create', '--customer', String(customerId), '--currency', 'USD', '--item', '1:2', '--idempotency-key', first.idempotency_key!]
    const again = await orders([...rerun, '--json'])
    expect(again.code, again.stderr).toBe(0)
    // The same order, and the JSON says it was replayed (the first answer said it was not).
    const replayed = again.json<Order & {replayed: boolean}>()
    expect(replayed.replayed).toBe(true)
    expect({...replayed, replayed: false}).toEqual(first)
    expect(fx.sb.counts().orders).toBe(before)
    // A key given by the user is not announced as generated.
    expect(again.stderr).not.toContain('Idempotency-Key:')
    // For a person: not "Created", but what happened.
    const said = await orders(rerun)
    expect(said.code, said.stderr).toBe(0)
    expect(said.stderr).toContain(`Order ${first.id} was created earlier with this Idempotency-Key`)
    expect(said.stderr).not.toContain('Created order')
  })

  it('a replay from a service that does not say so (no Idempotent-Replayed header): an order placed well before the rerun is the earlier one', async () => {
    const s = await startIndependentService()
    try {
      const env = {
        COMMERCE_BASE_URL: s.url,
        COMMERCE_CONFIG_DIR: join(fx.dir, 'independent'),
        COMMERCE_KEY_ID: s.key.key_id,
        COMMERCE_KEY_SECRET: s.key.key_secret,
      }
      s.customers.set(1, {created_at: new Date().toISOString(), email: 'replay@example.com', id: 1, name: 'R', status: 'active'})
      const args = ['orders', 'create', '--customer', '1', '--currency', 'USD', '--item', '1', '--json']
      const first = await run(args, {env})
      expect(first.code, first.stderr).toBe(0)
      const made = first.json<Order & {idempotency_key: string; replayed: boolean}>()
      expect(made.replayed).toBe(false)
      // The rerun comes two minutes after the order was placed (the Ctrl-C, a coffee, the rerun).
      const order = s.orders.get(made.id)!
      s.orders.set(made.id, {...order, placed_at: new Date(Date.now() - 120_000).toISOString()})
      const again = await run([...args, '--idempotency-key', made.idempotency_key], {env})
      expect(again.code, again.stderr).toBe(0)
      expect(again.json<{id: number; replayed: boolean}>()).toMatchObject({id: made.id, replayed: true})
      expect(s.orders.size).toBe(1)
    } finally {
      await s.close()
    }
  })

  it('--from-file FILE and --from-file - (stdin); flags override the file', async () => {
    const file = join(fx.dir, 'order.json')
    const doc = {currency: 'EUR', customer_id: customerId, items: [{product_id: 2, quantity: 3}]}
    writeFileSync(file, JSON.stringify(doc))
    const [fromFile, fromStdin] = await Promise.all([
      orders(['create', '--from-file', file, '--json']),
      orders(['create', '--from-file', '-', '--currency', 'GBP', '--json'], {}, JSON.stringify(doc)),
    ])
    expect(fromFile.code, fromFile.stderr).toBe(0)
    expect(fromFile.json<Order>()).toMatchObject({currency: 'EUR', customer_id: customerId, items: [{product_id: 2, quantity: 3}]})
    expect(fromStdin.code, fromStdin.stderr).toBe(0)
    expect(fromStdin.json<Order>()).toMatchObject({currency: 'GBP', items: [{product_id: 2, quantity: 3}]})
  })

  it('on a pipe: field<TAB>value lines with items as compact JSON', async () => {
    const r = await orders(['create', '--customer', String(customerId), '--currency', 'USD', '--item', '1'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^id\t\d+$/)
    expect(lines).toContain('status\tpending')
    expect(lines.find((l) => l.startsWith('items\t'))).toMatch(/^items\t\[\{"product_id":1,"quantity":1,"unit_price":\d+\}\]$/)
    expect(lines.find((l) => l.startsWith('idempotency_key\t'))).toMatch(/^idempotency_key\t[0-9a-f-]{36}$/)
    for (const line of lines) expect(line.split('\t')).toHaveLength(2)
  })

  it('v1: no Idempotency-Key is sent, and the deprecation warning names the v2 command', async () => {
    fx.faulty = await startFaultyServer(() => ({forward: true}), {upstream: fx.sb.baseUrl})
    const r = await orders(['create', '--customer', String(customerId), '--currency', 'USD', '--item', '1', '--api-version', 'v1', '--json'], {
      COMMERCE_BASE_URL: fx.faulty.url,
    })
    expect(r.code, r.stderr).toBe(0)
    const order = r.json<Order>()
    expect(order.status).toBe('pending')
    expect(order.idempotency_key).toBeUndefined()
    const [post] = requestsTo(fx.faulty.requests, 'POST', '/api/v1/orders')
    expect(post.headers['idempotency-key']).toBeUndefined()
    expect(requestsTo(fx.faulty.requests, 'POST', '/api/v1/auth/tokens')).toHaveLength(1)
    expect(occurrences(r.stderr, 'deprecated')).toBe(1)
    expect(r.stderr).toContain('commerce orders create')
  })

  it('against a stopped sandbox: nothing was sent, so no Idempotency-Key hint, and the hint to start it', async () => {
    const dead = await startFaultyServer(() => ({drop: true}))
    await dead.close()
    // A token in the environment: no token request comes first, the order's POST is what is refused.
    const r = await orders(['create', '--customer', '1', '--currency', 'USD', '--item', '1'], {
      COMMERCE_ACCESS_TOKEN: 'tok_test',
      COMMERCE_BASE_URL: dead.url,
    })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('nothing was sent')
    expect(r.stderr).toContain('commerce sandbox start --detach')
    expect(r.stderr).not.toContain('may have been created')
    expect(r.stderr).not.toContain('--idempotency-key')
  })
})

describe('orders list / get / refund', () => {
  it('list on a pipe and as JSON, with --status and --customer filters', async () => {
    const other = await seedCustomer(fx.sb.baseUrl, fx.sb.keys[0], 'other@example.com')
    await orders(['create', '--customer', String(other), '--currency', 'GBP', '--item', '4', '--json'])
    const paid = await createOrder()
    await pay(paid.id)
    const [tsv, all, mine, paidOnly, v1] = await Promise.all([
      orders(['list']),
      orders(['list', '--all', '--per-page', '3', '--json']),
      orders(['list', '--customer', String(other), '--json']),
      orders(['list', '--status', 'paid', '--json']),
      orders(['list', '--api-version', 'v1', '--json']),
    ])
    for (const r of [tsv, all, mine, paidOnly, v1]) expect(r.code, r.stderr).toBe(0)
    const lines = tsv.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('id\tcustomer_id\tstatus\ttotal\tcurrency\tplaced_at')
    for (const line of lines) expect(line.split('\t')).toHaveLength(6)
    expect(all.json<Order[]>()).toHaveLength(fx.sb.counts().orders)
    expect(mine.json<Order[]>().map((o) => o.customer_id)).toEqual([other])
    expect(paidOnly.json<Order[]>().map((o) => o.id)).toContain(paid.id)
    expect(paidOnly.json<Order[]>().every((o) => o.status === 'paid')).toBe(true)
    expect(v1.stderr).toContain('deprecated')
  })

  it('get: the order with its items; an unknown id is exit 4', async () => {
    const order = await createOrder()
    const [got, missing] = await Promise.all([orders(['get', String(order.id), '--json']), orders(['get', '999999'])])
    expect(got.code, got.stderr).toBe(0)
    const {idempotency_key: _key, replayed: _replayed, ...expected} = order as Order & {idempotency_key?: string; replayed?: boolean}
    expect(got.json()).toMatchObject(expected)
    expect(missing.code).toBe(4)
    expect(missing.stderr).toContain('999999')
  })

  it('refund --yes --json prints the refund record; a full refund makes the order refunded', async () => {
    const order = await createOrder()
    await pay(order.id)
    const part = await orders(['refund', String(order.id), '--amount', '100', '--reason', 'damaged box', '--yes', '--json'])
    expect(part.code, part.stderr).toBe(0)
    expect(part.json()).toMatchObject({amount: 100, order_id: order.id, reason: 'damaged box'})
    const rest = await orders(['refund', String(order.id), '--yes', '--json'])
    expect(rest.code, rest.stderr).toBe(0)
    expect(rest.json()).toMatchObject({amount: order.total - 100, order_id: order.id})
    const after = await orders(['get', String(order.id), '--json'])
    expect(after.json<Order>().status).toBe('refunded')
  })

  it('refund of a pending order: refused by the check --yes runs too (exit 2, nothing sent)', async () => {
    const order = await createOrder()
    const before = fx.sb.counts().refunds
    const r = await orders(['refund', String(order.id), '--yes', '--json'])
    expect(r.code).toBe(2)
    // A state conflict, not a typo: a program tells them apart by the code (the same in commerce mcp).
    expect(r.json().error).toMatchObject({code: 'conflict', exit_code: 2})
    expect(r.json().error.message).toMatch(/is pending; only a paid or shipped order can be refunded/)
    await pay(order.id)
    const over = await orders(['refund', String(order.id), '--amount', String(order.total + 1), '--yes', '--json'])
    expect(over.json().error).toMatchObject({code: 'conflict', exit_code: 2})
    expect(fx.sb.counts().refunds).toBe(before)
  })

  it('refund without --yes and without a terminal: exit 2 naming --yes, nothing refunded', async () => {
    const order = await createOrder()
    await pay(order.id)
    const before = fx.sb.counts().refunds
    const r = await orders(['refund', String(order.id)])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--yes')
    expect(fx.sb.counts().refunds).toBe(before)
  })
})

describe('orders: invalid input is refused before any request (exit 2, the flag named)', () => {
  const KEY = '3f0c6a52-8f2e-4c1e-9b7a-0d7e3f1e2a11'
  const base = ['create', '--customer', '7', '--currency', 'USD']
  const cases: Array<[string, string[], string]> = [
    ['no item', base, '--item'],
    ['an item that is not PRODUCT_ID[:QUANTITY]', [...base, '--item', 'mug:2'], 'mug:2'],
    ['a zero quantity', [...base, '--item', '1:0'], '--item'],
    ['an Idempotency-Key that is not a UUID', [...base, '--item', '1', '--idempotency-key', 'not-a-uuid'], '--idempotency-key'],
    ['an unknown currency', ['create', '--customer', '7', '--currency', 'JPY', '--item', '1'], '--currency'],
    ['no customer', ['create', '--currency', 'USD', '--item', '1'], '--customer'],
    ['a non-integer customer', ['create', '--customer', 'seven', '--currency', 'USD', '--item', '1'], '--customer'],
    ['--idempotency-key with --api-version v1', [...base, '--item', '1', '--idempotency-key', KEY, '--api-version', 'v1'], '--idempotency-key'],
    ['an unknown status', ['list', '--status', 'lost'], '--status'],
    ['per_page 101', ['list', '--per-page', '101'], '--per-page'],
    ['page 0', ['list', '--page', '0'], '--page'],
    ['a non-integer order id', ['get', '12a'], 'ID'],
    ['a non-integer refund amount', ['refund', '1', '--amount', '1.5', '--yes'], '--amount'],
    [
      'a zero refund amount (named an amount, not an id)',
      ['refund', '1', '--amount', '0', '--yes'],
      "--amount: must be a positive integer, in the service's money unit",
    ],
    ['a v2-only command with --api-version v1', ['refund', '1', '--yes', '--api-version', 'v1'], '--api-version'],
  ]
  it.each(cases)('%s', async (_name, args, flag) => {
    fx.faulty = await startRecorder()
    const r = await orders(args, {COMMERCE_BASE_URL: fx.faulty.url})
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain(flag)
    expect(fx.faulty.requests).toHaveLength(0)
  })
})

describe("the sandbox's own order-creation limit (429 with Retry-After)", () => {
  it('--max-wait 0, or a Retry-After beyond --max-wait: exit 5 at once, saying when to retry; after the window it works', async () => {
    const limited = await startTestSandbox({orderLimit: {limit: 1, windowSeconds: 30}})
    try {
      const key = limited.keys[0]
      const customer = await seedCustomer(limited.baseUrl, key, 'limited@example.com')
      const create = (extra: string[]) =>
        run(['orders', 'create', '--customer', String(customer), '--currency', 'USD', '--item', '1', ...extra], {
          env: keyPairEnv(fx.dir, limited.baseUrl, key),
        })
      expect((await create(['--json'])).code).toBe(0)
      const started = Date.now()
      const [now, beyond] = await Promise.all([create(['--max-wait', '0', '--json']), create(['--max-wait', '10'])])
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(now.code).toBe(5)
      expect(now.json().error).toMatchObject({status: 429})
      expect(now.stderr).toMatch(/Try again after \d{4}-\d\d-\d\dT.*\(in 30 s\)/)
      expect(beyond.code).toBe(5)
      expect(beyond.stderr).toContain('30 s')
      expect(limited.counts().orders).toBe(1)
      limited.clock.advance(30_000)
      expect((await create(['--json'])).code).toBe(0)
      expect(limited.counts().orders).toBe(2)
    } finally {
      await limited.close()
    }
  })

  it('a 429 within --max-wait is waited out and the order is created once (real clock, 2 s window)', async () => {
    const real: Sandbox = await startSandbox({log: () => {}, orderLimit: {limit: 1, windowSeconds: 2}})
    try {
      const key = real.keys[0]
      const customer = await seedCustomer(real.baseUrl, key, 'waiter@example.com')
      // Use up the window straight away, then ask through the CLI: it must wait for Retry-After and retry.
      const token = await issueToken(real.baseUrl, key)
      const first = await fetch(`${real.baseUrl}/api/v2/orders`, {
        body: JSON.stringify({currency: 'USD', customer_id: customer, items: [{product_id: 1}]}),
        headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID()},
        method: 'POST',
      })
      expect(first.status).toBe(201)
      const r = await run(['orders', 'create', '--customer', String(customer), '--currency', 'USD', '--item', '1', '--json', '--debug'], {
        env: keyPairEnv(fx.dir, real.baseUrl, key),
      })
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toMatch(/< 429 /)
      expect(r.stderr).toMatch(/< 201 /)
      expect(real.counts().orders).toBe(2)
    } finally {
      await real.close()
    }
  })
})

describe('money under --json', () => {
  it("a single record that carries money says its unit: the profile's, unknown where the profile does not say", async () => {
    const order = await createOrder()
    expect((order as Order & {money_unit?: string}).money_unit).toBe('unknown')
    await pay(order.id)
    const got = await orders(['get', String(order.id), '--json'])
    expect(got.json()).toMatchObject({id: order.id, money_unit: 'unknown'})
    const refund = await orders(['refund', String(order.id), '--yes', '--json'])
    expect(refund.json()).toMatchObject({money_unit: 'unknown'})
    const product = await run(['products', 'get', '1', '--json'], {env: env()})
    expect(product.json()).toMatchObject({id: 1, money_unit: 'unknown'})
    // The profile's unit, when it has one (auth login --sandbox stores the sandbox's).
    const config = await run(['config', 'set', 'money_unit', 'minor'], {env: env()})
    expect(config.code, config.stderr).toBe(0)
    expect((await orders(['get', String(order.id), '--json'])).json()).toMatchObject({money_unit: 'minor'})
  })
})

describe('money says its unit on every surface', () => {
  it('orders list --json: each record says money_unit (as the profile states it), --jq reads it, --fields keeps it beside an amount', async () => {
    await createOrder()
    // A profile that does not say: unknown, still said.
    const unsaid = tempConfigDir()
    expect((await orders(['list', '--json'], {COMMERCE_CONFIG_DIR: unsaid.dir})).json<Array<{money_unit: string}>>()[0].money_unit).toBe('unknown')
    unsaid.cleanup()
    const said = tempConfigDir()
    const minor = {COMMERCE_CONFIG_DIR: said.dir}
    const set = await run(['config', 'set', 'money_unit', 'minor'], {env: env(minor)})
    expect(set.code, set.stderr).toBe(0)
    const list = await orders(['list', '--json'], minor)
    expect(list.code, list.stderr).toBe(0)
    const records = list.json<Array<Order & {money_unit: string}>>()
    expect(records.length).toBeGreaterThan(0)
    for (const record of records) expect(record.money_unit).toBe('minor')
    const jq = await orders(['list', '--json', '--jq', '[.[].money_unit] | unique'], minor)
    expect(jq.stdout.trim()).toBe('["minor"]')
    const fields = await orders(['list', '--json', '--fields', 'id,total'], minor)
    expect(Object.keys(fields.json<Array<Record<string, unknown>>>()[0])).toEqual(['id', 'total', 'money_unit'])
    const jsonl = await orders(['export', '--format', 'jsonl'], minor)
    expect(jsonl.code, jsonl.stderr).toBe(0)
    for (const line of jsonl.stdout.trim().split('\n')) expect((JSON.parse(line) as {money_unit: string}).money_unit).toBe('minor')
    said.cleanup()
    // Customers carry no money: no unit beside them.
    const customers = await run(['customers', 'list', '--json'], {env: env()})
    expect(customers.json<Array<Record<string, unknown>>>()[0]).not.toHaveProperty('money_unit')
  })

  it('orders export: every row says money_unit, in CSV the column of an empty export too; an import of such a file ignores it', async () => {
    await createOrder()
    const csv = await orders(['export', '--format', 'csv'])
    expect(csv.code, csv.stderr).toBe(0)
    const [header, first] = csv.stdout.split(/\r?\n/).map((line) => line.split(','))
    expect(header).toContain('money_unit')
    // The unit the list says, whatever this profile states.
    const listed = (await orders(['list', '--json'])).json<Array<{money_unit: string}>>()[0].money_unit
    expect(['minor', 'major', 'unknown']).toContain(listed)
    expect(first[header.indexOf('money_unit')]).toBe(listed)
    const none = await orders(['export', '--format', 'csv', '--status', 'refunded', '--customer', '99999'])
    expect(none.stdout.split(/\r?\n/)[0].split(',')).toContain('money_unit')
    const file = join(fx.dir, 'with-unit.jsonl')
    writeFileSync(file, `${JSON.stringify({currency: 'USD', customer_id: customerId, items: [{product_id: 1, quantity: 1}], money_unit: 'minor'})}\n`)
    const imported = await orders(['import', file, '--json'])
    expect(imported.code, imported.stderr).toBe(0)
  })
})
