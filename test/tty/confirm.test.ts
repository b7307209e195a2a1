/** Confirmations on a real terminal: `customers delete` and `orders refund`, answered yes and no; none under CI. */
import {describe, expect, it} from 'vitest'

import {startInTmux} from '../helpers/tmux.js'
import {newCustomer, newPaidOrder, useTtyFixture} from './setup.js'

const fx = useTtyFixture()

/** Starts the command, waits for its question, answers it and returns the exit status and the last screen. */
async function answer(args: string[], question: string, reply: 'n' | 'y') {
  const term = await startInTmux(args, {env: fx.env})
  await term.waitFor(question)
  await term.type(reply)
  await term.sendKeys('Enter')
  const code = await term.waitForExit()
  return {code, screen: await term.capture()}
}

describe('customers delete on a TTY', () => {
  it('answered no: exit 1, the customer is still there', async () => {
    const id = await newCustomer(fx)
    const {code, screen} = await answer(['customers', 'delete', String(id)], `Delete customer ${id}?`, 'n')
    expect(code).toBe(1)
    expect(screen).toMatch(/nothing was changed/i)
    expect((await fx.api('GET', `/api/v2/customers/${id}`)).status).toBe(200)
  })

  it('answered yes: exit 0, the customer is gone', async () => {
    const id = await newCustomer(fx)
    const {code, screen} = await answer(['customers', 'delete', String(id)], `Delete customer ${id}?`, 'y')
    expect(code).toBe(0)
    expect(screen).toContain(`Deleted customer ${id}`)
    expect((await fx.api('GET', `/api/v2/customers/${id}`)).status).toBe(404)
  })

  it('Ctrl-C at the question: exit 130, nothing deleted; with NO_COLOR the prompt has no colour codes', async () => {
    const id = await newCustomer(fx)
    const term = await startInTmux(['customers', 'delete', String(id)], {env: {...fx.env, NO_COLOR: '1'}})
    const prompt = await term.waitFor(`Delete customer ${id}?`, {escapes: true})
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
    expect(screen).not.toContain(`Delete customer ${id}?`)
    expect((await fx.api('GET', `/api/v2/customers/${id}`)).status).toBe(200)
  })
})

describe('orders refund on a TTY', () => {
  it('answered no: exit 1, the order stays paid with no refund', async () => {
    const id = await newPaidOrder(fx)
    const {code} = await answer(['orders', 'refund', String(id)], `of order ${id}?`, 'n')
    expect(code).toBe(1)
    expect((await fx.api('GET', `/api/v2/orders/${id}`)).body.status).toBe('paid')
  })

  it('answered yes: exit 0, the order is refunded and the refund shown as a table', async () => {
    const id = await newPaidOrder(fx)
    const {code, screen} = await answer(['orders', 'refund', String(id)], `of order ${id}?`, 'y')
    expect(code).toBe(0)
    expect(screen).toContain(`Refunded order ${id}`)
    expect(screen).toContain('│')
    expect((await fx.api('GET', `/api/v2/orders/${id}`)).body.status).toBe('refunded')
  })
})
