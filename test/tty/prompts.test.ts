/**
 * What is missing is asked for on a terminal: `customers create` prompts for the email and the name (a bad
 * email is refused at the prompt and asked again). A 429 wait shows a spinner that says so, counting down.
 */
import {describe, expect, it} from 'vitest'

import {startFaultyServer} from '../helpers/faulty-server.js'
import {startInTmux} from '../helpers/tmux.js'
import {useTtyFixture} from '../helpers/tty.js'

const fx = useTtyFixture()

describe('prompts for missing values', () => {
  it('customers create asks for the email (re-asking after a bad one) and the name, then creates the customer', async () => {
    const email = `prompted.${Date.now()}@example.com`
    const term = await startInTmux(['customers', 'create', '--json'], {env: fx.env})
    await term.waitFor('Email:')
    await term.type('not-an-email')
    await term.sendKeys('Enter')
    await term.waitFor('is not a valid email address')
    for (let i = 0; i < 'not-an-email'.length; i++) await term.sendKeys('BSpace')
    await term.type(email)
    await term.sendKeys('Enter')
    await term.waitFor('Name:')
    await term.type('Prompted Person')
    await term.sendKeys('Enter')
    expect(await term.waitForExit()).toBe(0)
    const list = await fx.api('GET', `/api/v2/customers?q=${encodeURIComponent(email)}&per_page=5`)
    expect(list.body.data).toMatchObject([{email, name: 'Prompted Person'}])
  })
})

describe('spinner', () => {
  it('a 429 wait is shown on the terminal, then the request succeeds', async () => {
    let calls = 0
    const server = await startFaultyServer(() =>
      ++calls === 1
        ? {body: {message: 'slow down'}, headers: {'retry-after': '2'}, status: 429}
        : {body: {data: [], meta: {page: 1, per_page: 30, total: 0}}, status: 200},
    )
    try {
      const term = await startInTmux(['products', 'list', '--base-url', server.url], {env: {COMMERCE_CONFIG_DIR: fx.configDir}})
      await term.waitFor(/Rate limited; retrying in 2 s/)
      expect(await term.waitForExit()).toBe(0)
      expect(calls).toBe(2)
    } finally {
      await server.close()
    }
  })

  it('the wait counts down live and the spinner is erased before the output that follows', async () => {
    let calls = 0
    const server = await startFaultyServer(() =>
      ++calls === 1
        ? {body: {message: 'slow down'}, headers: {'retry-after': '3'}, status: 429}
        : {body: {data: [], meta: {page: 1, per_page: 30, total: 0}}, status: 200},
    )
    try {
      const term = await startInTmux(['products', 'list', '--base-url', server.url], {env: {COMMERCE_CONFIG_DIR: fx.configDir}})
      await term.waitFor(/Rate limited; retrying in 3 s/)
      await term.waitFor(/Rate limited; retrying in [12] s/)
      expect(await term.waitForExit()).toBe(0)
      expect(await term.capture()).not.toContain('Rate limited')
    } finally {
      await server.close()
    }
  })
})
