/** Confirmations on a real terminal: `customers delete` and `orders refund`, answered yes and no; none under CI. */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {formatMoney} from '../../src/io/values.js'
import {storeProfile} from '../helpers/login.js'

import {startInTmux} from '../helpers/tmux.js'
import {newCustomer, newPaidOrder, useTtyFixture} from '../helpers/tty.js'

const fx = useTtyFixture()

/** Starts the command, waits for its question, answers it and returns the exit status and the last screen. */
async function answer(args: string[], question: string, reply: 'n' | 'y') {
  const term = await startInTmux(args, {env: fx.env})
  const code = await term.answer(question, reply)
  return {code, screen: await term.capture()}
}

describe('customers delete on a TTY', () => {
  it('answered no: exit 1, the customer is still there', async () => {
    const id = await newCustomer(fx)
    const customer = (await fx.api('GET', `/api/v2/customers/${id}`)).body
    const {code, screen} = await answer(['customers', 'delete', String(id)], `Delete customer ${id} (${customer.email}, ${customer.name})?`, 'n')
    expect(code).toBe(1)
    expect(screen).toMatch(/nothing was changed/i)
    expect((await fx.api('GET', `/api/v2/customers/${id}`)).status).toBe(200)
  })

  it('answered yes: exit 0, the customer is gone', async () => {
    const id = await newCustomer(fx)
    const {code, screen} = await answer(['customers', 'delete', String(id)], `Delete customer ${id} (`, 'y')
    expect(code).toBe(0)
    expect(screen).toContain(`Deleted customer ${id}`)
    expect((await fx.api('GET', `/api/v2/customers/${id}`)).status).toBe(404)
  })

  it('Ctrl-C at the question: exit 130, nothing deleted; with NO_COLOR the prompt has no colour codes', async () => {
    const id = await newCustomer(fx)
    const term = await startInTmux(['customers', 'delete', String(id)], {env: {...fx.env, NO_COLOR: '1'}})
    const prompt = await term.waitFor(`Delete customer ${id} (`, {escapes: true})
    expect(prompt).not.toContain('\x1b[')
    await term.sendKeys('C-c')
    expect(await term.waitForExit()).toBe(130)
    expect((await fx.api('GET', `/api/v2/customers/${id}`)).status).toBe(200)
  })

  it('with CI=1 on the same terminal: no prompt, exit 2 asking for --yes, nothing deleted', async () => {
    const id = await newCustomer(fx)
    const term = await startInTmux(['customers', 'delete', String(id)], {env: {...fx.env, CI: '1'}})
    expect(await term.waitForExit()).toBe(2)
    const screen = await term.capture()
    expect(screen).toContain('--yes')
    expect(screen).not.toContain(`Delete customer ${id}`)
    expect((await fx.api('GET', `/api/v2/customers/${id}`)).status).toBe(200)
  })

  it('a customer that does not exist: exit 4 before any question', async () => {
    const term = await startInTmux(['customers', 'delete', '99999999'], {env: fx.env})
    expect(await term.waitForExit()).toBe(4)
    expect(await term.capture()).not.toContain('Delete customer')
  })
})

describe('orders refund on a TTY', () => {
  it('asks with the amount, the currency and what would remain', async () => {
    const id = await newPaidOrder(fx)
    const order = (await fx.api('GET', `/api/v2/orders/${id}`)).body
    const term = await startInTmux(['orders', 'refund', String(id), '--amount', '1'], {env: fx.env})
    await term.waitFor(
      `Refund 1 ${order.currency} of order ${id}? (total ${order.total} ${order.currency}; ${order.total - 1} ${order.currency} would remain)`,
    )
    await term.sendKeys('C-c')
    expect(await term.waitForExit()).toBe(130)
  })

  it('an --amount over what remains: the error shows money as the confirmation does, and the typed integer', async () => {
    const id = await newPaidOrder(fx)
    const order = (await fx.api('GET', `/api/v2/orders/${id}`)).body
    // A profile that says the service counts in minor units (as the sandbox does): a terminal shows $92.73.
    const dir = mkdtempSync(join(tmpdir(), 'commerce-money-'))
    try {
      await storeProfile(dir, 'default', {money_unit: 'minor'})
      const term = await startInTmux(['orders', 'refund', String(id), '--amount', '99999999'], {env: {...fx.env, COMMERCE_CONFIG_DIR: dir}})
      expect(await term.waitForExit()).toBe(2)
      const screen = await term.capture()
      const left = formatMoney(order.total, order.currency, 'minor')
      expect(screen).toContain(`--amount 99999999 (${formatMoney(99999999, order.currency, 'minor')}) is more than the ${left} left to refund`)
      expect(screen).toContain(`--amount is an integer in the service's money unit: ${order.total} at most for this order.`)
      expect(screen).not.toContain('Refund ')
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  })

  it('an order that cannot be refunded (pending): exit 2 before any question, nothing sent', async () => {
    const customerId = await newCustomer(fx)
    const product = (await fx.api('GET', '/api/v2/products?per_page=1')).body.data[0]
    const order = (
      await fx.api('POST', '/api/v2/orders', {
        currency: product.currency ?? 'USD',
        customer_id: customerId,
        items: [{product_id: product.id, quantity: 1}],
      })
    ).body
    const term = await startInTmux(['orders', 'refund', String(order.id)], {env: fx.env})
    expect(await term.waitForExit()).toBe(2)
    const screen = await term.capture()
    expect(screen).toContain(`Order ${order.id} is pending; only a paid or shipped order can be refunded.`)
    expect(screen).not.toContain('Refund ')
  })

  it('answered no: exit 1, the order stays paid with no refund', async () => {
    const id = await newPaidOrder(fx)
    const {code} = await answer(['orders', 'refund', String(id)], `of order ${id}?`, 'n')
    expect(code).toBe(1)
    expect((await fx.api('GET', `/api/v2/orders/${id}`)).body.status).toBe('paid')
  })

  it('answered yes: exit 0, the order is refunded and the refund shown field by field', async () => {
    const id = await newPaidOrder(fx)
    const {code, screen} = await answer(['orders', 'refund', String(id)], `of order ${id}?`, 'y')
    expect(code).toBe(0)
    expect(screen).toContain(`Refunded order ${id}`)
    expect(screen).toMatch(/^amount {2,}\S/m)
    // No reason given: the field says none, not a bare name beside an empty cell.
    expect(screen).toMatch(/^reason {2,}none$/m)
    expect((await fx.api('GET', `/api/v2/orders/${id}`)).body.status).toBe('refunded')
  })
})
