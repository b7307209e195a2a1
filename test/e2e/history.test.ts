/**
 * `commerce history`: every change to the account, from any surface, recorded in the config directory, and an undo
 * that checks first; against the sandbox and against the independent fake (which answers a PATCH without applying
 * it, and a DELETE with 204): what is listed, what an undo sends, what it refuses, and what is never recorded.
 */
import {statSync, writeFileSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, run, tempConfigDir} from '../helpers/cli.js'
import {startIndependentService} from '../helpers/independent-service.js'
import {startTestSandbox} from '../helpers/sandbox.js'

interface Entry {
  entry: string
  run: string
  time: string
  surface: string
  method: string
  path: string
  status: number | 'unknown'
  record_id: number | string | null
  idempotency_key: string | null
  before: Record<string, unknown> | null
  after: Record<string, unknown> | null
  command: string
  undoes?: string
}

interface Target {
  env: Record<string, string>
  secret: string
  /** A paid order to refund, when the target can pay one. */
  paidOrder: number
  /** It applies a PATCH (the fake answers one without applying it). */
  patches: boolean
  /** Another client renames a customer (a PATCH through the CLI, or the fake's own store, which no PATCH changes). */
  rename(id: number, name: string): Promise<void>
  /** Method and path of every request it answered, in order. */
  seen(): string[]
  close(): Promise<void>
}

async function sandboxTarget(): Promise<Target> {
  const seen: string[] = []
  const sb = await startTestSandbox({onAnswer: (a) => void seen.push(`${a.method} ${a.path}`)})
  const ids = await sb.seed({
    customers: {ana: {email: 'ana@history.example.com', name: 'Ana'}},
    orders: {paid: {currency: 'USD', customer_id: '${ana.id}', items: [{product_id: 3, quantity: 2}], status: 'paid'}},
  })
  const {dir} = tempConfigDir()
  const key = sb.keys[0]
  const env = {COMMERCE_BASE_URL: sb.baseUrl, COMMERCE_CONFIG_DIR: dir, COMMERCE_KEY_ID: key.key_id, COMMERCE_KEY_SECRET: key.key_secret}
  return {
    close: () => sb.close(),
    env,
    paidOrder: ids.paid as number,
    patches: true,
    rename: async (id, name) =>
      void (await run(['customers', 'update', String(id), '--name', name, '--json'], {env: {...env, COMMERCE_NO_HISTORY: '1'}})),
    secret: key.key_secret,
    seen: () => seen,
  }
}

