/**
 * No line of any command's table output is wider than the window, at 80 and 160 columns, measured in terminal
 * cells (a wide character takes two), and a name with double-width characters keeps the columns after it aligned.
 * Every command that prints a table or a field/value view runs in a tmux pane of that width, with data made to
 * be too wide (a long name and email, a webhook endpoint with a long URL and every event); the capture joins
 * wrapped lines, so a line that wrapped is longer than the window here.
 */
import {appendFileSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {beforeAll, describe, expect, it} from 'vitest'

import {run} from '../helpers/cli.js'
import {startInTmux} from '../helpers/tmux.js'
import {cellWidth} from '../../src/io/width.js'
import {newPaidOrder, useTtyFixture} from '../helpers/tty.js'

const fx = useTtyFixture()
let customerId = 0
let orderId = 0
let productId = 0

beforeAll(async () => {
  const name = `Maximiliana ${'Longname-'.repeat(8)}End`
  const created = await fx.api('POST', '/api/v2/customers', {
    email: `very-long-local-part-${process.pid}@${'a-very-long-domain-name.'.repeat(4)}example.com`,
    metadata: {note: 'x'.repeat(300), plan: 'pro'},
    name,
    send_invite: false,
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  customerId = created.body.id
  orderId = await newPaidOrder(fx)
  productId = (await fx.api('GET', '/api/v2/products?per_page=1')).body.data[0].id
  const hook = await fx.api('POST', '/api/v2/webhooks', {
    events: ['order.created', 'order.paid', 'order.shipped', 'order.refunded', 'customer.created', 'customer.updated', 'customer.deleted'],
    url: `https://hooks.example.com/${'deep/path/'.repeat(12)}receiver`,
  })
  expect(hook.status, JSON.stringify(hook.body)).toBe(201)
  // A profile for `config list` to show (without one it prints a note, prose the terminal may wrap).
  const login = await run(['auth', 'login', '--base-url', fx.sb.baseUrl, '--key-id', fx.env.COMMERCE_KEY_ID, '--key-secret-stdin'], {
    env: {COMMERCE_CONFIG_DIR: fx.configDir},
    input: fx.env.COMMERCE_KEY_SECRET,
  })
  expect(login.code, login.stderr).toBe(0)
})

const COMMANDS = () => [
  ['customers', 'list', '-L', '50'],
  ['customers', 'get', String(customerId)],
  ['customers', 'get', String(customerId), '--include', 'orders'],
  ['orders', 'list', '-L', '20'],
  ['orders', 'get', String(orderId)],
  ['products', 'list'],
  ['products', 'get', String(productId)],
  ['webhooks', 'list'],
  ['auth', 'status'],
  ['config', 'list'],
]

describe('every table fits the window', () => {
  it.each([80, 160])(
    'at %i columns, no line of any command is wider',
    async (width) => {
      const wide: string[] = []
      for (const args of COMMANDS()) {
        const term = await startInTmux(args, {env: {...fx.env, NO_COLOR: '1'}, width})
        const code = await term.waitForExit()
        const lines = (await term.capture()).split('\n').filter((l) => !l.startsWith('[tty-exit'))
        expect(code, `${args.join(' ')}\n${lines.join('\n')}`).toBe(0)
        expect(lines.filter((l) => l.trim() !== '').length, args.join(' ')).toBeGreaterThan(1)
        for (const l of lines) if (cellWidth(l) > width) wide.push(`${args.join(' ')}: ${cellWidth(l)} > ${width}: ${l.slice(0, 100)}…`)
        await term.kill()
      }
      expect(wide.join('\n')).toBe('')
    },
    120_000,
  )
})

describe('double-width characters', () => {
  it('a name with CJK characters and an emoji keeps the later columns where the header puts them, at 80 columns', async () => {
    const created = await fx.api('POST', '/api/v2/customers', {
      email: `anastasia.${process.pid}@example.com`,
      name: 'Anastasia 小龙 🐉',
      send_invite: false,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const term = await startInTmux(['customers', 'list', '-L', '50'], {env: {...fx.env, NO_COLOR: '1'}, width: 80})
    expect(await term.waitForExit()).toBe(0)
    const lines = (await term.capture()).split('\n')
    const header = lines.find((l) => l.includes('STATUS'))!
    const row = lines.find((l) => l.includes('Anastasia'))!
    expect(row, lines.join('\n')).toBeDefined()
    const status = /\b(active|invited|archived)\b/.exec(row)!
    // Where STATUS starts in the header, in cells, is where the status starts in the row.
    expect(cellWidth(row.slice(0, status.index))).toBe(cellWidth(header.slice(0, header.indexOf('STATUS'))))
    for (const l of lines) expect(cellWidth(l)).toBeLessThanOrEqual(80)
    await term.kill()
  })
})

describe('at 80 columns the useful column stays', () => {
  it('webhooks list: URLs are cut in the middle, so each port and last segment shows', async () => {
    for (const port of [30001, 30002]) {
      const hook = await fx.api('POST', '/api/v2/webhooks', {events: ['order.paid'], url: `http://127.0.0.1:${port}/${'nested/'.repeat(8)}hooks`})
      expect(hook.status).toBe(201)
    }
    const term = await startInTmux(['webhooks', 'list'], {env: {...fx.env, NO_COLOR: '1'}, width: 80})
    expect(await term.waitForExit()).toBe(0)
    const screen = await term.capture()
    for (const port of [30001, 30002]) expect(screen).toMatch(new RegExp(`http://127\\.0\\.0\\.1:${port}/[^ ]*…[^ ]*hooks`))
  })

  it('webhooks events: the event type is never cut; fixtures list keeps CLEANED and the file name', async () => {
    const at = new Date().toISOString()
    const record = (i: number) => ({
      body: '{}',
      body_encoding: 'utf8',
      created_at: at,
      duration_ms: 12,
      forward_error: 'the receiver could not be reached at all (connection refused)',
      forward_status: null,
      headers: {},
      id: `evt_${'0123456789abcdef'.repeat(2)}${i}`,
      received_at: at,
      type: 'customer.updated.with.a.long.name',
    })
    for (let i = 0; i < 3; i++) appendFileSync(join(fx.configDir, 'webhook-inbox.jsonl'), JSON.stringify(record(i)) + '\n')
    const events = await startInTmux(['webhooks', 'events'], {env: {...fx.env, NO_COLOR: '1'}, width: 80})
    expect(await events.waitForExit()).toBe(0)
    const shown = await events.capture()
    expect(shown.match(/customer\.updated\.with\.a\.long\.name/g)?.length, shown).toBe(3)

    const folder = join(fx.configDir, 'a-rather-deep-folder-of-fixtures', 'for-the-integration-tests')
    mkdirSync(folder, {recursive: true})
    const file = join(folder, 'checkout-fixtures.json')
    writeFileSync(file, JSON.stringify({customers: {a: {email: `fx-${process.pid}@fixtures.example`, name: 'A', send_invite: false}}}))
    expect((await run(['fixtures', 'run', file], {env: fx.env})).code).toBe(0)
    const list = await startInTmux(['fixtures', 'list'], {env: {...fx.env, NO_COLOR: '1'}, width: 80})
    expect(await list.waitForExit()).toBe(0)
    const table = await list.capture()
    expect(table).toMatch(/^RUN\s+FILE\s+.*CLEANED$/m)
    expect(table).toMatch(/\/.*….*checkout-fixtures\.json/)
    for (const l of table.split('\n')) expect(cellWidth(l), l).toBeLessThanOrEqual(80)
  })
})
