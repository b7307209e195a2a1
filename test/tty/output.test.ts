/** Human output on a real terminal: a table with the position line, coloured unless NO_COLOR is set. */
import {beforeAll, describe, expect, it} from 'vitest'

import {startInTmux} from '../helpers/tmux.js'
import {newCustomer, useTtyFixture} from './setup.js'

const fx = useTtyFixture()
const ESC = '\x1b['
let total = 0

beforeAll(async () => {
  for (let i = 0; i < 5; i++) await newCustomer(fx)
  total = fx.sb.counts().customers
})

async function listOnTty(env: Record<string, string>) {
  const term = await startInTmux(['customers', 'list', '--per-page', '2'], {env: {...fx.env, ...env}})
  expect(await term.waitForExit()).toBe(0)
  return {plain: await term.capture(), raw: await term.capture({escapes: true})}
}

describe('customers list on a TTY', () => {
  it('is a table followed by "Showing 1-2 of M (page 1 of K)", in colour', async () => {
    const {plain, raw} = await listOnTty({})
    expect(plain).toMatch(/┌─+┬/)
    expect(plain).toMatch(/│ id\s+│ email\s+│/)
    expect(plain).not.toContain('\t')
    expect(plain).toContain(`Showing 1-2 of ${total} (page 1 of ${Math.ceil(total / 2)})`)
    expect(raw).toContain(ESC)
  })

  it('has no colour codes with NO_COLOR=1, still a table', async () => {
    const {plain, raw} = await listOnTty({NO_COLOR: '1'})
    expect(plain).toMatch(/┌─+┬/)
    expect(plain).toContain(`Showing 1-2 of ${total}`)
    expect(raw).not.toContain(ESC)
  })
})
