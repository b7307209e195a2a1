/**
 * Safe re-runs and previews (issue 48): `--dry-run` on every command that changes the account runs its checks and
 * sends nothing that changes anything (every request the CLI makes is recorded by a forwarding proxy in front of the
 * sandbox); `orders refund --expect-refunded` makes a re-run of a refunding job harmless; `orders create
 * --idempotency-name` derives the same key from the same text, so a re-run replays.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {run, tempConfigDir} from '../helpers/cli.js'
import {type FaultyServer, startFaultyServer} from '../helpers/faulty-server.js'
import {startIndependentService} from '../helpers/independent-service.js'
import {keyPairEnv} from '../helpers/login.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'

let sb: TestSandbox
let proxy: FaultyServer
let cfg: {dir: string; cleanup: () => void}
const env = () => keyPairEnv(cfg.dir, proxy.url, sb.keys[0])

beforeAll(async () => {
  sb = await startTestSandbox()
  proxy = await startFaultyServer(() => ({forward: true}), {upstream: sb.baseUrl})
  cfg = tempConfigDir()
})
afterAll(async () => {
  await proxy.close()
  await sb.close()
  cfg.cleanup()
})

/** Requests that would change the account, since `from` (the token request changes nothing). */
const writesSince = (from: number) => proxy.requests.slice(from).filter((r) => r.method !== 'GET' && !r.url.endsWith('/auth/tokens'))

async function created(args: string[]): Promise<{id: number}> {
  const r = await run([...args, '--json'], {env: env()})
  expect(r.code, r.stderr).toBe(0)
  return r.json()
}

async function paidOrder(): Promise<number> {
  const customer = await created([
    'customers',
    'create',
    '--email',
    `buyer-${Date.now()}-${Math.random()}@example.com`,
    '--name',
    'Buyer',
    '--no-send-invite',
  ])
  const order = await created(['orders', 'create', '--customer', String(customer.id), '--currency', 'USD', '--item', '1:2'])
  await fetch(`${sb.baseUrl}/_sandbox/orders/${order.id}/pay`, {headers: {'content-type': 'application/json'}, method: 'POST'})
  return order.id
}

describe('--dry-run', () => {
  it('every command that changes the account: its checks run, what would be sent is printed, no write is sent', async () => {
    const customer = await created(['customers', 'create', '--email', 'dry@example.com', '--name', 'Dry', '--no-send-invite'])
    const order = await paidOrder()
    const counts = sb.counts()
    const from = proxy.requests.length
    const cases: Array<[string[], string, RegExp]> = [
      [['customers', 'create', '--email', 'new@example.com', '--name', 'New'], 'POST', /\/api\/v2\/customers$/],
      [['customers', 'update', String(customer.id), '--name', 'Renamed'], 'PATCH', new RegExp(`/customers/${customer.id}$`)],
      [['customers', 'delete', String(customer.id)], 'DELETE', new RegExp(`/customers/${customer.id}$`)],
      [['orders', 'create', '--customer', String(customer.id), '--currency', 'USD', '--item', '1:1'], 'POST', /\/api\/v2\/orders$/],
      [['orders', 'refund', String(order), '--amount', '100'], 'POST', new RegExp(`/orders/${order}/refunds$`)],
      [['webhooks', 'create', '--url', 'https://hooks.example.com/x', '--event', 'order.paid'], 'POST', /\/api\/v2\/webhooks$/],
    ]
    for (const [args, method, url] of cases) {
      // No --yes and no terminal: a dry run asks nothing, so it needs none.
      const r = await run([...args, '--dry-run', '--json'], {env: env()})
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      const out = r.json<{dry_run: boolean; request: {method: string; url: string; headers: Record<string, string>; body: unknown}}>()
      expect(out.dry_run).toBe(true)
      expect(out.request.method, args.join(' ')).toBe(method)
      expect(out.request.url, args.join(' ')).toMatch(url)
      expect(JSON.stringify(out)).not.toMatch(/authorization|Bearer|sbx_secret/i)
    }
    expect(writesSince(from), 'a dry run sent a write').toEqual([])
    expect(sb.counts()).toEqual(counts)
    // The checks ran: the refund's and the delete's reads reached the service.
    expect(proxy.requests.slice(from).some((r) => r.method === 'GET' && r.url.endsWith(`/orders/${order}`))).toBe(true)
  })

  it('the checks a prompt runs decide a dry run too: a refund over what is left, a delete of no such customer', async () => {
    const order = await paidOrder()
    const over = await run(['orders', 'refund', String(order), '--amount', '999999', '--dry-run', '--json'], {env: env()})
    expect(over.code).toBe(2)
    expect(over.json().error.code).toBe('conflict')
    const missing = await run(['customers', 'delete', '999999', '--dry-run', '--json'], {env: env()})
    expect(missing.code).toBe(4)
    // On a terminal a person reads it in words.
    const words = await run(['customers', 'create', '--email', 'w@example.com', '--name', 'W', '--dry-run'], {env: env()})
    expect(words.stdout).toMatch(/^Dry run: nothing was sent\. It would send POST .*\/api\/v2\/customers/)
  })
})

