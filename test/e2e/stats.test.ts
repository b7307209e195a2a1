/**
 * The account over time: `orders stats` and `customers stats` against a sandbox with a 30-day history (and against
 * the independent fake, whose orders say nothing of partial refunds), as a script reads them (--json, tab-separated
 * rows) and as a person does (a chart at 80 columns in tmux); the sums are checked against the orders themselves.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {run, tempConfigDir} from '../helpers/cli.js'
import {startIndependentService} from '../helpers/independent-service.js'
import {keyPairEnv} from '../helpers/login.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'
import {startInTmux} from '../helpers/tmux.js'

let sb: TestSandbox
let cfg: {dir: string; cleanup: () => void}
const env = () => keyPairEnv(cfg.dir, sb.baseUrl, sb.keys[0])

interface Figures {
  orders: number
  gross: number
  refunded: number
  net: number
  by_status: Record<string, number>
}

interface Stats {
  currencies: Array<{currency: string | null; series: Array<Figures & {label: string; period: string}>}>
}

beforeAll(async () => {
  sb = await startTestSandbox({seedHistoryDays: 30})
  cfg = tempConfigDir()
})
afterAll(async () => {
  await sb.close()
  cfg.cleanup()
})

/** Every order of the sandbox, through the API (the figures' source of truth). */
async function allOrders(): Promise<Array<{currency: string; total: number; status: string; placed_at: string; amount_refunded: number}>> {
  const r = await run(['api', '/api/v2/orders', '--paginate', '--field', 'per_page=100'], {env: env()})
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout)
}

