/**
 * A single resource on a real terminal: the field/value table fits the window, and an embedded
 * collection (`customers get --include orders`) is one entry a line, never one JSON blob wider than the screen.
 */
import {beforeAll, describe, expect, it} from 'vitest'

import {startInTmux} from '../helpers/tmux.js'
import {newCustomer, useTtyFixture} from '../helpers/tty.js'

const fx = useTtyFixture()
let customerId = 0
const ORDERS = 6

beforeAll(async () => {
  customerId = await newCustomer(fx)
  const products = await fx.api('GET', '/api/v2/products?per_page=1')
  const product = products.body.data[0]
  for (let i = 0; i < ORDERS; i++) {
    const order = await fx.api('POST', '/api/v2/orders', {
      currency: 'USD',
      customer_id: customerId,
      items: [{product_id: product.id, quantity: i + 1}],
    })
    expect(order.status, JSON.stringify(order.body)).toBe(201)
  }
})

describe('a single resource on a TTY', () => {
  it.each([80, 160])('customers get --include orders fits %i columns, one order a line', async (width) => {
    const term = await startInTmux(['customers', 'get', String(customerId), '--include', 'orders'], {env: {...fx.env, NO_COLOR: '1'}, width})
    expect(await term.waitForExit()).toBe(0)
    const lines = (await term.capture()).split('\n').filter((l) => !l.startsWith('[tty-exit'))
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(width)
    const orderLines = lines.filter((l) => /\bid: \d+, /.test(l))
    expect(orderLines.length, lines.join('\n')).toBe(ORDERS)
    expect(lines.join('\n')).not.toMatch(/─{200}/)
  })
})

describe('a single record at 60 columns', () => {
  it('orders get: nested values (items with their unit price) wrap at words, nothing cut with …', async () => {
    const products = await fx.api('GET', '/api/v2/products?per_page=3')
    const order = await fx.api('POST', '/api/v2/orders', {
      currency: 'EUR',
      customer_id: customerId,
      items: products.body.data.map((p: {id: number}, i: number) => ({product_id: p.id, quantity: i + 2})),
    })
    expect(order.status).toBe(201)
    const term = await startInTmux(['orders', 'get', String(order.body.id)], {env: {...fx.env, NO_COLOR: '1'}, width: 60})
    expect(await term.waitForExit()).toBe(0)
    const screen = await term.capture()
    const lines = screen.split('\n').filter((l) => !l.startsWith('[tty-exit'))
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(60)
    expect(screen).not.toContain('…')
    // Each item's unit price is shown whole, in the order's currency.
    const joined = lines.map((l) => l.trim()).join(' ')
    expect(joined.match(/unit_price: (€\d+\.\d\d|\d+ EUR)/g)?.length, screen).toBe(3)
  })
})
