import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {startSandbox} from '../../src/sandbox/index.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'
import {call, createCustomer, createOrder, token} from '../helpers/sandbox-client.js'
import {recordAnswer} from '../helpers/openapi-check.js'

const SERVE = join(import.meta.dirname, 'fixtures', 'serve.ts')

function post(baseUrl: string, path: string, body: unknown, tok?: string): Promise<Response> {
  const headers: Record<string, string> = {'content-type': 'application/json'}
  if (tok) headers.authorization = `Bearer ${tok}`
  return fetch(baseUrl + path, {body: JSON.stringify(body), headers, method: 'POST', signal: AbortSignal.timeout(10_000)})
}

let dir: string
let dataFile: string
const open: TestSandbox[] = []
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-data-'))
  dataFile = join(dir, 'nested', 'sandbox-data.json')
})
afterEach(async () => {
  await Promise.all(open.splice(0).map((sb) => sb.close()))
  rmSync(dir, {force: true, recursive: true})
})

async function start(options: Parameters<typeof startTestSandbox>[0] = {}): Promise<TestSandbox> {
  const sb = await startTestSandbox({dataFile, ...options})
  open.push(sb)
  return sb
}

describe('data file', () => {
  it('keeps keys, customers, orders, refunds, webhooks (with secrets) and idempotency keys across close/start', async () => {
    const first = await start()
    const t = await token(first)
    await createCustomer(first, t, 'ada@example.com', {send_invite: false, metadata: {plan: 'pro'}})
    await createCustomer(first, t, 'bob@example.com')
    await call(first, 'DELETE', '/api/v2/customers/2', {token: t})
    const key = crypto.randomUUID()
    const body = {customer_id: 1, currency: 'GBP', items: [{product_id: 16, quantity: 2}]}
    const order = await createOrder(first, t, body, key)
    await call(first, 'POST', '/_sandbox/orders/1/pay')
    await call(first, 'POST', '/api/v2/orders/1/refunds', {json: {amount: 100, reason: 'late'}, token: t})
    const hook = (await call(first, 'POST', '/api/v2/webhooks', {json: {url: 'https://h.example.com/x', events: ['order.paid']}, token: t})).body
    await first.close()

    const mode = statSync(dataFile).mode & 0o777
    expect(mode).toBe(0o600)
    expect(readdirSync(join(dir, 'nested'))).toEqual(['sandbox-data.json'])
    expect(readFileSync(dataFile, 'utf8')).toContain(hook.signing_secret)

    const second = await start()
    expect(second.keys).toEqual(first.keys)
    const t2 = await token(second)
    expect(second.counts()).toMatchObject({customers: 1, orders: 1, refunds: 1, webhooks: 1})
    expect((await call(second, 'GET', '/api/v2/customers/1', {token: t2})).body).toMatchObject({email: 'ada@example.com', metadata: {plan: 'pro'}})
    expect((await call(second, 'GET', '/api/v2/customers?status=active', {token: t2})).body.meta.total).toBe(1)
    expect((await call(second, 'GET', '/api/v2/orders/1', {token: t2})).body).toMatchObject({status: 'paid', amount_refunded: 100})
    expect((await call(second, 'GET', '/api/v2/orders?status=paid&customer_id=1', {token: t2})).body.meta.total).toBe(1)
    const replay = await createOrder(second, t2, body, key)
    expect(replay.status).toBe(201)
    expect(replay.text).toBe(order.text)
    expect((await createCustomer(second, t2, 'carol@example.com')).body.id).toBe(3)
    expect((await createCustomer(second, t2, 'bob@example.com')).status).toBe(201)
    expect((await createCustomer(second, t2, 'ada@example.com')).status).toBe(422)
    const hooks = (await call(second, 'GET', '/api/v2/webhooks', {token: t2})).body.data
    expect(hooks).toEqual([{id: hook.id, url: hook.url, events: hook.events, created_at: hook.created_at}])
    expect((await call(second, 'POST', '/api/v2/orders/1/refunds', {token: t2})).body.id).toBe(2)
  })

  it('tokens do not survive a restart (401), the key pairs do', async () => {
    const first = await start()
    const t = await token(first)
    await first.close()
    const second = await start()
    expect((await call(second, 'GET', '/api/v2/customers', {token: t})).status).toBe(401)
    expect((await call(second, 'GET', '/api/v2/customers', {token: await token(second)})).status).toBe(200)
  })

  it('an answered write is already on disk (in the journal) when the answer arrives', async () => {
    const sb = await start()
    const created = await createCustomer(sb, await token(sb), 'ada@example.com')
    expect(created.status).toBe(201)
    expect(readFileSync(`${dataFile}.journal`, 'utf8')).toContain('ada@example.com')
    expect(statSync(`${dataFile}.journal`).mode & 0o777).toBe(0o600)
  })

  it('after kill -9 no customer answered 201 is lost and no answered id is handed out again (3 rounds)', async () => {
    const answered = new Map<number, string>()
    let serial = 0
    for (let round = 0; round < 3; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', SERVE, dataFile], {stdio: ['ignore', 'pipe', 'inherit']})
      try {
        const [line] = (await once(createInterface({input: child.stdout}), 'line')) as [string]
        const {base_url: baseUrl, keys} = JSON.parse(line) as {base_url: string; keys: Array<{key_id: string; key_secret: string}>}
        const tok = ((await (await post(baseUrl, '/api/v2/auth/tokens', keys[0])).json()) as {access_token: string}).access_token
        // Eight writers in parallel; kill -9 once 40 creations are answered in this round, with writes in flight.
        let answeredThisRound = 0
        let killed = false
        const writer = async () => {
          while (!killed && serial < 5_000) {
            const email = `k${serial++}@example.com`
            const res = await post(baseUrl, '/api/v2/customers', {email, name: 'K', send_invite: false}, tok).catch(() => undefined)
            if (res?.status !== 201) continue
            const id = ((await res.json().catch(() => ({}))) as {id?: number}).id
            if (id === undefined) continue
            answered.set(id, email)
            if (++answeredThisRound >= 40 && !killed) {
              killed = true
              child.kill('SIGKILL')
            }
          }
        }
        await Promise.all(Array.from({length: 8}, writer))
        if (child.exitCode === null && child.signalCode === null) await once(child, 'exit')
      } finally {
        child.kill('SIGKILL')
      }
    }
    const sb = await start()
    const t = await token(sb)
    for (const [id, email] of answered) expect((await call(sb, 'GET', `/api/v2/customers/${id}`, {token: t})).body?.email).toBe(email)
    const fresh = await createCustomer(sb, t, 'after@example.com')
    expect(fresh.body.id).toBeGreaterThan(Math.max(...answered.keys()))
  }, 60_000)

  it('removes temp files a killed process left beside the data file at start, keeping other files', async () => {
    await (await start()).close()
    const stale = [`.sandbox-data.json.999999.0a1b2c3d4e5f.tmp`, `sandbox-data.json.999998.tmp`]
    for (const name of stale) writeFileSync(join(dir, 'nested', name), 'x'.repeat(1000))
    writeFileSync(join(dir, 'nested', 'keep.txt'), 'mine')
    await start()
    expect(readdirSync(join(dir, 'nested')).sort()).toEqual(['keep.txt', 'sandbox-data.json', 'sandbox-data.json.journal'])
  })

  it('a torn last journal line (a write never answered) is dropped; the journal is compacted into the data file', async () => {
    const first = await start()
    await createCustomer(first, await token(first), 'ada@example.com')
    // As after kill -9: the journal holds the change, the data file does not.
    const journal = readFileSync(`${dataFile}.journal`, 'utf8')
    await first.close()
    writeFileSync(`${dataFile}.journal`, journal + '{"s":999,"n":{"cust')
    const snapshot = JSON.parse(readFileSync(dataFile, 'utf8'))
    snapshot.customers = []
    snapshot.seq = 0
    writeFileSync(dataFile, JSON.stringify(snapshot))
    const second = await start()
    expect(second.counts().customers).toBe(1)
    expect(readFileSync(dataFile, 'utf8')).toContain('ada@example.com')
  })

  it('compacts the journal into the data file in the background while writes go on, losing nothing', async () => {
    const sb = await start({journalCompactBytes: 1})
    const t = await token(sb)
    const ids: number[] = []
    await Promise.all(
      Array.from({length: 4}, async (_, w) => {
        for (let i = 0; i < 15; i++) ids.push((await createCustomer(sb, t, `c${w}-${i}@example.com`)).body.id)
      }),
    )
    // As after kill -9 at this moment: whatever is on disk now.
    const copy = join(dir, 'copy.json')
    writeFileSync(copy, readFileSync(dataFile))
    writeFileSync(`${copy}.journal`, readFileSync(`${dataFile}.journal`))
    expect(JSON.parse(readFileSync(dataFile, 'utf8')).seq).toBeGreaterThan(0)
    const again = await startSandbox({dataFile: copy, onAnswer: recordAnswer})
    try {
      expect(again.counts().customers).toBe(60)
      expect(new Set(ids).size).toBe(60)
    } finally {
      await again.close()
    }
  })

  it('a reset is journaled too: a copy taken while running (as after kill -9) starts empty, keys kept', async () => {
    const sb = await start()
    await createCustomer(sb, await token(sb), 'ada@example.com')
    expect((await call(sb, 'POST', '/_sandbox/reset')).status).toBe(200)
    await createCustomer(sb, await token(sb), 'bob@example.com')
    const copy = join(dir, 'copy.json')
    writeFileSync(copy, readFileSync(dataFile))
    writeFileSync(`${copy}.journal`, readFileSync(`${dataFile}.journal`))
    const again = await startSandbox({dataFile: copy, onAnswer: recordAnswer})
    try {
      expect(again.counts()).toMatchObject({customers: 1})
      expect(again.keys).toEqual(sb.keys)
    } finally {
      await again.close()
    }
  })

  it('demo data is seeded only into a new store', async () => {
    const first = await start({seedDemoData: true})
    const seeded = first.counts()
    expect(seeded.customers).toBeGreaterThanOrEqual(10)
    expect(seeded.orders).toBeGreaterThanOrEqual(10)
    const t = await token(first)
    const c = await call(first, 'GET', '/api/v2/customers/1?include=addresses', {token: t})
    expect(c.body.addresses).toEqual([{id: 1, line1: expect.any(String), city: expect.any(String), postal_code: expect.any(String), country: 'GB'}])
    const statuses = new Set((await call(first, 'GET', '/api/v2/orders?per_page=100', {token: t})).body.data.map((o: {status: string}) => o.status))
    expect(statuses).toEqual(new Set(['pending', 'paid', 'shipped']))
    await first.close()
    const second = await start({seedDemoData: true})
    expect(second.counts()).toEqual(seeded)
  })

  it('refuses to start on a file that is not a sandbox data file, leaving it untouched', async () => {
    writeFileSync(join(dir, 'bad.json'), '{"hello": "world"}')
    await expect(startSandbox({dataFile: join(dir, 'bad.json')})).rejects.toThrow(/not a sandbox data file/)
    writeFileSync(join(dir, 'broken.json'), '{"hel')
    await expect(startSandbox({dataFile: join(dir, 'broken.json')})).rejects.toThrow(/not valid JSON/)
    expect(readFileSync(join(dir, 'broken.json'), 'utf8')).toBe('{"hel')
  })

  it('refuses to start when the data file cannot be used', async () => {
    writeFileSync(join(dir, 'plain-file'), '')
    await expect(startSandbox({dataFile: join(dir, 'plain-file', 'data.json')})).rejects.toThrow(/Cannot read the data file .*ENOTDIR/)
  })

  it('without a data file, every start is fresh, with new keys', async () => {
    const a = await startTestSandbox()
    open.push(a)
    await createCustomer(a, await token(a), 'ada@example.com')
    await a.close()
    const b = await startTestSandbox()
    open.push(b)
    expect(b.counts().customers).toBe(0)
    expect(b.keys[0].key_id).not.toBe(a.keys[0].key_id)
    expect(b.keys.map((k) => k.scopes)).toEqual([['orders:read', 'orders:write', 'customers:read'], ['customers:read']])
  })
})
