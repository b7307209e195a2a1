/**
 * Requests that take long, on a real terminal: a spinner names a request slower than a second; a retry after a
 * 5xx says so on that line; Ctrl-C during an order's creation says how to get the order if it was made. Delays
 * and failures come from the sandbox's fault rules (bounded: each rule counts its hits).
 */
import {describe, expect, it} from 'vitest'

import {startInTmux} from '../helpers/tmux.js'
import {newCustomer, useTtyFixture} from '../helpers/tty.js'

const fx = useTtyFixture()

async function fault(rule: Record<string, unknown>): Promise<void> {
  const r = await fx.api('POST', '/_sandbox/faults', rule)
  expect(r.status, JSON.stringify(r.body)).toBe(201)
}

describe('slow and retried requests on a TTY', () => {
  it('a request slower than a second shows a spinner naming it, gone when it is answered', async () => {
    await fault({count: 1, delay_ms: 2500, method: 'GET', path: '/api/v2/customers'})
    const term = await startInTmux(['customers', 'list'], {env: fx.env, width: 80})
    expect(await term.waitFor(/GET \/api\/v2\/customers… \d s/)).toBeTruthy()
    expect(await term.waitForExit()).toBe(0)
    expect(await term.capture()).not.toMatch(/GET \/api\/v2\/customers…/)
  })

  it('a 503 that is retried says so on the spinner line', async () => {
    await fault({count: 1, method: 'GET', path: '/api/v2/products', status: 503})
    await fault({count: 1, delay_ms: 2000, method: 'GET', path: '/api/v2/products'})
    const term = await startInTmux(['products', 'list'], {env: fx.env, width: 80})
    expect(await term.waitFor(/GET \/api\/v2\/products: HTTP 503; retrying \(retry 1 of \d\)/)).toBeTruthy()
    expect(await term.waitForExit()).toBe(0)
  })

  it('Ctrl-C while an order is being created: exit 130, and the key that gets the order, in 80 columns', async () => {
    const customer = await newCustomer(fx)
    await fault({count: 1, delay_ms: 5000, method: 'POST', path: '/api/v2/orders'})
    const term = await startInTmux(['orders', 'create', '--customer', String(customer), '--currency', 'USD', '--item', '1'], {env: fx.env, width: 80})
    await term.waitFor(/POST \/api\/v2\/orders…/)
    await term.sendKeys('C-c')
    expect(await term.waitForExit()).toBe(130)
    const screen = await term.capture()
    expect(screen).toMatch(/The order may have been created\. To get it without creating a second one, rerun\nwith --idempotency-key [0-9a-f-]{36}\./)
  })
})
