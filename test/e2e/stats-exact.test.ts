/**
 * The account's figures, exactly (issue 47): the built CLI as a process against services on loopback that the sandbox
 * cannot be: orders placed in a repeated hour, an oldest-first list, pages that shift while they are read, a page that
 * repeats for ever, amounts that are not whole numbers, statuses named after Object's own properties, an item fetch
 * that fails. Every run has a deadline (RunOptions.timeoutMs), so a hang is a failure, not a hung suite.
 */
import {spawn} from 'node:child_process'
import {afterEach, describe, expect, it} from 'vitest'

import type {OrderFigures as Figures} from '../../src/services/stats.js'
import {BIN, run, tempConfigDir} from '../helpers/cli.js'
import {storeProfile} from '../helpers/login.js'
import {type FaultyServer, type RecordedRequest, startFaultyServer, type Step} from '../helpers/faulty-server.js'

interface Order {
  id: number
  customer_id?: number
  status: unknown
  total: unknown
  currency: unknown
  placed_at: string
  amount_refunded?: unknown
  items?: unknown
}

const servers: FaultyServer[] = []
const dirs: Array<{cleanup: () => void}> = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
  for (const d of dirs.splice(0)) d.cleanup()
})

const TOKEN: Step = {body: {access_token: 'tok_stats', expires_in: 3600, scopes: [], token_type: 'Bearer'}, status: 201}

/** A service whose order list is `list` (newest first unless told), paged as asked; other routes from `also`. */
async function account(
  list: Order[] | ((page: number, perPage: number) => Step),
  also: (req: RecordedRequest) => Step | undefined = () => undefined,
): Promise<{server: FaultyServer; env: Record<string, string>}> {
  const server = await startFaultyServer((req) => {
    const url = new URL(req.url, 'http://x')
    if (url.pathname.endsWith('/auth/tokens')) return TOKEN
    const other = also(req)
    if (other) return other
    if (url.pathname === '/api/v2/orders' || url.pathname === '/api/v2/customers') {
      const page = Number(url.searchParams.get('page') ?? 1)
      const perPage = Number(url.searchParams.get('per_page') ?? 30)
      if (typeof list === 'function') return list(page, perPage)
      return {body: {data: list.slice((page - 1) * perPage, page * perPage), meta: {page, per_page: perPage, total: list.length}}}
    }
    return {body: {message: 'no such route'}, status: 404}
  })
  servers.push(server)
  const cfg = tempConfigDir()
  dirs.push(cfg)
  return {env: {COMMERCE_BASE_URL: server.url, COMMERCE_CONFIG_DIR: cfg.dir, COMMERCE_KEY_ID: 'k', COMMERCE_KEY_SECRET: 's'}, server}
}

const order = (id: number, placed_at: string, extra: Partial<Order> = {}): Order => ({
  currency: 'USD',
  customer_id: 1,
  id,
  placed_at,
  status: 'paid',
  total: 1000,
  ...extra,
})

interface Stats {
  since: string
  until: string
  by: string
  time_zone: string
  money_unit: string
  refunds_counted_by: string
  read: {records: number; all_pages: boolean; duplicates: number; malformed: number}
  currencies: Array<{currency: string; totals: Figures; series: Array<Figures & {label: string; period: string}>}>
}

const DEADLINE = {timeoutMs: 15_000}