describe('safe re-runs', () => {
  it('orders refund --expect-refunded: the first run refunds, a re-run refuses (precondition_failed) and sends no second refund', async () => {
    const order = await paidOrder()
    const args = ['orders', 'refund', String(order), '--amount', '300', '--expect-refunded', '0', '--yes', '--json']
    const first = await run(args, {env: env()})
    expect(first.code, first.stderr).toBe(0)
    const from = proxy.requests.length
    const again = await run(args, {env: env()})
    expect(again.code).toBe(2)
    expect(again.json().error).toMatchObject({code: 'precondition_failed', exit_code: 2})
    expect(again.json().error.message).toMatch(/has 300 refunded, not the 0/)
    expect(writesSince(from)).toEqual([])
    const got = await run(['orders', 'get', String(order), '--json'], {env: env()})
    expect(got.json().refunds).toHaveLength(1)
  })

  it('against a service that does not say what was refunded (the independent fake): --expect-refunded refuses, sending nothing', async () => {
    const s = await startIndependentService()
    const dir = tempConfigDir()
    try {
      const e = {COMMERCE_BASE_URL: s.url, COMMERCE_CONFIG_DIR: dir.dir, COMMERCE_KEY_ID: s.key.key_id, COMMERCE_KEY_SECRET: s.key.key_secret}
      s.customers.set(1, {created_at: new Date().toISOString(), email: 'fake@example.com', id: 1, name: 'F', status: 'active'})
      const made = await run(['orders', 'create', '--customer', '1', '--currency', 'USD', '--item', '1:1', '--json'], {env: e})
      expect(made.code, made.stderr).toBe(0)
      const id = made.json<{id: number}>().id
      s.pay(id)
      const r = await run(['orders', 'refund', String(id), '--expect-refunded', '0', '--yes', '--json'], {env: e})
      expect(r.code).toBe(2)
      expect(r.json().error).toMatchObject({code: 'precondition_failed'})
      expect(r.json().error.message).toMatch(/does not say how much of it has been refunded/)
      expect(s.refunds).toHaveLength(0)
      // Without the precondition the refund goes through, as before.
      expect((await run(['orders', 'refund', String(id), '--yes', '--json'], {env: e})).code).toBe(0)
      expect(s.refunds).toHaveLength(1)
    } finally {
      await s.close()
      dir.cleanup()
    }
  })

  it('orders create --idempotency-name: the same text gives the same key, so a re-run replays the order', async () => {
    const customer = await created(['customers', 'create', '--email', 'named@example.com', '--name', 'Named', '--no-send-invite'])
    const args = [
      'orders',
      'create',
      '--customer',
      String(customer.id),
      '--currency',
      'USD',
      '--item',
      '1:1',
      '--idempotency-name',
      'run-42/order',
      '--json',
    ]
    const first = await run(args, {env: env()})
    const second = await run(args, {env: env()})
    expect(first.code, first.stderr).toBe(0)
    const [a, b] = [
      first.json<{id: number; idempotency_key: string; replayed: boolean}>(),
      second.json<{id: number; idempotency_key: string; replayed: boolean}>(),
    ]
    expect(b.id).toBe(a.id)
    expect(b.idempotency_key).toBe(a.idempotency_key)
    expect(a.idempotency_key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(b.replayed).toBe(true)
  })
})
