/**
 * Values a person reads, on a real terminal: timestamps relative or local, arrays as comma
 * lists, money with its currency (`13112 USD`, or `$131.12` once the profile says the service counts cents), and
 * counts that agree in number. The same commands on a pipe keep the service's raw values.
 */
import {beforeAll, describe, expect, it} from 'vitest'

import {run} from '../helpers/cli.js'
import {startInTmux} from '../helpers/tmux.js'
import {newPaidOrder, useTtyFixture} from '../helpers/tty.js'

const fx = useTtyFixture()
let orderId = 0
let order: {total: number; currency: string; placed_at?: string; items: Array<{unit_price: number}>}
const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/

beforeAll(async () => {
  orderId = await newPaidOrder(fx)
  order = (await fx.api('GET', `/api/v2/orders/${orderId}`)).body
})

async function screen(args: string[], env: Record<string, string> = {}, width = 80): Promise<string> {
  const term = await startInTmux(args, {env: {...fx.env, NO_COLOR: '1', TZ: 'UTC', ...env}, width})
  expect(await term.waitForExit()).toBe(0)
  return (await term.capture())
    .split('\n')
    .filter((l) => !l.startsWith('[tty-exit'))
    .join('\n')
}

const minor = (n: number) => `${{EUR: '€', GBP: '£', USD: '$'}[order.currency]}${(n / 100).toFixed(2)}`

describe('values on a TTY', () => {
  it('orders get: money beside its currency, the time local and relative, no raw ISO string', async () => {
    const text = await screen(['orders', 'get', String(orderId)])
    expect(text).toMatch(new RegExp(`total\\s+│?\\s*${order.total} ${order.currency}`))
    expect(text).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(just now\)/)
    expect(text).toContain(`unit_price: ${order.items[0].unit_price} ${order.currency}`)
    expect(text).not.toMatch(ISO)
  })

  it('with money_unit minor in the profile: formatted amounts, in a list as in a record', async () => {
    const set = await run(['config', 'set', 'money_unit', 'minor'], {env: fx.env})
    expect(set.code, set.stderr).toBe(0)
    try {
      const record = await screen(['orders', 'get', String(orderId)])
      expect(record).toContain(minor(order.total))
      expect(record).toContain(`unit_price: ${minor(order.items[0].unit_price)}`)
      const list = await screen(['orders', 'list', '-L', '50', '-s', 'paid'], {}, 160)
      const row = list.split('\n').find((l) => l.trimStart().startsWith(`${orderId} `))
      expect(row, list).toBeDefined()
      expect(row).toContain(minor(order.total))
      expect(row).toContain('just now')
      expect(list).not.toMatch(ISO)
    } finally {
      await run(['config', 'unset', 'money_unit'], {env: fx.env})
    }
  })

  it('auth status: scopes as a comma list', async () => {
    const text = await screen(['auth', 'status'], {}, 160)
    expect(text).toMatch(/scopes\s+│?\s*[a-z]+:[a-z]+, [a-z]+:[a-z]+/)
    expect(text).not.toContain('["')
  })

  it('a pipe keeps the raw values: integers and ISO timestamps', async () => {
    await run(['config', 'set', 'money_unit', 'minor'], {env: fx.env})
    try {
      const piped = await run(['orders', 'get', String(orderId)], {env: fx.env})
      expect(piped.code, piped.stderr).toBe(0)
      expect(piped.stdout).toContain(`total\t${order.total}\n`)
      if (order.placed_at) expect(piped.stdout).toContain(`placed_at\t${order.placed_at}`)
    } finally {
      await run(['config', 'unset', 'money_unit'], {env: fx.env})
    }
  })
})