describe('periods across clock changes, through the CLI', () => {
  it('New York, autumn, by hour: ends (it spun for ever), 49 periods, the repeated 01:00 twice, each order in its own', async () => {
    const {env} = await account([
      order(3, '2026-11-01T06:30:00Z'), // 01:30 EST, the second 01:00
      order(2, '2026-11-01T05:30:00Z'), // 01:30 EDT, the first
      order(1, '2026-10-31T04:10:00Z'), // 00:10 EDT on the 31st
    ])
    const r = await run(['orders', 'stats', '--since', '2026-10-31', '--until', '2026-11-01', '--by', 'hour', '--json'], {
      ...DEADLINE,
      env: {...env, TZ: 'America/New_York'},
    })
    expect(r.code, r.stderr).toBe(0)
    const stats = r.json<Stats>()
    expect(stats).toMatchObject({since: '2026-10-31T04:00:00.000Z', time_zone: 'America/New_York', until: '2026-11-02T05:00:00.000Z'})
    const series = stats.currencies[0].series
    expect(series).toHaveLength(49)
    const byLabel = Object.fromEntries(series.map((p) => [p.label, p.orders]))
    expect(byLabel).toMatchObject({'2026-10-31 00:00': 1, '2026-11-01 01:00-04:00': 1, '2026-11-01 01:00-05:00': 1})
    expect(series.at(-1)!.label).toBe('2026-11-01 23:00')
  })

  it('Sydney, a window over the first Sunday of October (the default window for a month a year): ends, 20 days', async () => {
    const {env} = await account([order(1, '2026-10-04T03:00:00Z')])
    for (const command of ['orders', 'customers']) {
      const r = await run([command, 'stats', '--since', '2026-09-21', '--until', '2026-10-10', '--json'], {
        ...DEADLINE,
        env: {...env, TZ: 'Australia/Sydney'},
      })
      expect(r.code, r.stderr).toBe(0)
      const stats = r.json<Stats & {series: unknown[]}>()
      expect(stats.by).toBe('day')
      expect(command === 'orders' ? stats.currencies[0].series : stats.series).toHaveLength(20)
    }
  })

  it('London autumn 49 hours; New York spring 47 hours, nothing past the window', async () => {
    const {env} = await account([order(1, '2026-10-25T01:30:00Z')])
    const london = await run(['orders', 'stats', '--since', '2026-10-24', '--until', '2026-10-25', '--by', 'hour', '--json'], {
      ...DEADLINE,
      env: {...env, TZ: 'Europe/London'},
    })
    expect(london.code, london.stderr).toBe(0)
    expect(london.json<Stats>().currencies[0].series).toHaveLength(49)
    const ny = await run(['orders', 'stats', '--since', '2026-03-07', '--until', '2026-03-08', '--by', 'hour', '--currency', 'USD', '--json'], {
      ...DEADLINE,
      env: {...env, TZ: 'America/New_York'},
    })
    const series = ny.json<Stats>().currencies[0].series
    expect(series).toHaveLength(47)
    expect(series.at(-1)!.label).toBe('2026-03-08 23:00')
  })
})

