/**
 * What is missing is asked for on a terminal: `customers create` prompts for the email and the name (a bad
 * email is refused at the prompt and asked again). A 429 wait shows a spinner that says so, counting down.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

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
    await term.reply('not-an-email')
    await term.waitFor('is not a valid email address')
    for (let i = 0; i < 'not-an-email'.length; i++) await term.sendKeys('BSpace')
    await term.reply(email)
    await term.waitFor('Name:')
    await term.reply('Prompted Person')
    // An invitation email goes to a real person: asked too; no sends none.
    expect(await term.answer(`Email ${email} an invitation to the account?`, 'n')).toBe(0)
    const list = await fx.api('GET', `/api/v2/customers?q=${encodeURIComponent(email)}&per_page=5`)
    expect(list.body.data).toMatchObject([{email, name: 'Prompted Person'}])
  })

  it('customers import on a terminal asks before invitation emails go out: no sends nothing (exit 1), --yes asks nothing', async () => {
    const file = join(fx.configDir, `invite-${Date.now()}.csv`)
    writeFileSync(file, `email,name\ninv1-${Date.now()}@example.com,Invited One\ninv2-${Date.now()}@example.com,Invited Two\n`)
    const before = (await fx.api('GET', '/api/v2/customers?per_page=1')).body.meta.total
    const term = await startInTmux(['customers', 'import', file], {env: fx.env})
    expect(await term.answer(/2 customers will get an invitation email[\s\S]*Send the\s+invitations\?/, 'n')).toBe(1)
    expect(await term.capture()).toContain('Cancelled: nothing was changed.')
    expect((await fx.api('GET', '/api/v2/customers?per_page=1')).body.meta.total).toBe(before)
    const yes = await startInTmux(['customers', 'import', file, '--yes'], {env: fx.env})
    expect(await yes.waitForExit()).toBe(0)
    expect(await yes.capture()).not.toContain('Send the invitations?')
    expect((await fx.api('GET', '/api/v2/customers?per_page=1')).body.meta.total).toBe(before + 2)
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
