/**
 * Scenarios, reset and snapshots: a seed file with references creates exactly what it names,
 * a file with one bad entry creates nothing, `start --seed`, reset keeps the catalogue and keys, and
 * snapshot save -> changes -> restore gives the saved state, while the sandbox runs.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {run, tempConfigDir} from '../helpers/cli.js'
import {killAllSessions, startInTmux} from '../helpers/tmux.js'
import {type Session, startSession} from '../helpers/webhooks-setup.js'
import {call, token} from '../helpers/sandbox-client.js'

const SCENARIO = join(import.meta.dirname, 'fixtures', 'scenario.json')

let session: Session
let t: string
beforeAll(async () => {
  session = await startSession()
  t = await token(session.sandbox)
})
afterAll(() => session.close())

const get = async (path: string) => (await call(session.sandbox, 'GET', path, {token: t})).body

describe('sandbox seed', () => {
  it('creates exactly what the file names, resolving ${name.id}; --json prints names -> ids', async () => {
    await session.cli(['sandbox', 'reset', '--yes'])
    const r = await session.cli(['sandbox', 'seed', SCENARIO, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const ids = r.json()
    expect(Object.keys(ids)).toEqual(['alice', 'bob', 'alice_first', 'bob_pending', 'alice_back', 'local'])
    expect(session.sandbox.counts()).toMatchObject({customers: 2, orders: 2, refunds: 1, webhooks: 1})
    expect(await get(`/api/v2/customers/${ids.alice}`)).toMatchObject({email: 'alice@example.com', status: 'invited', metadata: {plan: 'pro'}})
    expect(await get(`/api/v2/customers/${ids.bob}`)).toMatchObject({status: 'active'})
    const first = await get(`/api/v2/orders/${ids.alice_first}`)
    expect(first).toMatchObject({customer_id: ids.alice, status: 'paid', amount_refunded: 500, total: 1300})
    expect(first.refunds).toEqual([expect.objectContaining({id: ids.alice_back, amount: 500, reason: 'damaged'})])
    expect(await get(`/api/v2/orders/${ids.bob_pending}`)).toMatchObject({customer_id: ids.bob, status: 'pending', currency: 'EUR'})
    expect((await get('/api/v2/webhooks')).data).toEqual([expect.objectContaining({id: ids.local, events: ['order.paid', 'customer.created']})])
    // Without a terminal a reset needs --yes: exit 2, and nothing is removed.
    const unasked = await session.cli(['sandbox', 'reset'])
    expect(unasked.code).toBe(2)
    expect(unasked.stderr).toContain('--yes')
    expect(session.sandbox.counts()).toMatchObject({customers: 2, orders: 2})
    const human = await session.cli(['sandbox', 'reset', '--yes'])
    expect(human.stdout).toBe('Removed 2 customers, 2 orders, 1 refund and 1 webhook.\n')
  })

  it('a file with one bad entry creates nothing: exit 2 naming the entry and the field', async () => {
    await session.cli(['sandbox', 'reset', '--yes'])
    const dir = tempConfigDir()
    try {
      const bad = (mutate: (s: any) => void) => {
        const s = JSON.parse(JSON.stringify(require_(SCENARIO)))
        mutate(s)
        const path = join(dir.dir, `bad-${Math.random()}.json`)
        writeFileSync(path, JSON.stringify(s))
        return path
      }
      const cases: Array<[(s: any) => void, RegExp]> = [
        [(s) => (s.customers.bob.email = 'not-an-email'), /customers\.bob\.email/],
        [(s) => (s.orders.bob_pending.items[0].product_id = 999), /orders\.bob_pending\.items\.0\.product_id/],
        [(s) => (s.refunds.alice_back.amount = 999_999), /refunds\.alice_back\.amount/],
        [(s) => (s.orders.alice_first.customer_id = '${carol.id}'), /orders\.alice_first.*carol/],
        [(s) => (s.webhooks.local.events = ['order.nope']), /webhooks\.local\.events/],
        [(s) => (s.invoices = {}), /invoices/],
      ]
      for (const [mutate, message] of cases) {
        const r = await session.cli(['sandbox', 'seed', bad(mutate)])
        expect(r.code, r.stderr).toBe(2)
        expect(r.stderr).toMatch(message)
        expect(session.sandbox.counts()).toMatchObject({customers: 0, orders: 0, refunds: 0, webhooks: 0})
      }
      writeFileSync(join(dir.dir, 'broken.json'), '{"customers": ')
      expect((await session.cli(['sandbox', 'seed', join(dir.dir, 'broken.json')])).code).toBe(2)
    } finally {
      dir.cleanup()
    }
  })
})

describe('sandbox snapshot', () => {
  it('save -> changes -> restore gives the saved state while running; list shows it; unknown name exit 4', async () => {
    await session.cli(['sandbox', 'reset', '--yes'])
    const ids = (await session.cli(['sandbox', 'seed', SCENARIO, '--json'])).json()
    const saved = await session.cli(['sandbox', 'snapshot', 'save', 'seeded', '--json'])
    expect(saved.code, saved.stderr).toBe(0)
    expect(saved.json()).toMatchObject({name: 'seeded', customers: 2, orders: 2, refunds: 1, webhooks: 1})
    const said = await session.cli(['sandbox', 'snapshot', 'save', 'seeded'])
    expect(said.stdout).toMatch(/^Saved snapshot seeded: 2 customers, 2 orders, 1 refund and 1 webhook\.$/m)
    const before = {alice: await get(`/api/v2/customers/${ids.alice}`), order: await get(`/api/v2/orders/${ids.alice_first}`)}

    await session.cli(['customers', 'update', String(ids.alice), '--name', 'Changed'])
    await session.cli(['customers', 'delete', String(ids.bob), '--yes'])
    await session.cli(['customers', 'create', '--email', 'new@example.com', '--name', 'New'])
    expect(session.sandbox.counts().customers).toBe(2)

    expect((await session.cli(['sandbox', 'snapshot', 'restore', 'seeded'])).code).toBe(2) // --yes needed here
    expect(session.sandbox.counts().customers).toBe(2)
    const restored = await session.cli(['sandbox', 'snapshot', 'restore', 'seeded', '--yes'])
    expect(restored.code, restored.stderr).toBe(0)
    expect(restored.stdout).toMatch(/Restored snapshot seeded: 2 customers, 2 orders, 1 refund and 1 webhook\./)
    expect(await get(`/api/v2/customers/${ids.alice}`)).toEqual(before.alice)
    expect(await get(`/api/v2/orders/${ids.alice_first}`)).toEqual(before.order)
    expect((await call(session.sandbox, 'GET', `/api/v2/customers/${ids.bob}`, {token: t})).status).toBe(200)
    expect((await get('/api/v2/customers?q=new@example.com')).data).toEqual([])

    const list = await session.cli(['sandbox', 'snapshot', 'list', '--json'])
    expect(list.json()).toEqual([expect.objectContaining({name: 'seeded', customers: 2})])
    expect((await session.cli(['sandbox', 'snapshot', 'restore', 'nope', '--yes'])).code).toBe(4)
    expect((await session.cli(['sandbox', 'snapshot', 'save', '../x'])).code).toBe(2)
  })
})

describe('sandbox start --seed', () => {
  it('starts with the scenario applied; a bad scenario stops the start with nothing recorded', async () => {
    const config = tempConfigDir()
    const env = {COMMERCE_CONFIG_DIR: config.dir}
    try {
      const started = await run(['sandbox', 'start', '--detach', '--port', '0', '--in-memory', '--seed', SCENARIO, '--json'], {env})
      expect(started.code, started.stderr).toBe(0)
      const status = await run(['sandbox', 'status'], {env})
      expect(status.stdout).toMatch(/2 customers, 2 orders, 1 refund, 1 webhook/)
      await run(['sandbox', 'stop'], {env})
      writeFileSync(join(config.dir, 'bad.json'), JSON.stringify({customers: {x: {email: 'nope'}}}))
      const bad = await run(['sandbox', 'start', '--detach', '--port', '0', '--in-memory', '--seed', join(config.dir, 'bad.json')], {env})
      // As `sandbox seed` of the same file: validation_failed, exit 2.
      expect(bad.code).toBe(2)
      expect(bad.stderr).toMatch(/customers\.x\.email/)
      expect((await run(['sandbox', 'status'], {env})).code).toBe(1)
      expect((await run(['sandbox', 'start', '--seed', join(config.dir, 'missing.json')], {env})).code).toBe(2)
    } finally {
      await run(['sandbox', 'stop'], {env})
      config.cleanup()
    }
  })
})

function require_(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'))
}

describe('on a terminal, reset and restore ask first', () => {
  afterEach(() => killAllSessions())

  it('reset names what it would remove; no keeps everything (exit 1), yes removes it', async () => {
    await session.cli(['sandbox', 'reset', '--yes'])
    expect((await session.cli(['sandbox', 'seed', SCENARIO])).code).toBe(0)
    const no = await startInTmux(['sandbox', 'reset'], {env: session.env})
    expect(await no.answer('Remove 2 customers, 2 orders, 1 refund and 1 webhook from the local sandbox?', 'n')).toBe(1)
    expect(session.sandbox.counts()).toMatchObject({customers: 2, orders: 2})
    const yes = await startInTmux(['sandbox', 'reset'], {env: session.env})
    expect(await yes.answer('from the local sandbox?', 'y')).toBe(0)
    expect(session.sandbox.counts()).toMatchObject({customers: 0, orders: 0})
  })

  it('snapshot list is a table at 80 columns (when saved, relative); delete asks, --yes without a terminal, exit 4 unknown', async () => {
    expect((await session.cli(['sandbox', 'snapshot', 'save', 'to-delete'])).code).toBe(0)
    const list = await startInTmux(['sandbox', 'snapshot', 'list'], {env: {...session.env, NO_COLOR: '1'}, width: 80})
    expect(await list.waitForExit()).toBe(0)
    const screen = await list.capture()
    expect(screen).toMatch(/^NAME\s+SAVED_AT\s+CUSTOMERS\s+ORDERS\s+REFUNDS\s+WEBHOOKS$/m)
    expect(screen).toMatch(/^to-delete\s+(just now|\d+ seconds? ago)\s+\d+/m)
    expect(screen).not.toMatch(/\t|\d{4}-\d\d-\d\dT/)
    expect((await session.cli(['sandbox', 'snapshot', 'delete', 'to-delete'])).code).toBe(2) // --yes needed here
    const no = await startInTmux(['sandbox', 'snapshot', 'delete', 'to-delete'], {env: session.env})
    expect(await no.answer('Delete snapshot to-delete', 'n')).toBe(1)
    expect((await session.cli(['sandbox', 'snapshot', 'list', '--json'])).json()).toContainEqual(expect.objectContaining({name: 'to-delete'}))
    const yes = await session.cli(['sandbox', 'snapshot', 'delete', 'to-delete', '--yes'])
    expect([yes.code, yes.stderr]).toEqual([0, '✓ Deleted snapshot to-delete.\n'])
    expect((await session.cli(['sandbox', 'snapshot', 'list', '--json'])).json()).not.toContainEqual(expect.objectContaining({name: 'to-delete'}))
    const again = await session.cli(['sandbox', 'snapshot', 'delete', 'to-delete', '--yes'])
    expect([again.code, again.stderr]).toEqual([4, expect.stringContaining('No snapshot is named "to-delete"')])
  })

  it('restore checks the name before asking: an unknown one is exit 4 with no question', async () => {
    const term = await startInTmux(['sandbox', 'snapshot', 'restore', 'no-such-snapshot'], {env: session.env})
    expect(await term.waitForExit()).toBe(4)
    const screen = await term.capture()
    expect(screen).toContain('No snapshot is named "no-such-snapshot".')
    expect(screen).not.toContain('Replace')
  })
})
