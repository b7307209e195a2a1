/**
 * A customer named with terminal escapes (retitle the window, turn the text red) shown on a real terminal:
 * the table and the field/value list show the escapes as text, at 80 and 160 columns; and a confirmation question
 * that names what a sandbox said does the same.
 */
import {beforeAll, describe, expect, it} from 'vitest'

import {writeSandboxState} from '../../src/config/sandbox-state-write.js'
import {startFaultyServer} from '../helpers/faulty-server.js'
import {startInTmux} from '../helpers/tmux.js'
import {useTtyFixture} from '../helpers/tty.js'

const fx = useTtyFixture()
const EVIL = 'Eve\u001B]0;PWNED\u0007\u001B[31mRED'
let id = 0

beforeAll(async () => {
  const created = await fx.api('POST', '/api/v2/customers', {email: `eve-${process.pid}@example.com`, name: EVIL, send_invite: false})
  expect(created.status).toBe(201)
  id = created.body.id
})

describe.each([80, 160])('service data on a %i-column terminal', (width) => {
  it('customers get and customers list show the escapes as text, never act on them', async () => {
    for (const args of [
      ['customers', 'get', String(id)],
      ['customers', 'list', '--search', `eve-${process.pid}`],
    ]) {
      const term = await startInTmux(args, {env: {...fx.env, NO_COLOR: '1'}, width})
      expect(await term.waitForExit()).toBe(0)
      const raw = await term.capture({escapes: true})
      // tmux shows what reached it: the escapes as visible text, and no red (SGR 31) from the name.
      expect(await term.capture()).toMatch(/Eve\\e\]0;PWNED\\a\\e\[31mR|Eve\\e\]0;PWNED\\a\\e\[3…|Eve\\e\]0;PWNED/)
      expect(raw).not.toContain('\u001B[31m')
      await term.kill()
    }
  })
})

describe('a confirmation question', () => {
  it("names what the sandbox said (a snapshot's saved_at) with its escapes as text, and asks", async () => {
    const snapshot = {customers: 1, name: 'before', orders: 0, refunds: 0, saved_at: `2026-11-26T10:00:00Z${EVIL}`, webhooks: 0}
    const sandbox = await startFaultyServer(() => ({body: {data: [snapshot]}, status: 200}))
    try {
      writeSandboxState({base_url: sandbox.url, keys: [], pid: process.pid}, {COMMERCE_CONFIG_DIR: fx.configDir})
      const term = await startInTmux(['sandbox', 'snapshot', 'delete', 'before'], {env: {...fx.env, NO_COLOR: '1'}})
      await term.waitFor(/Delete snapshot before/)
      expect(await term.capture()).toMatch(/saved 2026-11-26T10:00:00ZEve\\e\]0;PWNED\\a\\e\[31mRED\)\?/)
      expect(await term.capture({escapes: true})).not.toContain('\u001B[31mRED')
      expect(await term.answer('Delete snapshot', 'n')).toBe(1)
      expect(sandbox.requests.map((r) => r.method)).toEqual(['GET'])
    } finally {
      await sandbox.close()
    }
  })
})
