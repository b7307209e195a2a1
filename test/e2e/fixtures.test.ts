/**
 * `commerce fixtures run|list|clean` end to end, against two services: the sandbox (behind a recording proxy, so
 * every request the CLI sends is counted) and an independent fake written from the spec alone
 * (test/helpers/independent-service.ts), which decides the spec's gaps differently. The same tests run against
 * both: what passes depends on no sandbox decision.
 */
import {spawn} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {BIN, tempConfigDir} from '../helpers/cli.js'
import {type FaultyServer, type RecordedRequest, startFaultyServer} from '../helpers/faulty-server.js'
import {startIndependentService, type IndependentService} from '../helpers/independent-service.js'
import {runInProcess as run} from '../helpers/in-process.js'
import {call} from '../helpers/sandbox-client.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'

interface Sent {
  method: string
  path: string
  idempotencyKey?: string
}

/** One service under test, as the tests see it. */
interface Target {
  url: string
  key: {key_id: string; key_secret: string}
  /** API requests received so far (token issues left out). */
  sent(): Sent[]
  counts(): Promise<{customers: number; orders: number; webhooks: number}>
  pay(orderId: number): Promise<void>
  customerExists(id: number): Promise<boolean>
  orderStatus(id: number): Promise<string>
  /** Creates a customer outside the CLI (an email the file will clash with); returns its id and a function that deletes it. */
  occupy(email: string): Promise<{id: number; free: () => Promise<void>}>
  /** The customer's id now names someone else's record (an account reset or restored): its email changes. */
  reassign(customerId: number): Promise<void>
  /** A new access token of the account. */
  issueToken(): Promise<string>
  /** The next POST /api/v2/orders takes effect and is never answered; resolves when it has arrived. */
  holdNextOrder(): Promise<void>
  close(): Promise<void>
}

async function sandboxTarget(): Promise<Target> {
  // Its clock stands still, so its order-creation window never passes: a limit no test in this file reaches.
  const sb: TestSandbox = await startTestSandbox({orderLimit: {limit: 1000, windowSeconds: 60}})
  let hold: (() => void) | undefined
  let holding = false
  const proxy: FaultyServer = await startFaultyServer(
    async (req: RecordedRequest) => {
      if (holding && req.method === 'POST' && req.url === '/api/v2/orders') {
        holding = false
        const pick = ['authorization', 'content-type', 'idempotency-key'].map((h) => [h, String(req.headers[h])])
        await fetch(`${sb.baseUrl}${req.url}`, {body: req.body, headers: Object.fromEntries(pick), method: 'POST'})
        hold?.()
        return new Promise(() => {}) // took effect; its answer never comes back
      }
      return {forward: true}
    },
    {upstream: sb.baseUrl},
  )
  const token = async () => (await call(sb, 'POST', '/api/v2/auth/tokens', {json: sb.keys[0]})).body.access_token as string
  return {
    async close() {
      await proxy.close()
      await sb.close()
    },
    async counts() {
      const {customers, orders, webhooks} = sb.counts()
      return {customers, orders, webhooks}
    },
    customerExists: async (id) => (await call(sb, 'GET', `/api/v2/customers/${id}`, {token: await token()})).status === 200,
    holdNextOrder() {
      holding = true
      return new Promise((resolve) => (hold = resolve))
    },
    issueToken: token,
    key: sb.keys[0],
    async occupy(email) {
      const auth = {token: await token()}
      const c = await call(sb, 'POST', '/api/v2/customers', {...auth, json: {email, name: 'Squatter', send_invite: false}})
      return {free: async () => void (await call(sb, 'DELETE', `/api/v2/customers/${c.body.id}`, auth)), id: c.body.id as number}
    },
    async reassign(id) {
      const r = await call(sb, 'PATCH', `/api/v2/customers/${id}`, {json: {email: `someone-else-${id}@other.example`}, token: await token()})
      expect(r.status).toBe(200)
    },
    orderStatus: async (id) => (await call(sb, 'GET', `/api/v2/orders/${id}`, {token: await token()})).body.status,
    async pay(id) {
      expect((await call(sb, 'POST', `/_sandbox/orders/${id}/pay`, {json: {}})).status).toBe(200)
    },
    sent: () =>
      proxy.requests
        .filter((r) => !r.url.includes('/auth/tokens'))
        .map((r) => ({idempotencyKey: r.headers['idempotency-key'] as string | undefined, method: r.method, path: r.url})),
    url: proxy.url,
  }
}

