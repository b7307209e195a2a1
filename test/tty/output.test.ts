/**
 * Human output on a real terminal: a borderless table sized to the terminal (80 and 160 columns), the widest
 * column cut with `…`, the header set apart, followed by the position line; coloured unless NO_COLOR is set.
 */
import {beforeAll, describe, expect, it} from 'vitest'

import {run} from '../helpers/cli.js'
import {startInTmux} from '../helpers/tmux.js'
import {newCustomer, useTtyFixture} from '../helpers/tty.js'

const fx = useTtyFixture()
const ESC = '\x1b['
const LONG_NAME = `Maximiliana ${'Longname-'.repeat(5)}End`
let total = 0

beforeAll(async () => {
  for (let i = 0; i < 4; i++) await newCustomer(fx)
  const created = await fx.api('POST', '/api/v2/customers', {email: `long-${process.pid}@example.com`, name: LONG_NAME, send_invite: false})
  expect(created.status).toBe(201)
  total = fx.sb.counts().customers
})

async function listOnTty(env: Record<string, string>, width = 120) {
  const term = await startInTmux(['customers', 'list', '--per-page', '2'], {env: {...fx.env, ...env}, width})
  expect(await term.waitForExit()).toBe(0)
  return {plain: await term.capture(), raw: await term.capture({escapes: true})}
}

describe('customers list on a TTY', () => {
  it('is a borderless table with the header in capitals, followed by "Showing 1-2 of M (page 1 of K)", in colour', async () => {
    const {plain, raw} = await listOnTty({})
    expect(plain).toMatch(/^ID\s+EMAIL\s+NAME\s+STATUS\s+CREATED_AT$/m)
    expect(plain).not.toMatch(/[│┌─┬]/)
    expect(plain).not.toContain('\t')
    expect(plain).toContain(`Showing 1-2 of ${total} (page 1 of ${Math.ceil(total / 2)})`)
    expect(raw).toContain(ESC)
  })

  it('has no colour codes with NO_COLOR=1, still a table', async () => {
    const {plain, raw} = await listOnTty({NO_COLOR: '1'})
    expect(plain).toMatch(/^ID\s+EMAIL\s+NAME/m)
    expect(plain).toContain(`Showing 1-2 of ${total}`)
    expect(raw).not.toContain(ESC)
  })

  it('has no colour codes with TERM=dumb (a terminal that draws no escapes), still a table', async () => {
    const {plain, raw} = await listOnTty({TERM: 'dumb'})
    expect(plain).toMatch(/^ID\s+EMAIL\s+NAME/m)
    expect(raw).not.toContain(ESC)
  })

  it.each([80, 160])('fits a %i-column terminal: no line wraps, the widest column cut with …', async (width) => {
    const {plain} = await listOnTty({NO_COLOR: '1'}, width)
    const lines = plain.split('\n').filter((l) => !l.startsWith('[tty-exit'))
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(width)
    const row = lines.find((l) => l.includes(`long-${process.pid}`))!
    expect(row, plain).toBeDefined()
    if (width === 80) expect(row, JSON.stringify(row)).toMatch(/Maximiliana[^…]*…/)
    else expect(row).toContain(LONG_NAME)
  })

  it('--all: the live count of records fetched is cleared before the table; nothing is left of it', async () => {
    const term = await startInTmux(['customers', 'list', '--all', '--per-page', '2'], {env: {...fx.env, NO_COLOR: '1'}})
    expect(await term.waitForExit()).toBe(0)
    const screen = await term.capture()
    expect(screen).not.toContain('Fetched')
    expect(screen).toMatch(/^ID\s+EMAIL/m)
    expect(screen).toContain(`Showing 1-${total} of ${total}`)
  })
})

describe('--jq on a terminal', () => {
  it('a syntax error reads as an error line, not as the JSON error document (which stays for pipes and --json)', async () => {
    const term = await startInTmux(['customers', 'list', '--jq', '.['], {env: {...fx.env, NO_COLOR: '1'}})
    expect(await term.waitForExit()).toBe(2)
    const screen = await term.capture()
    expect(screen).toMatch(/^Error: --jq: syntax error/m)
    expect(screen).not.toContain('{"error"')
    const json = await startInTmux(['customers', 'list', '--json', '--jq', '.['], {env: {...fx.env, NO_COLOR: '1'}})
    expect(await json.waitForExit()).toBe(2)
    expect(await json.capture()).toContain('"error"')
  })
})

// Last in the file: it adds customers, which the tests above count.
describe('a long table on a TTY', () => {
  it('a table taller than the terminal goes through the pager (less -FRX by default); --no-pager and a pipe write it directly', async () => {
    for (let i = fx.sb.counts().customers; i < 30; i++) await newCustomer(fx)
    const paged = await startInTmux(['customers', 'list', '--per-page', '30'], {env: {...fx.env, COMMERCE_PAGER: undefined}, height: 24, width: 100})
    // less waits at the end of the first screen: the first rows are shown, the command has not ended.
    await paged.waitFor(/^ID\s+EMAIL/m)
    await paged.waitFor(/^:\s*$|\(END\)/m)
    expect(await paged.capture()).not.toMatch(/\[tty-exit/)
    await paged.sendKeys('q')
    expect(await paged.waitForExit()).toBe(0)
    const direct = await startInTmux(['customers', 'list', '--per-page', '30', '--no-pager'], {
      env: {...fx.env, COMMERCE_PAGER: undefined},
      height: 24,
    })
    expect(await direct.waitForExit()).toBe(0)
    expect(await direct.capture()).toContain('Showing 1-30 of')
    const pipe = await run(['customers', 'list', '--per-page', '30'], {env: {...fx.env, PAGER: 'false'}})
    expect(pipe.code).toBe(0)
    expect(pipe.stdout.split('\n').length).toBeGreaterThan(30)
  })

  it('a report taller than the terminal pages too: customers stats by hour over two days (49 bars at 24 rows)', async () => {
    const paged = await startInTmux(['customers', 'stats', '--since', '2d', '--by', 'hour', '--utc'], {
      env: {...fx.env, COMMERCE_PAGER: undefined},
      height: 24,
      width: 100,
    })
    await paged.waitFor(/New customers/)
    await paged.waitFor(/^:\s*$|\(END\)/m)
    expect(await paged.capture()).not.toMatch(/\[tty-exit/)
    await paged.sendKeys('q')
    expect(await paged.waitForExit()).toBe(0)
  })

  it('a pager that fails (false, a file that is no program) loses nothing: the table is written, with a warning', async () => {
    for (const pager of ['false', '/etc/passwd']) {
      const failing = await startInTmux(['customers', 'list', '--per-page', '30'], {env: {...fx.env, COMMERCE_PAGER: pager}, height: 24, width: 100})
      expect(await failing.waitForExit(), pager).toBe(0)
      const screen = await failing.capture()
      expect(screen, pager).toMatch(/The pager \(.*\) failed with exit \d+/)
      expect(screen, pager).toContain('Showing 1-30 of')
      await failing.kill()
    }
  })
})
