/**
 * One gate to the terminal: every picker and the order wizard, driven on a real terminal against a fake service
 * whose every string field carries terminal escapes (an OSC that retitles the window, a BEL, a C1 CSI, an SGR),
 * with every byte the CLI writes to the terminal recorded raw (before tmux interprets it). Whoever draws a value
 * (our renderer or the prompt library: choices, messages, the error line of a failing search), it arrives escaped.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {type FaultyServer, startFaultyServer} from '../helpers/faulty-server.js'
import {startInTmux, type TmuxSession} from '../helpers/tmux.js'

/** What no value from outside may bring to a terminal raw: OSC 0 (title) ended by BEL, a C1 CSI, an SGR of its own. */
const EVIL = '\u001B]0;PWNED\u0007\u009B1;35;44m\u001B[1;35;44m'
const evil = (text: string) => `${text}${EVIL}`

const customer = {created_at: evil('2026-11-01T10:00:00Z'), email: evil('eve@example.com'), id: 7, metadata: {}, name: evil('Eve'), status: 'active'}
const order = {
  currency: evil('US'),
  customer_id: evil('7'),
  id: 8,
  items: [{product_id: 9, quantity: 1, unit_price: 1250}],
  placed_at: evil('2026-11-02T10:00:00Z'),
  status: evil('paid'),
  total: 1250,
}
const product = {currency: evil('GB'), id: 9, in_stock: true, name: evil('Moka Pot'), price: 1250}
const list = (data: unknown[]) => ({data, meta: {page: 1, per_page: 30, total: data.length}})

let service: FaultyServer
let cfg: {dir: string; cleanup: () => void}
let env: Record<string, string>

beforeAll(async () => {
  service = await startFaultyServer((req) => {
    const url = new URL(req.url, 'http://x')
    if (req.method === 'POST' && url.pathname === '/api/v2/auth/tokens')
      return {
        body: {
          access_token: 'tok_hostile',
          expires_in: 3600,
          scopes: ['customers:read', 'customers:write', 'orders:read', 'orders:write'],
          token_type: 'Bearer',
        },
        status: 201,
      }
    // A search that fails: its message is the service's, escapes and all.
    if (url.searchParams.get('q') === 'fail') return {body: {error: {message: evil('search failed')}, message: evil('search failed')}, status: 400}
    if (url.pathname === '/api/v2/customers') return {body: list([customer]), status: 200}
    if (url.pathname === '/api/v2/customers/7') return {body: customer, status: 200}
    if (url.pathname === '/api/v2/orders') return {body: list([order]), status: 200}
    if (url.pathname === '/api/v2/orders/8') return {body: order, status: 200}
    if (url.pathname === '/api/v2/products') return {body: list([product]), status: 200}
    if (url.pathname === '/api/v2/products/9') return {body: product, status: 200}
    return {body: {error: {message: 'no such route'}}, status: 404}
  })
  cfg = tempConfigDir()
  env = {
    COMMERCE_BASE_URL: service.url,
    COMMERCE_CONFIG_DIR: join(cfg.dir, 'config'),
    COMMERCE_KEY_ID: 'key_hostile',
    COMMERCE_KEY_SECRET: 'secret_hostile',
  }
})
afterAll(async () => {
  await service.close()
  cfg.cleanup()
})

let runs = 0
/** The command on a terminal, with what it wrote recorded raw; `drive` answers it. */
async function onTerminal(args: string[], drive: (term: TmuxSession) => Promise<void>): Promise<string> {
  const raw = join(cfg.dir, `raw-${++runs}.bin`)
  const term = await startInTmux(args, {env: {...env, NO_COLOR: '1'}, rawOutput: raw})
  try {
    await drive(term)
    await term.waitForExit()
  } finally {
    await term.kill()
  }
  return readFileSync(raw, 'latin1')
}

function expectNoRawEscapes(bytes: string, what: string): void {
  // The bytes as written: UTF-8 read as Latin-1, so a C1 character (U+0080-U+009F) is C2 80-9F.
  expect(bytes.includes('\u0007'), `${what}: a raw BEL`).toBe(false)
  expect(bytes.includes('\u001B]'), `${what}: a raw OSC`).toBe(false)
  expect(/\u00C2[\u0080-\u009F]/.test(bytes), `${what}: a raw C1 control`).toBe(false)
  expect(bytes.includes('\u001B[1;35;44m'), `${what}: the service's own SGR`).toBe(false)
  expect(bytes, `${what}: the value is shown, escaped`).toContain('PWNED')
}

describe('every picker and the order wizard, against a service whose strings carry escapes', () => {
  for (const [args, question] of [
    [['customers', 'get'], 'Which customer?'],
    [['customers', 'delete'], 'Which customer?'],
    [['orders', 'get'], 'Which order?'],
    [['orders', 'refund'], 'Which order (paid or shipped)?'],
    [['products', 'get'], 'Which product?'],
  ] as const)
    it(`${args.join(' ')}: the candidates, and the error line of a failing search`, async () => {
      const bytes = await onTerminal([...args], async (term) => {
        await term.waitFor(question)
        await term.waitFor(/PWNED/)
        if (args[0] === 'customers') {
          await term.type('fail')
          await term.waitFor(/search failed/)
        }
        await term.sendKeys('Escape')
      })
      expectNoRawEscapes(bytes, args.join(' '))
    })

  it('orders create: the customer, the currency of their latest order, the product, the quantity, the summary', async () => {
    const bytes = await onTerminal(['orders', 'create'], async (term) => {
      await term.waitFor('Which customer?')
      await term.waitFor(/❯ 7 /)
      await term.sendKeys('Enter')
      await term.waitFor('Currency')
      await term.sendKeys('Enter')
      await term.waitFor('Add a product')
      await term.waitFor(/❯ 9 /)
      await term.sendKeys('Enter')
      await term.waitFor('Quantity of')
      await term.sendKeys('Enter')
      await term.waitFor('Add another product?')
      await term.reply('n')
      await term.waitFor('Create this order?')
      await term.reply('n')
    })
    expectNoRawEscapes(bytes, 'orders create')
    expect(service.requests.filter((r) => r.method === 'POST' && r.url === '/api/v2/orders')).toEqual([])
  })
})
