/**
 * The bulk progress bar on a real terminal (tmux): drawn on stderr while an import runs (records, rate, time
 * left, the rate-limit pause), erased before the summary; never drawn when CI is set.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {type Sandbox, startSandbox} from '../../src/sandbox/index.js'
import {tempConfigDir} from '../helpers/cli.js'
import {cellWidth} from '../../src/io/width.js'
import {killAllSessions, startInTmux} from '../helpers/tmux.js'
import {recordAnswer} from '../helpers/openapi-check.js'

let sb: Sandbox
let config: ReturnType<typeof tempConfigDir>
let env: Record<string, string>
const BAR = /Importing orders \[[=-]+\] \d+\/8/
/** The bar once rows are going: records done, rate, time left. */
const MOVING = /Importing orders \[[=-]+\] [1-7]\/8 \| [\d.]+\/s \| \d+s left/

beforeAll(async () => {
  // The real clock (the rate-limit window must pass): 2 orders per second, so 8 rows take a few seconds.
  sb = await startSandbox({onAnswer: recordAnswer, orderLimit: {limit: 2, windowSeconds: 1}})
  config = tempConfigDir()
  const key = sb.keys[0]
  env = {COMMERCE_BASE_URL: sb.baseUrl, COMMERCE_CONFIG_DIR: config.dir, COMMERCE_KEY_ID: key.key_id, COMMERCE_KEY_SECRET: key.key_secret}
})
afterEach(killAllSessions)
afterAll(async () => {
  await sb.close()
  config.cleanup()
})

/** A customer and an orders file of `rows` rows (8 by default); each call a new file, so a new import. */
async function ordersFile(name: string, rows = 8): Promise<string> {
  const res = await fetch(`${sb.baseUrl}/api/v2/auth/tokens`, {
    body: JSON.stringify({key_id: sb.keys[0].key_id, key_secret: sb.keys[0].key_secret}),
    headers: {'content-type': 'application/json'},
    method: 'POST',
  })
  const {access_token: token} = (await res.json()) as {access_token: string}
  const created = await fetch(`${sb.baseUrl}/api/v2/customers`, {
    body: JSON.stringify({email: `${name}@example.com`, name}),
    headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
    method: 'POST',
  })
  const {id} = (await created.json()) as {id: number}
  const file = join(config.dir, `${name}.csv`)
  writeFileSync(file, ['customer_id,currency,items', ...Array.from({length: rows}, (_, i) => `${id},USD,1:${i + 1}`)].join('\n') + '\n')
  return file
}

describe('bulk progress bar on a TTY', () => {
  it('is drawn while an import runs, then erased before the summary', async () => {
    const term = await startInTmux(['orders', 'import', await ordersFile('tty-bar')], {env})
    await term.waitFor(MOVING, {timeoutMs: 15_000})
    expect(await term.waitForExit(20_000)).toBe(0)
    const after = await term.capture()
    expect(after).toMatch(/^created\s+8$/m)
    expect(after).not.toMatch(BAR)
  })

  it('is never drawn when CI is set', async () => {
    const term = await startInTmux(['orders', 'import', await ordersFile('tty-ci')], {env: {...env, CI: '1'}})
    const screens: string[] = []
    let code: number | undefined
    while (code === undefined) {
      screens.push(await term.capture())
      code = await term.waitForExit(100).catch(() => undefined)
    }
    expect(code).toBe(0)
    screens.push(await term.capture())
    expect(screens.length).toBeGreaterThan(5)
    for (const screen of screens) expect(screen).not.toMatch(/Importing orders/)
    expect(screens.at(-1)).toMatch(/^created\s+8$/m)
  })
})

describe('Ctrl-C during an import', () => {
  it('clears the bar first, then prints: no piece of the bar is left on the screen', async () => {
    // A window narrower than the bar's full line: the bar must fit it, or each redraw leaves a wrapped piece.
    const term = await startInTmux(['orders', 'import', await ordersFile('tty-interrupt', 60)], {env, width: 36})
    await term.waitFor(/Importing orders \[/, {timeoutMs: 15_000})
    for (let i = 0; i < 4; i++) {
      const lines = (await term.capture()).split('\n')
      // The capture joins wrapped lines: one longer than the window wrapped.
      for (const line of lines) expect(cellWidth(line), line).toBeLessThanOrEqual(36)
      await new Promise((resolve) => setTimeout(resolve, 150))
    }
    await term.sendKeys('C-c')
    expect(await term.waitForExit(20_000)).toBe(130)
    const screen = await term.capture()
    expect(screen).toMatch(/nterrupted/)
    // What Ctrl-C printed stays: a bar redrawn after it used to draw over the "Stopping" line.
    expect(screen).toContain('Stopping: no new rows')
    // The rate and the time left belong to the bar alone: none of them may survive it.
    expect(screen, screen).not.toMatch(/\/s \||s left|Importing orders \[/)
  })
})

describe('a second Ctrl-C during an import', () => {
  it('exits at once and leaves the terminal as it found it: the bar stopped, line wrapping back on', async () => {
    // 60 rows at 2 a second: the import is still running when each Ctrl-C arrives, however loaded the machine.
    const term = await startInTmux(['orders', 'import', await ordersFile('tty-twice', 60)], {env, width: 60})
    await term.waitFor(/Importing orders \[/, {timeoutMs: 15_000})
    expect(await term.paneFormat('#{wrap_flag}')).toBe('0') // the bar turns wrapping off while it draws
    await term.sendKeys('C-c')
    await term.waitFor('Stopping: no new rows')
    await term.sendKeys('C-c')
    expect(await term.waitForExit(10_000)).toBe(130)
    expect(await term.paneFormat('#{wrap_flag}')).toBe('1')
    const screen = await term.capture()
    expect(screen, screen).not.toMatch(/\/s \||s left|Importing orders \[/)
  })
})