async function independentTarget(): Promise<Target> {
  const s: IndependentService = await startIndependentService()
  return {
    close: () => s.close(),
    counts: async () => ({customers: s.customers.size, orders: s.orders.size, webhooks: s.webhooks.length}),
    customerExists: async (id) => s.customers.has(id),
    holdNextOrder() {
      let once = true
      s.hold((r) => r.method === 'POST' && r.path === '/api/v2/orders' && once && !(once = false))
      return s.held().then(() => {})
    },
    issueToken: async () => s.issueToken(),
    key: s.key,
    async occupy(email) {
      const id = 9000 + s.customers.size
      s.customers.set(id, {created_at: new Date().toISOString(), email, id, name: 'Squatter', status: 'active'})
      return {free: async () => void s.customers.delete(id), id}
    },
    async reassign(id) {
      s.customers.set(id, {...s.customers.get(id)!, email: `someone-else-${id}@other.example`, name: 'Someone Else'})
    },
    orderStatus: async (id) => s.orders.get(id)!.status,
    pay: async (id) => s.pay(id),
    sent: () => s.apiRequests().map((r) => ({idempotencyKey: r.headers['idempotency-key'] as string | undefined, method: r.method, path: r.path})),
    url: s.url,
  }
}

let fileCounter = 0

describe.each([
  ['the sandbox', sandboxTarget],
  ['an independent fake of the service', independentTarget],
])('fixtures against %s', (_, start) => {
  let target: Target
  let tmp: {dir: string; cleanup: () => void}
  beforeAll(async () => {
    target = await start()
  })
  afterAll(async () => {
    await target?.close()
  })
  let dir: string
  afterEach(() => tmp?.cleanup())

  const env = () => ({
    COMMERCE_BASE_URL: target.url,
    COMMERCE_CONFIG_DIR: dir,
    COMMERCE_KEY_ID: target.key.key_id,
    COMMERCE_KEY_SECRET: target.key.key_secret,
  })
  const fixtures = (args: string[]) => run(['fixtures', ...args], {env: env()})

  /** A fixtures file with emails unique to this test: two customers, an order of the first, a webhook endpoint. */
  function writeFile(extra: Record<string, unknown> = {}): string {
    tmp = tempConfigDir()
    dir = join(tmp.dir, 'config')
    const n = ++fileCounter
    const file = join(tmp.dir, 'fixtures.json')
    const doc = {
      customers: {
        alice: {email: `alice-${n}-${process.pid}@fixtures.example`, name: 'Alice Fixture', send_invite: false},
        bob: {email: `bob-${n}-${process.pid}@fixtures.example`, name: 'Bob for ${alice.name}', send_invite: false},
      },
      orders: {first: {currency: 'USD', customer_id: '${alice.id}', items: [{product_id: 1, quantity: 2}]}},
      webhooks: {hook: {events: ['order.shipped'], url: `https://hooks.example.invalid/fixtures/${n}`}},
      ...extra,
    }
    writeFileSync(file, JSON.stringify(doc, null, 2))
    return file
  }

  it('runs: prints each name with its id and record; a rerun reuses everything (GETs only); dry run and list', async () => {
    const file = writeFile()
    const before = await target.counts()
    const mark = target.sent().length
    const plan = await fixtures(['run', file, '--dry-run', '--json'])
    expect(plan.code, plan.stderr).toBe(0)
    expect(plan.json().steps.map((s: any) => `${s.name} ${s.method} ${s.path}`)).toEqual([
      'alice POST /api/v2/customers',
      'bob POST /api/v2/customers',
      'first POST /api/v2/orders',
      'hook POST /api/v2/webhooks',
    ])
    expect(target.sent()).toHaveLength(mark)

    const first = await fixtures(['run', file, '--json'])
    expect(first.code, first.stderr).toBe(0)
    const made = first.json()
    expect(Object.keys(made)).toEqual(['alice', 'bob', 'first', 'hook'])
    expect(made.first.record.customer_id).toBe(made.alice.id)
    expect(made.bob.record.name).toBe('Bob for Alice Fixture')
    expect(made.hook.record.signing_secret).toBeUndefined()
    expect(Object.values(made).every((r: any) => r.reused === false)).toBe(true)
    const after = await target.counts()
    expect(after).toEqual({customers: before.customers + 2, orders: before.orders + 1, webhooks: before.webhooks + 1})

    const sentBefore = target.sent().length
    const again = await fixtures(['run', file, '--json'])
    expect(again.code, again.stderr).toBe(0)
    expect(Object.values(again.json()).every((r: any) => r.reused === true)).toBe(true)
    expect(Object.fromEntries(Object.entries(again.json()).map(([n, r]: [string, any]) => [n, r.id]))).toEqual(
      Object.fromEntries(Object.entries(made).map(([n, r]: [string, any]) => [n, r.id])),
    )
    expect(await target.counts()).toEqual(after)
    expect(
      target
        .sent()
        .slice(sentBefore)
        .every((r) => r.method === 'GET'),
    ).toBe(true)

    const list = await fixtures(['list', '--json'])
    expect(list.code, list.stderr).toBe(0)
    expect(list.json()).toMatchObject([{cleaned: 'no', customers: 2, file, orders: 1, refunds: 0, webhooks: 1}])
    const ledger = readFileSync(join(dir, 'fixtures', `${list.json()[0].run}.jsonl`), 'utf8')
    expect(ledger).not.toMatch(/signing_secret|whsec/)
  })

  it('a bad file is exit 2 naming each entry and field, with nothing sent (order status is sandbox-only)', async () => {
    const file = writeFile({
      refunds: {back: {order_id: '${nobody.id}'}},
    })
    const doc = JSON.parse(readFileSync(file, 'utf8'))
    doc.customers.bob.email = 'not-an-email'
    doc.orders.first.status = 'paid'
    writeFileSync(file, JSON.stringify(doc))
    const mark = target.sent().length
    const r = await fixtures(['run', file])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('customers.bob.email')
    expect(r.stderr).toContain('orders.first.status')
    expect(r.stderr).toContain('sandbox-only')
    expect(r.stderr).toContain('refunds.back.order_id')
    expect(r.stderr).toContain('nothing was sent')
    const set = await fixtures(['run', file, '--set', 'ghost.name=x', '--json'])
    expect(set.code).toBe(2)
    expect(set.json().error.message).toContain('ghost')
    expect(target.sent()).toHaveLength(mark)
  })

  it('clean deletes the customers, refunds the paid order, reports the endpoint; a second clean sends nothing', async () => {
    const file = writeFile()
    const made = (await fixtures(['run', file, '--json'])).json()
    await target.pay(made.first.id)
    const unasked = await fixtures(['clean'])
    expect(unasked.code).toBe(2)
    expect(unasked.stderr).toContain('--yes')

    const plan = await fixtures(['clean', '--dry-run', '--json'])
    expect(plan.json().steps.map((s: any) => `${s.name} ${s.action}`)).toEqual(['hook report', 'first check', 'bob delete', 'alice delete'])
    const sentBefore = target.sent().length
    const r = await fixtures(['clean', '--yes', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const result = r.json()
    expect(result.undone.map((u: any) => `${u.name} ${u.outcome}`)).toEqual(['first refunded', 'bob deleted', 'alice deleted'])
    expect(result.left).toEqual([
      expect.objectContaining({id: made.hook.id, name: 'hook', reason: expect.stringContaining('no operation to delete')}),
    ])
    expect(result.failed).toEqual([])
    expect(await target.customerExists(made.alice.id)).toBe(false)
    expect(await target.customerExists(made.bob.id)).toBe(false)
    expect(await target.orderStatus(made.first.id)).toBe('refunded')
    expect(target.sent().length).toBeGreaterThan(sentBefore)

    const sentAfter = target.sent().length
    const second = await fixtures(['clean', '--yes', '--json'])
    expect(second.code, second.stderr).toBe(0)
    expect(second.json().undone).toHaveLength(3)
    expect(target.sent().length).toBe(sentAfter)
    expect((await fixtures(['list', '--json'])).json()[0].cleaned).toBe('yes')

    // The same file run after its clean is a new run: fresh records, not the undone ones.
    const rerun = (await fixtures(['run', file, '--json'])).json()
    expect(rerun.alice.reused).toBe(false)
    expect(rerun.alice.id).not.toBe(made.alice.id)
    expect(rerun.first.id).not.toBe(made.first.id)
  })

  it('a refusal in the middle (422) is exit 2 naming the entry; the ledger keeps what was made and a rerun finishes', async () => {
    const file = writeFile()
    const doc = JSON.parse(readFileSync(file, 'utf8'))
    doc.customers = {...doc.customers, carol: {email: `carol-${fileCounter}-${process.pid}@fixtures.example`, name: 'Carol'}}
    writeFileSync(file, JSON.stringify(doc))
    const {free} = await target.occupy(doc.customers.carol.email)
    const failed = await fixtures(['run', file])
    expect(failed.code).toBe(2)
    expect(failed.stderr).toContain('Entry customers.carol')
    expect(failed.stderr).toContain('run the same command again to finish')
    expect((await fixtures(['list', '--json'])).json()).toMatchObject([{customers: 2, orders: 0}])
    await free()
    const r = await fixtures(['run', file, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const made = r.json()
    expect([made.alice.reused, made.bob.reused, made.carol.reused, made.first.reused]).toEqual([true, true, false, false])
    expect((await fixtures(['list', '--json'])).json()).toMatchObject([{customers: 3, orders: 1, webhooks: 1}])

    // Its order was never paid: the clean leaves it, saying why, and still exits 0 (all that could be undone was).
    const cleaned = await fixtures(['clean', '--yes', '--json'])
    expect(cleaned.code, cleaned.stderr).toBe(0)
    expect(cleaned.json().left.map((l: any) => `${l.name}: ${l.reason}`)).toEqual([
      'hook: the API has no operation to delete a webhook endpoint: it stays registered',
      'first: pending: the API cannot cancel an order, and a pending one cannot be refunded',
    ])
    expect(await target.orderStatus(made.first.id)).toBe('pending')
  })

  it('a run killed (-9) while its order create is in flight, run again: complete, nothing twice', async () => {
    const file = writeFile()
    const before = await target.counts()
    const mark = target.sent().length
    const held = target.holdNextOrder()
    const child = spawn(process.execPath, [BIN, 'fixtures', 'run', file, '--json'], {env: {...env(), PATH: process.env.PATH}, stdio: 'ignore'})
    const exited = new Promise((resolve) => child.on('exit', resolve))
    await held
    child.kill('SIGKILL')
    await exited
    expect(await target.counts()).toMatchObject({customers: before.customers + 2, orders: before.orders + 1})

    const r = await fixtures(['run', file, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const made = r.json()
    expect(made.alice.reused && made.bob.reused).toBe(true)
    expect(made.hook.reused).toBe(false)
    expect(await target.counts()).toEqual({customers: before.customers + 2, orders: before.orders + 1, webhooks: before.webhooks + 1})
    const orderPosts = target
      .sent()
      .slice(mark)
      .filter((s) => s.method === 'POST' && s.path === '/api/v2/orders')
    expect(orderPosts).toHaveLength(2)
    expect(orderPosts[0].idempotencyKey).toBe(orderPosts[1].idempotencyKey)
  })

  it('a refused create (422: email taken by someone else) is never adopted: every rerun is refused alike; clean leaves that customer', async () => {
    const file = writeFile()
    const doc = JSON.parse(readFileSync(file, 'utf8'))
    doc.customers = {...doc.customers, carol: {email: `carol-${fileCounter}-${process.pid}@fixtures.example`, name: 'Carol'}}
    writeFileSync(file, JSON.stringify(doc))
    const squatter = await target.occupy(doc.customers.carol.email)
    for (let attempt = 0; attempt < 2; attempt++) {
      const r = await fixtures(['run', file])
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toContain('Entry customers.carol')
    }
    const list = (await fixtures(['list', '--json'])).json()
    expect(list).toMatchObject([{customers: 2}])
    const ledger = readFileSync(join(dir, 'fixtures', `${list[0].run}.jsonl`), 'utf8')
    expect(ledger).toContain('"refused":422')
    expect(ledger).not.toContain(`"id":${squatter.id},`)
    const cleaned = await fixtures(['clean', '--yes', '--json'])
    expect(cleaned.code, cleaned.stderr).toBe(0)
    expect(cleaned.json().undone.map((u: any) => u.name)).toEqual(['bob', 'alice'])
    expect(await target.customerExists(squatter.id)).toBe(true)
    await squatter.free()
  })

  it('ids that name someone else now (an account reset or restored) are neither reused nor deleted: the rerun says so and makes the entry again', async () => {
    const file = writeFile()
    const made = (await fixtures(['run', file, '--json'])).json()
    await target.reassign(made.alice.id)
    const again = await fixtures(['run', file, '--json'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain(`Entry customers.alice: ${made.alice.id} is no longer the record this run made (its email is now`)
    const rerun = again.json()
    expect(rerun.alice.reused).toBe(false)
    expect(rerun.alice.id).not.toBe(made.alice.id)
    expect(rerun.bob).toMatchObject({id: made.bob.id, reused: true})

    await target.reassign(made.bob.id)
    const cleaned = await fixtures(['clean', '--yes', '--json'])
    expect(cleaned.code, cleaned.stderr).toBe(0)
    const result = cleaned.json()
    expect(result.undone.map((u: any) => `${u.name} ${u.outcome}`)).toEqual(['alice deleted'])
    expect(result.left).toContainEqual(
      expect.objectContaining({
        id: made.bob.id,
        name: 'bob',
        reason: expect.stringContaining(`customer ${made.bob.id} is no longer the one this run made`),
      }),
    )
    expect(await target.customerExists(made.alice.id)).toBe(true)
    expect(await target.customerExists(made.bob.id)).toBe(true)
    expect(await target.customerExists(rerun.alice.id)).toBe(false)
  })

  it("an order whose customer id, currency and items match but whose customer is someone else's now (ids reused) is neither refunded by clean nor adopted by a rerun", async () => {
    const file = writeFile()
    const made = (await fixtures(['run', file, '--json'])).json()
    await target.pay(made.first.id)
    // A restored account: the customer at alice's id, and so the paid order of that id, are a stranger's.
    await target.reassign(made.alice.id)
    const again = await fixtures(['run', file, '--json'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain(
      `Entry orders.first: ${made.first.id} is no longer the record this run made (its customer ${made.alice.id} is not the one it was made for`,
    )
    const rerun = again.json()
    expect(rerun.first.reused).toBe(false)
    expect(rerun.first.id).not.toBe(made.first.id)

    const cleaned = await fixtures(['clean', '--yes', '--json'])
    expect(cleaned.code, cleaned.stderr).toBe(0)
    const result = cleaned.json()
    expect(result.undone.map((u: any) => `${u.name} ${u.outcome}`)).not.toContain('first refunded')
    expect(await target.orderStatus(made.first.id)).toBe('paid')
    expect(target.sent().filter((r) => r.method === 'POST' && r.path === `/api/v2/orders/${made.first.id}/refunds`)).toEqual([])
  })

  it('runs made with an access token alone are filed under that token: a clean with another token finds none and deletes nothing', async () => {
    const file = writeFile()
    const tokenEnv = async () => ({COMMERCE_ACCESS_TOKEN: await target.issueToken(), COMMERCE_BASE_URL: target.url, COMMERCE_CONFIG_DIR: dir})
    const mine = await tokenEnv()
    const made = await run(['fixtures', 'run', file, '--json'], {env: mine})
    expect(made.code, made.stderr).toBe(0)
    const theirs = await run(['fixtures', 'clean', '--yes'], {env: await tokenEnv()})
    expect(theirs.code).toBe(4)
    expect(theirs.stderr).toContain('No fixtures run recorded')
    expect(theirs.stderr).not.toContain(mine.COMMERCE_ACCESS_TOKEN)
    expect(await target.customerExists(made.json().alice.id)).toBe(true)
    const ours = await run(['fixtures', 'clean', '--yes', '--json'], {env: mine})
    expect(ours.code, ours.stderr).toBe(0)
    expect(await target.customerExists(made.json().alice.id)).toBe(false)
  })

  it('a reference to a field the made record lacks, found at send time: exit 2 naming it and what was made, never "nothing was sent"', async () => {
    const file = writeFile()
    const doc = JSON.parse(readFileSync(file, 'utf8'))
    doc.customers.bob.name = 'Bob for ${alice.nickname}'
    writeFileSync(file, JSON.stringify(doc))
    const r = await fixtures(['run', file])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('customers.bob.name refers to ${alice.nickname}')
    expect(r.stderr).not.toContain('nothing was sent')
    const alice = (await fixtures(['list', '--json'])).json()[0]
    expect(alice).toMatchObject({customers: 1})
    expect(r.stderr).toMatch(/Made before it, and recorded in run \w+: alice \(\d+\)/)
  })

  it('a ledger that cannot be read stops run and clean naming its file and line; nothing is created or deleted', async () => {
    const file = writeFile()
    const made = (await fixtures(['run', file, '--json'])).json()
    const runId = (await fixtures(['list', '--json'])).json()[0].run
    const path = join(dir, 'fixtures', `${runId}.jsonl`)
    const lines = readFileSync(path, 'utf8').split('\n')
    writeFileSync(path, ['{"run": damaged', ...lines.slice(1)].join('\n'))
    const before = await target.counts()
    const mark = target.sent().length
    for (const args of [['run', file], ['clean', '--yes'], ['list']]) {
      const r = await fixtures(args)
      expect(r.code, args.join(' ')).toBe(1)
      expect(r.stderr).toContain(`${path} cannot be read at line 1`)
    }
    expect(await target.counts()).toEqual(before)
    expect(target.sent().filter((s) => s.method !== 'GET')).toEqual(
      target
        .sent()
        .slice(0, mark)
        .filter((s) => s.method !== 'GET'),
    )
    expect(await target.customerExists(made.alice.id)).toBe(true)
  })
})

/** An independent fake of the service and a config directory for it, both gone when `work` ends. */
async function withIndependent(work: (s: IndependentService, env: Record<string, string>, dir: string) => Promise<void>): Promise<void> {
  const s = await startIndependentService()
  const tmp = tempConfigDir()
  try {
    const env = {
      COMMERCE_BASE_URL: s.url,
      COMMERCE_CONFIG_DIR: join(tmp.dir, 'config'),
      COMMERCE_KEY_ID: s.key.key_id,
      COMMERCE_KEY_SECRET: s.key.key_secret,
    }
    await work(s, env, tmp.dir)
  } finally {
    await s.close()
    tmp.cleanup()
  }
}

describe('fixtures: what the service recorded when it made an order', () => {
  it("an order at the same id with the same customer, currency and items but another placed_at is not the run's: not refunded", () =>
    withIndependent(async (s, env, dir) => {
      const file = join(dir, 'fixtures.json')
      writeFileSync(
        file,
        JSON.stringify({
          customers: {c: {email: 'placed-at@fixtures.example', name: 'C', send_invite: false}},
          orders: {o: {currency: 'USD', customer_id: '${c.id}', items: [{product_id: 1}]}},
        }),
      )
      const made = (await run(['fixtures', 'run', file, '--json'], {env})).json()
      // The database restored from a backup: the order at that id was placed by someone else, a day earlier, and paid.
      const order = s.orders.get(made.o.id)!
      s.orders.set(made.o.id, {...order, placed_at: new Date(Date.parse(order.placed_at) - 86_400_000).toISOString(), status: 'paid'})
      const cleaned = await run(['fixtures', 'clean', '--yes', '--json'], {env})
      expect(cleaned.code, cleaned.stderr).toBe(0)
      expect(cleaned.json().left).toContainEqual(
        expect.objectContaining({
          name: 'o',
          reason: expect.stringContaining(`order ${made.o.id} is no longer the one this run made (its placed_at is now`),
        }),
      )
      expect(s.orders.get(made.o.id)!.status).toBe('paid')
      expect(s.refunds).toEqual([])
    }))
})

describe('fixtures: two runs of one file at once', () => {
  it('the second says another fixtures command is working on the run; never that the ledger cannot be read', () =>
    withIndependent(async (s, env, dir) => {
      for (let round = 0; round < 3; round++) {
        const file = join(dir, `fixtures-${round}.json`)
        writeFileSync(file, JSON.stringify({customers: {c: {email: `twice-${round}@fixtures.example`, name: 'C', send_invite: false}}}))
        const runs = await Promise.all(Array.from({length: 4}, () => spawnRun(['fixtures', 'run', file], {...env, PATH: process.env.PATH ?? ''})))
        expect(runs.filter((r) => r.code === 0).length, runs.map((r) => r.stderr).join('\n')).toBeGreaterThan(0)
        for (const r of runs) {
          expect(r.stderr).not.toContain('cannot be read')
          if (r.code !== 0) expect(r.stderr).toMatch(/Another fixtures command is working on run \w+/)
        }
        expect([...s.customers.values()].filter((c) => c.email === `twice-${round}@fixtures.example`)).toHaveLength(1)
      }
      // The moment between a ledger's creation and its header, as an older release left it: an empty file is a run
      // that has recorded nothing yet, not a damaged one.
      const file = join(dir, 'fixtures-empty.json')
      writeFileSync(file, JSON.stringify({customers: {c: {email: 'empty-ledger@fixtures.example', name: 'C', send_invite: false}}}))
      const planned = await run(['fixtures', 'run', file, '--dry-run', '--json'], {env})
      expect(planned.code, planned.stderr).toBe(0)
      writeFileSync(join(dir, 'config', 'fixtures', `${planned.json().run}.jsonl`), '')
      const listed = await run(['fixtures', 'list'], {env})
      expect(listed.code, listed.stderr).toBe(0)
      const made = await run(['fixtures', 'run', file, '--json'], {env})
      expect(made.code, made.stderr).toBe(0)
      expect(made.json().c.reused).toBe(false)
    }))
})

/** The built CLI as a process, its output collected. */
function spawnRun(args: string[], env: NodeJS.ProcessEnv): Promise<{code: number | null; stderr: string}> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {env, stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('close', (code) => resolve({code, stderr}))
  })
}

describe('fixtures: a refund that may have been made', () => {
  it('is never sent again on a guess: exit 1 saying how to check; --refund-made records it without sending', async () => {
    const s = await startIndependentService()
    const tmp = tempConfigDir()
    try {
      const file = join(tmp.dir, 'fixtures.json')
      writeFileSync(
        file,
        JSON.stringify({
          customers: {c: {email: 'refund-doubt@fixtures.example', name: 'C'}},
          orders: {o: {currency: 'USD', customer_id: '${c.id}', items: [{product_id: 1}]}},
          refunds: {r: {order_id: '${o.id}'}},
        }),
      )
      const env = {
        COMMERCE_BASE_URL: s.url,
        COMMERCE_CONFIG_DIR: join(tmp.dir, 'config'),
        COMMERCE_KEY_ID: s.key.key_id,
        COMMERCE_KEY_SECRET: s.key.key_secret,
      }
      s.hold((r) => r.method === 'POST' && r.path.endsWith('/refunds'))
      const child = spawn(process.execPath, [BIN, 'fixtures', 'run', file], {env: {...env, PATH: process.env.PATH}, stdio: 'ignore'})
      const exited = new Promise((resolve) => child.on('exit', resolve))
      await s.held()
      child.kill('SIGKILL')
      await exited
      s.hold(() => false)
      const r = await run(['fixtures', 'run', file], {env})
      expect(r.code).toBe(1)
      expect(r.stderr).toContain('Entry refunds.r: an earlier run sent this refund and stopped before its answer')
      expect(r.stderr).toMatch(/commerce orders get \d+/)
      expect(r.stderr).toContain('--refund-made r')
      const refundPosts = () => s.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/refunds'))
      expect(refundPosts()).toHaveLength(1)
      // A person checked: told it was made, the run records it without sending and completes.
      expect((await run(['fixtures', 'run', file, '--refund-made', 'nope'], {env})).code).toBe(2)
      const made = await run(['fixtures', 'run', file, '--refund-made', 'r', '--json'], {env})
      expect(made.code, made.stderr).toBe(0)
      expect(made.json().r).toMatchObject({reused: true})
      expect(refundPosts()).toHaveLength(1)
    } finally {
      await s.close()
      tmp.cleanup()
    }
  })
})

describe('fixtures clean: what fails', () => {
  it('an unknown run is exit 4; a delete the service refuses is left failed (exit 1) and the next clean retries it', async () => {
    const sb = await startTestSandbox()
    const tmp = tempConfigDir()
    try {
      const env = {
        COMMERCE_BASE_URL: sb.baseUrl,
        COMMERCE_CONFIG_DIR: join(tmp.dir, 'config'),
        COMMERCE_KEY_ID: sb.keys[0].key_id,
        COMMERCE_KEY_SECRET: sb.keys[0].key_secret,
      }
      const file = join(tmp.dir, 'fixtures.json')
      writeFileSync(
        file,
        JSON.stringify({customers: {a: {email: 'fails@fixtures.example', name: 'A'}, b: {email: 'fails-b@fixtures.example', name: 'B'}}}),
      )
      expect((await run(['fixtures', 'clean', '--yes'], {env})).code).toBe(4)
      const made = (await run(['fixtures', 'run', file, '--json'], {env})).json()
      expect((await run(['fixtures', 'clean', 'nosuchrun', '--yes'], {env})).code).toBe(4)

      // The first DELETE (b, newest first) is refused once.
      await call(sb, 'POST', '/_sandbox/faults', {json: {count: 1, method: 'DELETE', path: '/api/v2/customers/*', status: 400}})
      const first = await run(['fixtures', 'clean', '--yes', '--json'], {env})
      expect(first.code).toBe(1)
      expect(first.json().failed).toEqual([expect.objectContaining({id: made.b.id, name: 'b'})])
      expect(first.json().undone).toEqual([expect.objectContaining({id: made.a.id, outcome: 'deleted'})])
      expect((await run(['fixtures', 'list', '--json'], {env})).json()[0].cleaned).toBe('partly')

      const second = await run(['fixtures', 'clean', '--yes', '--json'], {env})
      expect(second.code, second.stderr).toBe(0)
      expect(
        second
          .json()
          .undone.map((u: any) => `${u.name} ${u.outcome}`)
          .sort(),
      ).toEqual(['a deleted', 'b deleted'])
      expect((await run(['fixtures', 'list', '--json'], {env})).json()[0].cleaned).toBe('yes')
    } finally {
      await sb.close()
      tmp.cleanup()
    }
  })
})