describe('--since and --until, strictly', () => {
  it('a date that does not exist, a span of 0, a span as --until, a span past the year 1: exit 2 naming it', async () => {
    const {env} = await account([])
    const cases: Array<[string[], RegExp]> = [
      [['--since', '2026-02-30'], /--since "2026-02-30": 2026-02-30 is not a date/],
      [['--since', '2026-01-01', '--until', '2026-13-01'], /--until "2026-13-01": 2026-13-01 is not a date/],
      [['--since', '2026-11-31'], /2026-11-31 is not a date/],
      [['--since', '0d'], /--since "0d": a span counts at least one day/],
      [['--since', '0h'], /at least one hour/],
      [['--until', '30d'], /--until "30d": a span is for --since/],
      [['--since', '99999999d'], /before the year 1/],
      [['--since', '1500-01-01', '--by', 'day'], /more than 10,000 periods by day/],
      [['--since', '2026-03-08T02:30', '--until', '2026-03-09'], /does not exist in America\/New_York/],
      [['--since', '2026-11-02', '--until', '2026-11-01'], /is not after --since/],
      // The same words as every --since (webhooks events included).
      [['--since', 'yesterday'], /--since must be a span back from now \(30s, 10m, 24h, 7d, 12w, 6mo\), a date/],
    ]
    for (const [flags, message] of cases) {
      const r = await run(['orders', 'stats', ...flags], {...DEADLINE, env: {...env, TZ: 'America/New_York'}})
      expect(r.code, `${flags.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stderr, flags.join(' ')).toMatch(message)
      expect(r.stdout).toBe('')
    }
  })

  it('seconds and minutes are spans too: --since 30m counts from the start of the minute 29 minutes back', async () => {
    const {env} = await account([
      order(1, new Date(Date.now() - 10 * 60_000).toISOString()),
      order(2, new Date(Date.now() - 2 * 3_600_000).toISOString()),
    ])
    const r = await run(['orders', 'stats', '--since', '30m', '--utc', '--json'], {...DEADLINE, env})
    expect(r.code, r.stderr).toBe(0)
    const stats = r.json<Stats>()
    expect(stats.currencies[0].totals.orders).toBe(1)
    expect(Date.parse(stats.since) % 60_000).toBe(0)
  })

  it('the year 1 is the year 1; --utc reads a date-time without an offset in UTC; a bad or empty TZ counts in UTC and says so', async () => {
    const {env} = await account([])
    const year1 = await run(['orders', 'stats', '--since', '0001-01-01', '--until', '0001-12-31', '--utc', '--json'], {...DEADLINE, env})
    expect(year1.code, year1.stderr).toBe(0)
    expect(year1.json<Stats>()).toMatchObject({by: 'week', since: '0001-01-01T00:00:00.000Z'})
    const utc = await run(['orders', 'stats', '--since', '2026-11-27T10:00', '--until', '2026-11-27T12:00', '--utc', '--json'], {
      ...DEADLINE,
      env: {...env, TZ: 'America/New_York'},
    })
    expect(utc.json<Stats>()).toMatchObject({by: 'hour', since: '2026-11-27T10:00:00.000Z', until: '2026-11-27T12:00:00.000Z'})
    for (const tz of ['', 'Mars/Olympus']) {
      const r = await run(['customers', 'stats', '--since', '2d', '--json'], {...DEADLINE, env: {...env, TZ: tz}})
      expect(r.code, r.stderr).toBe(0)
      expect(r.json<Stats>().time_zone).toBe('UTC')
      expect(r.stderr).toMatch(/counting in UTC/)
    }
    const kolkata = await run(['customers', 'stats', '--json'], {...DEADLINE, env: {...env, TZ: 'Asia/Kolkata'}})
    expect(kolkata.json<Stats>().time_zone).toBe('Asia/Kolkata')
  })

  it('--json says the money unit (unknown when the profile does not) and how refunds are counted', async () => {
    const {env} = await account(
      [order(1, new Date().toISOString(), {amount_refunded: 300, items: [{product_id: 1, quantity: 1, unit_price: 1000}]})],
      (req) => (req.url.startsWith('/api/v2/products') ? {body: {data: [], meta: {page: 1, per_page: 100, total: 0}}} : undefined),
    )
    const r = await run(['orders', 'stats', '--json'], {...DEADLINE, env})
    expect(r.json<Stats>()).toMatchObject({money_unit: 'unknown', refunds_counted_by: 'order_placed_at'})
    const top = await run(['products', 'top', '--json'], {
      ...DEADLINE,
      env,
    })
    expect(top.json<{money_unit: string}>().money_unit).toBe('unknown')
    // A profile that states it (auth login --sandbox does): said under --json too, not only on a terminal.
    const profiled = tempConfigDir()
    dirs.push(profiled)
    await storeProfile(profiled.dir, 'default', {base_url: env.COMMERCE_BASE_URL, key_id: 'k', key_secret: 's', money_unit: 'minor'}, {choose: true})
    const minor = await run(['orders', 'stats', '--json'], {...DEADLINE, env: {COMMERCE_CONFIG_DIR: profiled.dir}})
    expect(minor.code, minor.stderr).toBe(0)
    expect(minor.json<Stats>().money_unit).toBe('minor')
  })
})

describe('figures a reader can trust, whatever the service sends', () => {
  // Orders are placed minutes to hours before now, and the CLI counts from its own clock: the window is --since 2d
  // (today and yesterday), which holds them at any time of day (1d, today alone, lost them just after midnight).
  const now = Date.now()
  const ago = (minutes: number) => new Date(now - minutes * 60_000).toISOString()

  it('orders placed while the pages are read (offset pages shift): each counted once, and said', async () => {
    const orders = Array.from({length: 250}, (_, i) => order(1000 - i, ago(i + 1)))
    let shift = 0
    const {env} = await account((page, perPage) => {
      // Three new orders (placed after the window's end, so not counted) arrive before each page after the first.
      if (page > 1) shift += 3
      const fresh = Array.from({length: shift}, (_, i) => order(5000 + i, new Date(now + 3_600_000).toISOString(), {status: 'pending'}))
      const list = [...fresh.reverse(), ...orders]
      return {body: {data: list.slice((page - 1) * perPage, page * perPage), meta: {page, per_page: perPage, total: list.length}}}
    })
    const r = await run(['orders', 'stats', '--since', '2d', '--utc', '--json'], {...DEADLINE, env})
    expect(r.code, r.stderr).toBe(0)
    const stats = r.json<Stats>()
    expect(stats.currencies[0].totals).toMatchObject({gross: 250_000, orders: 250})
    expect(stats.read.duplicates).toBeGreaterThan(0)
  })

  it('an oldest-first service is read whole (its first record is older than the window)', async () => {
    const list = [order(1, '2020-01-01T00:00:00Z'), order(2, ago(120)), order(3, ago(60))]
    const {env} = await account(list)
    const r = await run(['orders', 'stats', '--since', '2d', '--utc', '--json'], {...DEADLINE, env})
    expect(r.code, r.stderr).toBe(0)
    const stats = r.json<Stats>()
    expect(stats.currencies.map((c) => [c.currency, c.totals.orders])).toEqual([['USD', 2]])
    expect(stats.read.all_pages).toBe(true)
  })

  it('a newest-first service is read only until the window is past, once its order is shown', async () => {
    const list = [order(3, ago(60)), order(2, ago(120)), ...Array.from({length: 300}, (_, i) => order(-i, '2020-01-01T00:00:00Z'))]
    const {env, server} = await account(list)
    const r = await run(['orders', 'stats', '--since', '2d', '--utc', '--json'], {...DEADLINE, env})
    expect(r.json<Stats>().read.all_pages).toBe(false)
    expect(server.requests.filter((q) => q.url.startsWith('/api/v2/orders'))).toHaveLength(1)
  })

  it('a placed_at that is no RFC 3339 date-time (0, "12", 2026, an array, 2026-02-30) is malformed: reported, never taken as old', async () => {
    // Ten orders in the last ten hours, newest first; the lenient Date.parse read 0 as 2000-01-01 and ended the read there.
    const bad: unknown[] = [0, '12', 2026, ['2026-11-28T10:00:00Z'], '2026-02-30T10:00:00Z']
    const list = Array.from({length: 10}, (_, i) => order(10 - i, ago(30 + i * 60)))
    bad.forEach((placed, i) => list.splice(1 + i * 2, 0, order(100 + i, placed as string)))
    const {env} = await account(list)
    const r = await run(['orders', 'stats', '--since', '2d', '--utc', '--json'], {...DEADLINE, env})
    expect(r.code, r.stderr).toBe(0)
    const stats = r.json<Stats>()
    expect(stats.read.malformed).toBe(bad.length)
    expect(stats.currencies.map((c) => [c.currency, c.totals.orders])).toEqual([['USD', 10]])
  })

  it('a page repeated for ever under a total that never comes ends the read, each order counted once', async () => {
    const page = [order(2, ago(10)), order(1, ago(20))]
    const {env} = await account(() => ({body: {data: page, meta: {page: 1, per_page: 100, total: 1_000_000_000}}}))
    const r = await run(['orders', 'stats', '--since', '2d', '--utc', '--json'], {...DEADLINE, env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.json<Stats>().currencies[0].totals.orders).toBe(2)
  })

  it('statuses named after Object’s own properties are statuses; malformed amounts are not counted but reported', async () => {
    const {env} = await account([
      order(9, ago(1), {status: 'constructor'}),
      order(8, ago(2), {status: '__proto__'}),
      order(7, ago(3), {status: 'toString'}),
      order(6, ago(4), {total: 10.5}),
      order(5, ago(5), {total: '700'}),
      order(4, ago(6), {total: -5}),
      order(3, ago(7), {amount_refunded: 2000}),
      order(2, ago(8), {currency: null}),
      order(1, 'not a date'),
    ])
    const r = await run(['orders', 'stats', '--since', '2d', '--utc', '--json'], {...DEADLINE, env})
    expect(r.code, r.stderr).toBe(0)
    const stats = r.json<Stats>()
    const usd = stats.currencies[0]
    expect(usd.totals.orders).toBe(3)
    expect(usd.totals.gross).toBe(3000)
    expect(usd.totals.by_status).toMatchObject({constructor: 1, toString: 1})
    expect(Object.getOwnPropertyDescriptor(usd.totals.by_status, '__proto__')?.value).toBe(1)
    expect(stats.read.malformed).toBe(6)
    expect(r.stderr).toMatch(/6 orders from the service did not hold together/)
  })

  it('a body of 1e400 is not a total; sums past 2^53 − 1 are refused, not rounded', async () => {
    const huge = await account(() => ({
      body: `{"data":[{"id":1,"status":"paid","currency":"USD","placed_at":"${ago(1)}","total":1e400}],"meta":{"page":1,"per_page":100,"total":1}}`,
      headers: {'content-type': 'application/json'},
    }))
    const r = await run(['orders', 'stats', '--since', '2d', '--utc', '--json'], {...DEADLINE, env: huge.env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.json<Stats>().read.malformed).toBe(1)
    const big = await account([order(2, ago(1), {total: Number.MAX_SAFE_INTEGER}), order(1, ago(2), {total: Number.MAX_SAFE_INTEGER})])
    const past = await run(['orders', 'stats', '--since', '2d', '--utc'], {...DEADLINE, env: big.env})
    expect(past.code).toBe(1)
    expect(past.stderr).toMatch(/beyond what can be counted exactly/)
  })

  it('orders in more currencies than documented plus 16 are refused with a clear message, not a series each', async () => {
    const list = Array.from({length: 3 + 17}, (_, i) =>
      order(100 - i, ago(i + 1), {currency: i < 3 ? ['USD', 'EUR', 'GBP'][i] : `X${String.fromCharCode(65 + i)}Z`}),
    )
    const {env} = await account(list)
    const r = await run(['orders', 'stats', '--since', '2d', '--utc'], {...DEADLINE, env})
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/more than 16 currencies besides USD, EUR, GBP: count one at a time with --currency/)
    const one = await run(['orders', 'stats', '--since', '2d', '--utc', '--currency', 'EUR', '--json'], {...DEADLINE, env})
    expect(one.code, one.stderr).toBe(0)
  })

  it('products top: an order whose items cannot be read fails the report (never a revenue short by it); items that do not hold together are reported', async () => {
    const list = Array.from({length: 8}, (_, i) => order(10 + i, ago(i + 1)))
    const items = (id: number): unknown =>
      id === 11
        ? [{product_id: 1, quantity: '7', unit_price: 100}]
        : id === 12
          ? [null]
          : [
              {product_id: 1, quantity: 2, unit_price: 100},
              {product_id: 2, quantity: 1, unit_price: 50},
            ]
    let failing = true
    const {env, server} = await account(list, (req) => {
      const m = /^\/api\/v2\/orders\/(\d+)$/.exec(req.url)
      if (m)
        return Number(m[1]) === 15 && failing
          ? {body: {message: 'no such order'}, status: 404}
          : {body: {...order(Number(m[1]), ago(1)), items: items(Number(m[1]))}}
      if (req.url.startsWith('/api/v2/products'))
        return {
          body: {
            data: [
              {id: 1, name: 'Mug', price: 100, currency: 'USD'},
              {id: 2, name: 'Pen', price: 50, currency: 'USD'},
            ],
            meta: {page: 1, per_page: 100, total: 2},
          },
        }
      return undefined
    })
    const r = await run(['products', 'top', '--since', '2d', '--utc', '--json'], {...DEADLINE, env})
    expect(r.code).toBe(4)
    // The error document, and no figures.
    expect(r.json()).toMatchObject({error: {service_message: 'no such order'}})
    const after = server.requests.length
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(server.requests.length, 'nothing is retried once the command has ended').toBe(after)
    failing = false
    const ok = await run(['products', 'top', '--since', '2d', '--utc', '--json'], {...DEADLINE, env})
    expect(ok.code, ok.stderr).toBe(0)
    const top = ok.json<{
      currencies: Array<{products: Array<{product_id: number; name: string; units: number; revenue: number}>}>
      read: {malformed: number}
    }>()
    expect(top.currencies[0].products).toEqual([
      expect.objectContaining({name: 'Mug', product_id: 1, revenue: 1200, units: 12}),
      expect.objectContaining({name: 'Pen', product_id: 2, revenue: 300, units: 6}),
    ])
    expect(top.read.malformed).toBe(2)
  })

  it('products top --rank units: many cheap units rank above few dear ones; --rank revenue (the default) the other way', async () => {
    const items = [
      {product_id: 7, quantity: 50, unit_price: 10},
      {product_id: 8, quantity: 1, unit_price: 5000},
    ]
    const {env} = await account([order(1, ago(1), {items})], (req) =>
      req.url.startsWith('/api/v2/products') ? {body: {data: [], meta: {page: 1, per_page: 100, total: 0}}} : undefined,
    )
    const ids = async (extra: string[]) => {
      const r = await run(['products', 'top', '--since', '2d', '--json', ...extra], {...DEADLINE, env})
      expect(r.code, r.stderr).toBe(0)
      const top = r.json<{rank: string; currencies: Array<{products: Array<{product_id: number}>}>}>()
      return {ids: top.currencies[0].products.map((p) => p.product_id), rank: top.rank}
    }
    expect(await ids([])).toEqual({ids: [8, 7], rank: 'revenue'})
    expect(await ids(['--rank', 'units'])).toEqual({ids: [7, 8], rank: 'units'})
  })

  it('Ctrl-C ends a stats command waiting on a page that never comes: exit 130 at once', async () => {
    const {env, server} = await account(() => new Promise<Step>(() => {}) as never)
    const child = spawn(process.execPath, [BIN, 'orders', 'stats'], {env: {...env, PATH: process.env.PATH ?? ''}, stdio: ['ignore', 'pipe', 'pipe']})
    while (!server.requests.some((q) => q.url.startsWith('/api/v2/orders'))) await new Promise((resolve) => setTimeout(resolve, 20))
    const sent = Date.now()
    child.kill('SIGINT')
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)))
    expect(code).toBe(130)
    expect(Date.now() - sent).toBeLessThan(3000)
  })
})