async function fakeTarget(): Promise<Target> {
  const fake = await startIndependentService()
  const {dir} = tempConfigDir()
  const env = {COMMERCE_BASE_URL: fake.url, COMMERCE_CONFIG_DIR: dir, COMMERCE_KEY_ID: fake.key.key_id, COMMERCE_KEY_SECRET: fake.key.key_secret}
  const made = await run(['customers', 'create', '--email', 'ana@history.example.com', '--name', 'Ana', '--no-send-invite', '--json'], {env})
  const order = await run(['orders', 'create', '--customer', String(made.json<{id: number}>().id), '--currency', 'USD', '--item', '3', '--json'], {
    env,
  })
  const id = order.json<{id: number}>().id
  fake.pay(id)
  return {
    close: () => fake.close(),
    env,
    paidOrder: id,
    patches: false,
    rename: async (customer, name) => void fake.customers.set(customer, {...fake.customers.get(customer)!, name}),
    secret: fake.key.key_secret,
    seen: () => fake.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`),
  }
}

const history = async (target: Target, args: string[] = []) => {
  const r = await run(['history', '--json', ...args], {env: target.env})
  expect(r.code, r.stderr).toBe(0)
  return r.json<Entry[]>()
}

/** An undo that meets a record changed since: exit 2, a conflict naming the field, and nothing but reads sent. */
const expectConflict = async (target: Target, entry: string) => {
  const before = target.seen().length
  const conflict = await run(['history', 'undo', entry, '--yes', '--json'], {env: target.env})
  expect(conflict.code).toBe(2)
  expect(conflict.json<{error: {code: string; message: string}}>().error).toMatchObject({
    code: 'conflict',
    message: expect.stringContaining('name'),
  })
  expect(
    target
      .seen()
      .slice(before)
      .filter((s) => !s.startsWith('GET')),
  ).toEqual([])
}

describe.each([
  ['sandbox', sandboxTarget],
  ['independent fake', fakeTarget],
])('commerce history against the %s', (_name, start) => {
  let target: Target
  let customer: number
  beforeAll(async () => {
    target = await start()
  }, 60_000)
  afterAll(async () => target?.close())

  it('lists a create, an update and a refund from the CLI and a create from MCP, newest first, with surface, method, path, record and time', async () => {
    const made = await run(
      ['customers', 'create', '--email', `h-${Date.now()}@history.example.com`, '--name', 'Before', '--no-send-invite', '--json'],
      {
        env: target.env,
      },
    )
    expect(made.code, made.stderr).toBe(0)
    customer = made.json<{id: number}>().id
    const updated = await run(['customers', 'update', String(customer), '--name', 'After', '--json'], {env: target.env})
    expect(updated.code, updated.stderr).toBe(0)
    const refunded = await run(['orders', 'refund', String(target.paidOrder), '--amount', '100', '--yes', '--json'], {env: target.env})
    expect(refunded.code, refunded.stderr).toBe(0)
    const transport = new StdioClientTransport({
      args: [BIN, 'mcp', '--allow-writes'],
      command: process.execPath,
      env: {HOME: target.env.COMMERCE_CONFIG_DIR, PATH: process.env.PATH ?? '', ...target.env},
      stderr: 'pipe',
    })
    const client = new Client({name: 'history-test', version: '1.0.0'})
    await client.connect(transport)
    const viaMcp = (await client.callTool({
      arguments: {email: `mcp-${Date.now()}@history.example.com`, name: 'Agent made', send_invite: false},
      name: 'customers_create',
    })) as {
      structuredContent?: {id?: number; customer?: {id: number}}
      isError?: boolean
    }
    expect(viaMcp.isError).toBeFalsy()
    // The agent can say what it did: the history tool lists its own call.
    const told = (await client.callTool({arguments: {surface: 'mcp'}, name: 'history'})) as unknown as {structuredContent: {entries: Entry[]}}
    expect(told.structuredContent.entries[0]).toMatchObject({method: 'POST', surface: 'mcp'})
    // Its undo, as the CLI decides it: a dry run says the DELETE it would send; an order's is not_undoable.
    const agentMade = told.structuredContent.entries[0].entry
    const dry = (await client.callTool({arguments: {dry_run: true, entry: agentMade}, name: 'history_undo'})) as unknown as {
      structuredContent: {dry_run?: boolean; sent?: boolean; request?: {method: string}}
    }
    expect(dry.structuredContent).toMatchObject({dry_run: true, request: {method: 'DELETE'}, sent: false})
    await client.close()

    const entries = await history(target)
    const [mcp, refund, update, create] = entries
    expect(mcp).toMatchObject({method: 'POST', path: '/api/v2/customers', status: 201, surface: 'mcp'})
    expect(mcp.command).toMatch(/^customers_create \{/)
    expect(refund).toMatchObject({method: 'POST', path: `/api/v2/orders/${target.paidOrder}/refunds`, status: 201, surface: 'cli'})
    expect(refund.before).toMatchObject({id: target.paidOrder})
    expect(update).toMatchObject({method: 'PATCH', path: `/api/v2/customers/${customer}`, record_id: customer, status: 200, surface: 'cli'})
    expect(update.before).toMatchObject({name: 'Before'})
    expect(update.command).toBe(`commerce customers update ${customer} --name After --json`)
    expect(create).toMatchObject({method: 'POST', path: '/api/v2/customers', record_id: customer, status: 201, surface: 'cli'})
    // Newest first; each a run of its own.
    const times = entries.map((e) => Date.parse(e.time))
    expect([...times].sort((a, b) => b - a)).toEqual(times)
    expect(new Set([mcp.run, refund.run, update.run, create.run]).size).toBe(4)
    expect((await history(target, ['--record', String(customer)])).map((e) => e.entry)).toEqual([update.entry, create.entry])
    expect((await history(target, ['--surface', 'mcp'])).map((e) => e.entry)).toEqual([mcp.entry])
  }, 60_000)

  it("an update's undo patches back what it changed, and is refused a second time; a record changed since is a conflict, nothing sent", async () => {
    const [update] = await history(target, ['--record', String(customer)])
    if (!target.patches) {
      // The fake answers a PATCH without applying it: the change changed nothing an undo could set back.
      const r = await run(['history', 'undo', update.entry, '--yes', '--json'], {env: target.env})
      expect(r.json<{error: {code: string}}>().error.code).toBe('not_undoable')
      return
    }
    const undo = await run(['history', 'undo', update.entry, '--yes', '--json'], {env: target.env})
    expect(undo.code, undo.stderr).toBe(0)
    expect(undo.json<{undone: Array<{entry: string; status: number}>}>().undone).toEqual([{entry: update.entry, status: 200}])
    const now = await run(['customers', 'get', String(customer), '--json'], {env: target.env})
    expect(now.json<{name: string}>().name).toBe('Before')
    // The undo is itself recorded, naming the entry it undid.
    const [undoEntry] = await history(target, ['--record', String(customer)])
    expect(undoEntry).toMatchObject({method: 'PATCH', surface: 'cli', undoes: update.entry})
    const again = await run(['history', 'undo', update.entry, '--yes', '--json'], {env: target.env})
    expect(again.code).toBe(2)
    expect(again.json<{error: {code: string; message: string}}>().error).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('Already undone'),
    })

    // Changed since: the undo of the undo (name back to After) meets a record someone renamed.
    await run(['customers', 'update', String(customer), '--name', 'Someone else', '--json'], {env: target.env})
    await expectConflict(target, undoEntry.entry)
  }, 60_000)

  it("an order's undo names what cannot be undone and sends nothing; a created customer's undo deletes it; a dry run records nothing", async () => {
    const order = await run(['orders', 'create', '--customer', String(customer), '--currency', 'USD', '--item', '3', '--json'], {env: target.env})
    expect(order.code, order.stderr).toBe(0)
    const [made] = await history(target)
    expect(made).toMatchObject({method: 'POST', path: '/api/v2/orders', status: 201})
    expect(made.idempotency_key).toMatch(/^[0-9a-f-]{36}$/)
    const sent = target.seen().length
    const plan = await run(['history', 'undo', made.entry, '--yes', '--json'], {env: target.env})
    expect(plan.code).toBe(1)
    const error = plan.json<{error: {code: string; message: string; hint: string}}>().error
    expect(error).toMatchObject({code: 'not_undoable', message: expect.stringContaining('An order cannot be deleted')})
    expect(error.hint).toBe(`Instead: commerce orders refund ${order.json<{id: number}>().id}`)
    expect(target.seen().slice(sent)).toEqual([])

    // A customer made and never touched since: its undo deletes it (a dry run first, which records nothing).
    const fresh = await run(
      ['customers', 'create', '--email', `undo-${Date.now()}@history.example.com`, '--name', 'Fresh', '--no-send-invite', '--json'],
      {
        env: target.env,
      },
    )
    const [created] = await history(target)
    const count = (await history(target)).length
    const dry = await run(['history', 'undo', created.entry, '--dry-run', '--json'], {env: target.env})
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.json()).toMatchObject({dry_run: true, request: {method: 'DELETE'}, sent: false})
    const dryDelete = await run(['customers', 'delete', String(fresh.json<{id: number}>().id), '--dry-run', '--json'], {env: target.env})
    expect(dryDelete.code, dryDelete.stderr).toBe(0)
    expect((await history(target)).length).toBe(count)
    // Renamed since by someone else: the undo of its creation is a conflict naming the field, and sends nothing.
    const freshId = fresh.json<{id: number}>().id
    await target.rename(freshId, 'Renamed elsewhere')
    await expectConflict(target, created.entry)
    await target.rename(freshId, 'Fresh')
    const undo = await run(['history', 'undo', created.entry, '--yes', '--json'], {env: target.env})
    expect(undo.code, undo.stderr).toBe(0)
    expect((await run(['customers', 'get', String(fresh.json<{id: number}>().id), '--json'], {env: target.env})).code).toBe(4)
  }, 60_000)

  it('the file is 0600 and holds no key secret and no token', async () => {
    const path = join(target.env.COMMERCE_CONFIG_DIR, 'history.jsonl')
    expect(statSync(path).mode & 0o777).toBe(0o600)
    const text = await readFile(path, 'utf8')
    expect(text).not.toContain(target.secret)
    expect(text).not.toMatch(/ind_tok_|sbx_tok|"access_token":"[^"]{8}/)
  })
})

describe('commerce history, concurrency and switches', () => {
  it('20 processes changing the account at once leave 20 whole entries; COMMERCE_NO_HISTORY=1 and `config set history off` leave none', async () => {
    const target = await sandboxTarget()
    try {
      const stamp = Date.now()
      const results = await Promise.all(
        Array.from({length: 20}, (_, i) =>
          run(['customers', 'create', '--email', `c${i}-${stamp}@history.example.com`, '--name', `C${i}`, '--no-send-invite', '--json'], {
            env: target.env,
            timeoutMs: 60_000,
          }),
        ),
      )
      for (const r of results) expect(r.code, r.stderr).toBe(0)
      const entries = await history(target)
      expect(entries).toHaveLength(20)
      expect(new Set(entries.map((e) => e.record_id)).size).toBe(20)
      const off = await run(['customers', 'create', '--email', `off-${stamp}@history.example.com`, '--name', 'Off', '--no-send-invite', '--json'], {
        env: {...target.env, COMMERCE_NO_HISTORY: '1'},
      })
      expect(off.code, off.stderr).toBe(0)
      expect(await history(target)).toHaveLength(20)
      expect((await run(['config', 'set', 'history', 'off'], {env: target.env})).code).toBe(0)
      await run(['customers', 'create', '--email', `cfg-${stamp}@history.example.com`, '--name', 'Cfg', '--no-send-invite', '--json'], {
        env: target.env,
      })
      expect(await history(target)).toHaveLength(20)
    } finally {
      await target.close()
    }
  }, 120_000)

  it('an import is one entry naming its journal and counts, not one a row; so is a fixtures run', async () => {
    const target = await sandboxTarget()
    try {
      const dir = target.env.COMMERCE_CONFIG_DIR
      const file = join(dir, 'people.csv')
      const stamp = Date.now()
      writeFileSync(file, `email,name,send_invite\n${[1, 2, 3].map((i) => `p${i}-${stamp}@history.example.com,P${i},false`).join('\n')}\n`)
      const imported = await run(['customers', 'import', file, '--json'], {env: target.env})
      expect(imported.code, imported.stderr).toBe(0)
      const fixtures = join(dir, 'fixtures.json')
      writeFileSync(fixtures, JSON.stringify({customers: {zed: {email: `zed-${stamp}@history.example.com`, name: 'Zed', send_invite: false}}}))
      const ran = await run(['fixtures', 'run', fixtures, '--json'], {env: target.env})
      expect(ran.code, ran.stderr).toBe(0)
      const [fixture, importRun] = await history(target)
      expect(await history(target)).toHaveLength(2)
      expect(importRun).toMatchObject({counts: {created: 3}, method: 'POST', path: '/api/v2/customers', status: 201, surface: 'import'})
      expect((importRun as Entry & {journal: string}).journal).toContain('journals')
      expect(fixture).toMatchObject({counts: {created: 1}, method: 'RUN', status: 201, surface: 'fixtures'})
      const undo = await run(['history', 'undo', fixture.entry, '--json'], {env: target.env})
      expect(undo.json<{error: {code: string; hint: string}}>().error).toMatchObject({
        code: 'not_undoable',
        hint: expect.stringContaining('commerce fixtures clean'),
      })
    } finally {
      await target.close()
    }
  }, 60_000)
})