describe('orders stats', () => {
  it('--json: per currency, totals and a series with every period; the sums are the orders’ own', async () => {
    const r = await run(['orders', 'stats', '--since', '30d', '--utc', '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    const stats = r.json<{
      time_zone: string
      by: string
      since: string
      currencies: Array<{currency: string; totals: Figures; series: Array<Figures & {period: string}>}>
    }>()
    expect(stats).toMatchObject({by: 'day', time_zone: 'UTC'})
    const orders = (await allOrders()).filter((o) => Date.parse(o.placed_at) >= Date.parse(stats.since))
    expect(orders.length).toBeGreaterThan(50)
    for (const c of stats.currencies) {
      const mine = orders.filter((o) => o.currency === c.currency)
      const gross = mine.reduce((s, o) => s + o.total, 0)
      const refunded = mine.reduce((s, o) => s + o.amount_refunded, 0)
      expect(c.totals).toMatchObject({gross, net: gross - refunded, orders: mine.length, refunded})
      expect(c.series).toHaveLength(30)
      // The series adds up to the totals; a period without orders is there, with zeros.
      expect(c.series.reduce((s, p) => s + p.gross, 0)).toBe(gross)
      expect(c.series.reduce((s, p) => s + p.orders, 0)).toBe(mine.length)
      expect(Object.values(c.totals.by_status).reduce((a, b) => a + b, 0)).toBe(mine.length)
    }
    expect(stats.currencies.map((c) => c.currency)).toEqual(['EUR', 'GBP', 'USD'])
  })

  it('on a pipe: a header and tab-separated rows, one per currency and period; --currency narrows; a bad --since is exit 2', async () => {
    const r = await run(['orders', 'stats', '--since', '7d', '--currency', 'EUR'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trim().split('\n')
    // The status counts are prefixed, so that `refunded` (the amount) is one column.
    expect(lines[0]).toBe('label\tperiod\tcurrency\torders\tgross\trefunded\tnet\tstatus_pending\tstatus_paid\tstatus_shipped\tstatus_refunded')
    expect(lines).toHaveLength(1 + 7)
    for (const line of lines.slice(1)) expect(line.split('\t')[2]).toBe('EUR')
    // label and period as --json has them: the local label, and the instant the period starts.
    const json = (await run(['orders', 'stats', '--since', '7d', '--currency', 'EUR', '--json'], {env: env()})).json<{
      currencies: Array<{series: Array<{label: string; period: string}>}>
    }>()
    expect(lines.slice(1).map((line) => line.split('\t').slice(0, 2))).toEqual(json.currencies[0].series.map((p) => [p.label, p.period]))
    const bad = await run(['orders', 'stats', '--since', 'last tuesday'], {env: env()})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--since must be a span')
  })

  it('a window with no orders: every period with zeros, in the currency asked for, else in one series of no currency', async () => {
    const far = ['--since', '1990-01-01', '--until', '1990-01-03', '--json']
    const asked = (await run(['orders', 'stats', ...far, '--currency', 'GBP'], {env: env()})).json<Stats>()
    expect(asked.currencies.map((c) => c.currency)).toEqual(['GBP'])
    const none = (await run(['orders', 'stats', ...far], {env: env()})).json<Stats>()
    expect(none.currencies).toHaveLength(1)
    expect(none.currencies[0].currency).toBeNull()
    expect(none.currencies[0].series).toHaveLength(asked.currencies[0].series.length)
    expect(none.currencies[0].series.length).toBeGreaterThan(0)
    for (const p of none.currencies[0].series) expect(p).toMatchObject({gross: 0, label: expect.any(String), orders: 0, period: expect.any(String)})
  })

  it('on an 80-column terminal: totals, counts by status and a labelled bar chart that fits', async () => {
    const term = await startInTmux(['orders', 'stats', '--since', '14d', '--currency', 'USD', '--utc'], {env: env(), height: 50, width: 80})
    expect(await term.waitForExit()).toBe(0)
    const screen = await term.capture()
    // The window as asked, in the zone: from the first day to now, never raw ISO.
    expect(screen).toMatch(/^Orders placed \d{4}-\d{2}-\d{2} to now \(\d{4}-\d{2}-\d{2} \d{2}:\d{2}\), by day \(UTC\)\.$/m)
    expect(screen).not.toMatch(/T\d{2}:\d{2}:\d{2}/)
    expect(screen).toMatch(/^USD: \d+ orders?, gross .+, refunded .+, net .+$/m)
    expect(screen).toMatch(/pending \d+ · paid \d+ · shipped \d+ · refunded \d+/)
    const bars = screen.split('\n').filter((l) => /^\d{4}-\d{2}-\d{2} │/.test(l))
    expect(bars).toHaveLength(14)
    expect(bars.some((l) => l.includes('█'))).toBe(true)
    for (const line of screen.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80)
    // At 40 columns the summaries wrap at words (the terminal would cut them mid-word), the chart fits.
    const narrow = await startInTmux(['orders', 'stats', '--since', '7d', '--currency', 'USD', '--utc'], {env: env(), height: 50, width: 40})
    expect(await narrow.waitForExit()).toBe(0)
    const lines = (await narrow.capture()).split('\n').filter((l) => !l.startsWith('[tty-exit'))
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(40)
    expect(lines.some((l) => /^Orders placed \d{4}-\d{2}-\d{2} to now$/.test(l.trim()) || /^Orders placed/.test(l))).toBe(true)
    await narrow.kill()
  })

  it('against the independent fake (no partial refunds in its list, extra fields): a refunded order counts whole', async () => {
    const s = await startIndependentService()
    const dir = tempConfigDir()
    try {
      const e = {COMMERCE_BASE_URL: s.url, COMMERCE_CONFIG_DIR: dir.dir, COMMERCE_KEY_ID: s.key.key_id, COMMERCE_KEY_SECRET: s.key.key_secret}
      s.customers.set(1, {created_at: new Date().toISOString(), email: 'stats@example.com', id: 1, name: 'S', status: 'active'})
      for (let i = 0; i < 3; i++)
        expect((await run(['orders', 'create', '--customer', '1', '--currency', 'GBP', '--item', '1:2'], {env: e})).code).toBe(0)
      const refunded = [...s.orders.values()][0]
      s.orders.set(refunded.id, {...refunded, status: 'refunded'})
      const r = await run(['orders', 'stats', '--since', '1d', '--json'], {env: e})
      expect(r.code, r.stderr).toBe(0)
      const [gbp] = r.json<{currencies: Array<{currency: string; totals: Figures}>}>().currencies
      expect(gbp.currency).toBe('GBP')
      expect(gbp.totals).toMatchObject({gross: 6000, net: 4000, orders: 3, refunded: 2000})
    } finally {
      await s.close()
      dir.cleanup()
    }
  })
})

describe('products top', () => {
  it('units and revenue per product from the items of the orders in the window, per currency, highest revenue first', async () => {
    const r = await run(['products', 'top', '--since', '10d', '--utc', '--limit', '3', '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    const top = r.json<{
      since: string
      currencies: Array<{currency: string; products: Array<{product_id: number; name: string; units: number; revenue: number}>}>
    }>()
    // The same figures from the orders themselves, read whole through the API.
    const token = (
      (await (
        await fetch(`${sb.baseUrl}/api/v2/auth/tokens`, {
          body: JSON.stringify(sb.keys[0]),
          headers: {'content-type': 'application/json'},
          method: 'POST',
        })
      ).json()) as {access_token: string}
    ).access_token
    const get = async (path: string) => (await fetch(`${sb.baseUrl}${path}`, {headers: {authorization: `Bearer ${token}`}})).json() as Promise<any>
    const expected = new Map<string, Map<number, {units: number; revenue: number}>>()
    for (const summary of (await allOrders()).filter((o) => Date.parse(o.placed_at) >= Date.parse(top.since))) {
      const order = await get(`/api/v2/orders/${(summary as unknown as {id: number}).id}`)
      const products = expected.get(order.currency) ?? new Map()
      expected.set(order.currency, products)
      for (const item of order.items) {
        const p = products.get(item.product_id) ?? {revenue: 0, units: 0}
        products.set(item.product_id, {revenue: p.revenue + item.quantity * item.unit_price, units: p.units + item.quantity})
      }
    }
    expect(top.currencies.map((c) => c.currency)).toEqual([...expected.keys()].sort())
    for (const c of top.currencies) {
      expect(c.products).toHaveLength(3)
      const best = [...expected.get(c.currency)!.entries()].sort(([, a], [, b]) => b.revenue - a.revenue || b.units - a.units).slice(0, 3)
      expect(c.products.map((p) => [p.product_id, p.units, p.revenue])).toEqual(best.map(([id, f]) => [id, f.units, f.revenue]))
      for (const p of c.products) expect(p.name).toEqual(expect.any(String))
    }
  })
})

describe('customers stats', () => {
  it('new customers per period by status: the totals are the customers created in the window', async () => {
    const r = await run(['customers', 'stats', '--since', '10d', '--utc', '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    const stats = r.json<{since: string; totals: {customers: number; by_status: Record<string, number>}; series: Array<{customers: number}>}>()
    const all = await run(['api', '/api/v2/customers', '--paginate', '--field', 'per_page=100'], {env: env()})
    const created = (JSON.parse(all.stdout) as Array<{created_at: string; status: string}>).filter(
      (c) => Date.parse(c.created_at) >= Date.parse(stats.since),
    )
    expect(stats.totals.customers).toBe(created.length)
    expect(stats.totals.by_status.invited).toBe(created.filter((c) => c.status === 'invited').length)
    expect(stats.series).toHaveLength(10)
    expect(stats.series.reduce((s, p) => s + p.customers, 0)).toBe(created.length)
  })
})
