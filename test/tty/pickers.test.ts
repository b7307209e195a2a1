/**
 * Pickers on a real terminal (tmux): an id left out opens a search fed by the API (customers by the v2 `q` search,
 * products by search, orders newest first and only refundable ones for a refund, events from the local inbox); the
 * choice goes on as if the id had been typed, confirmations included; Esc cancels with exit 130 and nothing sent; a
 * failing API is an error line in the picker. Without a terminal: exit 2, nothing sent.
 */
import {describe, expect, it} from 'vitest'

import {openInbox} from '../../src/services/webhooks/inbox-queries.js'
import {run} from '../helpers/cli.js'
import {startRecorder} from '../helpers/login.js'
import {startInTmux} from '../helpers/tmux.js'
import {newCustomer, newPaidOrder, useTtyFixture} from '../helpers/tty.js'

const fx = useTtyFixture()

describe('pickers', () => {
  it('customers get: typing searches (v2 q), Enter shows the chosen customer as if its id had been typed', async () => {
    const id = await newCustomer(fx)
    const customer = (await fx.api('GET', `/api/v2/customers/${id}`)).body
    const term = await startInTmux(['customers', 'get'], {env: fx.env})
    await term.waitFor('Which customer?')
    await term.choose(customer.email, new RegExp(`❯ ${id} +${customer.name} +${customer.email}`))
    expect(await term.waitForExit()).toBe(0)
    expect(await term.capture()).toMatch(new RegExp(`email\\s+${customer.email}`))
  })

  it('at 60 columns: candidates in aligned columns that fit (ids whole); Esc clears the list from the screen', async () => {
    for (const name of ['Al', `Bartholomew ${'Longname-'.repeat(6)}End`, 'Cy Short'])
      expect(
        (await fx.api('POST', '/api/v2/customers', {email: `align-${name.length}-${process.pid}@example.com`, name, send_invite: false})).status,
      ).toBe(201)
    const term = await startInTmux(['customers', 'get'], {env: {...fx.env, NO_COLOR: '1'}, width: 60})
    await term.waitFor('Which customer?')
    await term.type('align-')
    const screen = await term.waitFor(/align-8-[\s\S]*align-2-/)
    const rows = screen.split('\n').filter((l) => /align-\d+-/.test(l))
    expect(rows.length, screen).toBe(3)
    for (const l of rows) expect(l.length, l).toBeLessThanOrEqual(60)
    // The name column starts at the same place on every row, and the long one is cut with … (its row still fits).
    const starts = rows.map((l) => /^\W*\d+ +/.exec(l)![0].length)
    expect(new Set(starts).size, rows.join('\n')).toBe(1)
    expect(rows.some((l) => l.includes('…'))).toBe(true)
    await term.sendKeys('Escape')
    expect(await term.waitForExit()).toBe(130)
    expect(await term.capture()).not.toMatch(/align-\d+-/)
  })

  it('orders refund offers paid and shipped orders only; the choice is confirmed naming the order, then refunded', async () => {
    const paid = await newPaidOrder(fx)
    const pendingOrder = await fx.api('POST', '/api/v2/orders', {
      currency: 'USD',
      customer_id: await newCustomer(fx),
      items: [{product_id: 2, quantity: 1}],
    })
    const term = await startInTmux(['orders', 'refund'], {env: fx.env})
    const screen = await term.waitFor('Which order (paid or shipped)?')
    await term.waitFor(new RegExp(`❯ ${paid} +customer \\d+ +paid`))
    expect(await term.capture()).not.toMatch(new RegExp(`\\b${pendingOrder.body.id}  customer`))
    expect(screen).toBeTruthy()
    await term.sendKeys('Enter')
    expect(await term.answer(`of order ${paid}?`, 'y')).toBe(0)
    // The picker clears itself; the choice stays on the screen, above the question it led to.
    expect(await term.capture()).toMatch(new RegExp(`✔ Order: ${paid}  customer \\d+  paid[^\\n]*\\n[^\\n]*of order ${paid}\\?`))
    expect((await fx.api('GET', `/api/v2/orders/${paid}`)).body.status).toBe('refunded')
  })

  it('products get: search by name', async () => {
    const term = await startInTmux(['products', 'get'], {env: fx.env})
    await term.waitFor('Which product?')
    await term.choose('Kettle', /❯ 4 +Gooseneck Kettle/)
    expect(await term.waitForExit()).toBe(0)
    expect(await term.capture()).toMatch(/name\s+Gooseneck Kettle/)
  })

  it('products get --currency EUR: the picker shows the prices in the currency asked for, as the result does', async () => {
    const term = await startInTmux(['products', 'get', '--currency', 'EUR'], {env: fx.env})
    await term.waitFor('Which product?')
    const listed = await term.waitFor(/❯ \d+ +\S/)
    // The price column, at the end of each candidate's line.
    const prices = listed.split('\n').flatMap((l) => /\d+ (EUR|USD|GBP)(?: +\(out of stock\))? *$/.exec(l)?.[1] ?? [])
    expect(prices.length).toBeGreaterThan(3)
    expect(new Set(prices)).toEqual(new Set(['EUR']))
    await term.choose('Kettle', /❯ 4 +Gooseneck Kettle +\d+ EUR/)
    expect(await term.waitForExit()).toBe(0)
    expect(await term.capture()).toMatch(/currency\s+EUR/)
  })

  it('webhooks events get: the events of the local inbox', async () => {
    const now = new Date().toISOString()
    const record = {
      body: '{}',
      body_encoding: 'utf8' as const,
      created_at: now,
      duration_ms: 3,
      forward_status: 200,
      headers: {},
      id: 'evt_pickme123',
      received_at: now,
      type: 'order.paid',
    }
    await openInbox(fx.env).append(record)
    const term = await startInTmux(['webhooks', 'events', 'get'], {env: fx.env})
    await term.waitFor(/❯ evt_pickme123 +order\.paid +200/)
    await term.sendKeys('Enter')
    expect(await term.waitForExit()).toBe(0)
    expect(await term.capture()).toContain('evt_pickme123')
    // The time as other records show it on a terminal: local, and how long ago (not the raw ISO time).
    expect(await term.capture()).toMatch(/received \d{4}-\d{2}-\d{2} \d{2}:\d{2}\S* \S+ \((just now|.* ago)\)/)
    expect(await term.capture()).not.toContain(`received ${now}`)
  })

  it('a page at a time: the last line loads the next page', async () => {
    const customers = Object.fromEntries(
      Array.from({length: 31}, (_, i) => [`more${i}`, {email: `page-${i}@more.example`, name: `Paged ${i}`, send_invite: false}]),
    )
    expect((await fx.api('POST', '/_sandbox/seed', {customers})).status).toBe(200)
    const term = await startInTmux(['customers', 'get', '--fields', 'email'], {env: fx.env})
    await term.waitFor('Which customer?')
    await term.type('more.example')
    await term.waitFor(/❯ \d+ +Paged 30/)
    // Keys count once the search for the whole term has answered: the first Down is sent until it moves the
    // cursor (a capture can show the new term a moment before the prompt starts loading its results).
    for (let tries = 0; ; tries++) {
      await term.sendKeys('Down')
      const moved = await term.waitFor(/❯ \d+ +Paged 29/, {timeoutMs: 500}).then(
        () => true,
        () => false,
      )
      if (moved) break
      if (tries > 20) throw new Error('the picker never took a key')
    }
    // Scrolled to the end of the first page: the last line offers the next one.
    await term.sendKeys(...Array.from({length: 29}, () => 'Down'))
    await term.waitFor('❯ … more (30 customers shown; load the next page)')
    expect(await term.capture()).not.toContain('page-0@more.example')
    await term.sendKeys('Enter')
    await term.waitFor(/Which customer\?.*\n(?![\s\S]*… more)/)
    await term.choose('page-0@', /❯ \d+ +Paged 0 +page-0@more\.example/)
    expect(await term.waitForExit()).toBe(0)
    expect(await term.capture()).toContain('page-0@more.example')
  })

  it('Esc cancels: exit 130, nothing deleted', async () => {
    const id = await newCustomer(fx)
    const term = await startInTmux(['customers', 'delete'], {env: fx.env})
    await term.waitFor(new RegExp(`❯ ${id} +`))
    await term.sendKeys('Escape')
    expect(await term.waitForExit()).toBe(130)
    expect(await term.capture()).toContain('Cancelled: nothing was sent.')
    expect((await fx.api('GET', `/api/v2/customers/${id}`)).status).toBe(200)
  })

  it('a service failing once the picker is open is an error line in it, not a stack trace', async () => {
    const term = await startInTmux(['products', 'get'], {env: fx.env})
    await term.waitFor(/❯ \d+ +/)
    await fx.api('POST', '/_sandbox/faults', {count: 10, method: 'GET', path: '/api/v2/products*', status: 400})
    try {
      await term.type('Ket')
      const screen = await term.waitFor(/> The service said \(HTTP 400\): Injected fault #\d+ status 400/)
      expect(screen).not.toMatch(/\bat \w+ \(/)
      await term.sendKeys('Escape')
      expect(await term.waitForExit()).toBe(130)
    } finally {
      await fx.api('DELETE', '/_sandbox/faults')
    }
  })

  it('nothing to choose from, or a service that fails at once: no picker, the command ends as it would without one', async () => {
    await fx.api('POST', '/_sandbox/faults', {count: 1, method: 'GET', path: '/api/v2/products*', status: 400})
    try {
      const failing = await startInTmux(['products', 'get'], {env: fx.env})
      expect(await failing.waitForExit()).toBe(2)
      const screen = await failing.capture()
      expect(screen).toMatch(/Injected fault #\d+ status 400/)
      expect(screen).not.toContain('Which product?')
    } finally {
      await fx.api('DELETE', '/_sandbox/faults')
    }
    const down = await startInTmux(['customers', 'get'], {env: {...fx.env, COMMERCE_BASE_URL: 'http://127.0.0.1:9'}})
    expect(await down.waitForExit()).toBe(1)
    expect(await down.capture()).toMatch(/Nothing is listening there|connection refused/i)
    // The local inbox of a fresh config directory holds no event.
    const empty = await startInTmux(['webhooks', 'events', 'get'], {env: {...fx.env, COMMERCE_CONFIG_DIR: `${fx.configDir}/empty`}})
    expect(await empty.waitForExit()).toBe(2)
    expect(await empty.capture()).toContain('There is no event to choose from')
  })

  it('Enter chooses from the results of what was typed, never from an earlier list (a slow service); a picked update is confirmed', async () => {
    const zoe = (await fx.api('POST', '/api/v2/customers', {email: `zoe-${process.pid}@picker.example`, name: 'Zoe Picked', send_invite: false})).body
    const other = await newCustomer(fx)
    const term = await startInTmux(['customers', 'update', '--plan', 'picked-plan'], {env: fx.env})
    await term.waitFor(new RegExp(`❯ ${other} +`))
    // Every search from now on takes 600 ms: the text and Enter arrive while the list on screen is the first one.
    await fx.api('POST', '/_sandbox/faults', {count: 20, delay_ms: 600, method: 'GET', path: '/api/v2/customers*'})
    try {
      await term.reply(`zoe-${process.pid}`)
      await term.waitFor(
        new RegExp(`Update customer ${zoe.id} \\(Zoe Picked <zoe-${process.pid}@picker\\.example>, \\w+\\): set plan picked-plan\\?`),
        {timeoutMs: 15_000},
      )
      expect(await term.answer('set plan picked-plan?', 'y')).toBe(0)
    } finally {
      await fx.api('DELETE', '/_sandbox/faults')
    }
    expect((await fx.api('GET', `/api/v2/customers/${zoe.id}`)).body.metadata?.plan).toBe('picked-plan')
    expect((await fx.api('GET', `/api/v2/customers/${other}`)).body.metadata?.plan).not.toBe('picked-plan')
  })

  it('without a terminal: exit 2 naming the id, nothing sent', async () => {
    const recorder = await startRecorder()
    try {
      for (const args of [
        ['orders', 'refund'],
        ['customers', 'delete', '--yes'],
        ['products', 'get', '--json'],
      ]) {
        const r = await run(args, {env: {...fx.env, COMMERCE_BASE_URL: recorder.url}})
        expect(r.code).toBe(2)
        expect(r.stderr + r.stdout).toMatch(/Missing (order|customer|product) id/)
      }
      expect(recorder.requests).toHaveLength(0)
    } finally {
      await recorder.close()
    }
  })
})

describe('orders create, built on a terminal', () => {
  it('asks for the customer (picker), the currency, products with quantities and a running total, then confirms', async () => {
    const customerId = await newCustomer(fx)
    const customer = (await fx.api('GET', `/api/v2/customers/${customerId}`)).body
    const term = await startInTmux(['orders', 'create'], {env: fx.env})
    await term.waitFor('Which customer?')
    await term.choose(customer.email, new RegExp(`❯ ${customerId} +`))
    await term.waitFor('Currency:')
    await term.sendKeys('Down', 'Enter') // EUR, the second of USD EUR GBP
    await term.waitFor('Add a product (prices in EUR')
    await term.choose('Moka', /❯ 9 +Moka Pot/)
    await term.waitFor('Quantity of Moka Pot')
    await term.sendKeys('BSpace')
    await term.reply('2')
    await term.waitFor(/2 × Moka Pot \(9\).*running total/)
    await term.waitFor('Add another product?')
    await term.reply('n')
    await term.waitFor(`Order for customer ${customerId}`)
    expect(await term.answer('Create this order?', 'y')).toBe(0)
    const screen = await term.capture()
    expect(screen).toMatch(/Idempotency-Key: [0-9a-f-]{36}/)
    // The chosen customer stays on the screen; the note on prices is a line of its own, never cut mid-phrase.
    expect(screen).toContain(`✔ Customer: ${customerId}  `)
    expect(screen).toMatch(/^ {2}At catalogue prices; the service sets the final total\.$/m)
    const id = Number(/Created order (\d+)/.exec(screen)![1])
    const order = (await fx.api('GET', `/api/v2/orders/${id}`)).body
    expect(order).toMatchObject({currency: 'EUR', customer_id: customerId, items: [expect.objectContaining({product_id: 9, quantity: 2})]})
  })

  it('offers only customers who can order; quantity 0 says "at least 1"; Esc in the product picker goes back; a refusal asks again', async () => {
    const archived = await newCustomer(fx)
    const archivedRecord = (await fx.api('PATCH', `/api/v2/customers/${archived}`, {status: 'archived'})).body
    const first = await newCustomer(fx)
    const second = await newCustomer(fx)
    const emailOf = async (id: number) => (await fx.api('GET', `/api/v2/customers/${id}`)).body.email as string
    const term = await startInTmux(['orders', 'create', '--currency', 'USD'], {env: fx.env})
    await term.waitFor('Which customer? (active or invited')
    await term.type(archivedRecord.email)
    await term.waitFor(/No (matches|results)|no match/i)
    expect(await term.capture()).not.toMatch(new RegExp(`❯ ${archived} +`))
    for (let i = 0; i < archivedRecord.email.length; i++) await term.sendKeys('BSpace')
    await term.choose(await emailOf(first), new RegExp(`❯ ${first} +`))
    await term.waitFor('Add a product (prices in USD')
    await term.choose('Moka', /❯ 9 +Moka Pot/)
    await term.waitFor('Quantity of Moka Pot')
    await term.sendKeys('BSpace')
    await term.reply('0')
    await term.waitFor('at least 1')
    expect(await term.capture()).not.toContain('Infinity')
    await term.sendKeys('BSpace')
    await term.reply('3')
    await term.waitFor('Add another product?')
    await term.reply('y')
    await term.waitFor('Esc to add none')
    await term.sendKeys('Escape')
    await term.waitFor(/Add another product\?[^\n]*$/)
    await term.reply('n')
    await term.waitFor('Create this order?')
    // Archived meanwhile: the service refuses; the wizard asks for another customer and keeps the items.
    expect((await fx.api('PATCH', `/api/v2/customers/${first}`, {status: 'archived'})).status).toBe(200)
    await term.reply('y')
    await term.waitFor(`The service refused customer ${first}`)
    await term.waitFor(/Which customer\? \(active or invited/)
    await term.choose(await emailOf(second), new RegExp(`❯ ${second} +`))
    expect(await term.waitForExit()).toBe(0)
    const id = Number(/Created order (\d+)/.exec(await term.capture())![1])
    const order = (await fx.api('GET', `/api/v2/orders/${id}`)).body
    expect(order).toMatchObject({customer_id: second, items: [expect.objectContaining({product_id: 9, quantity: 3})]})
  })

  it('Esc at the first question: exit 130, no order', async () => {
    const before = fx.sb.counts().orders
    const term = await startInTmux(['orders', 'create', '--currency', 'USD'], {env: fx.env})
    await term.waitFor('Which customer?')
    await term.sendKeys('Escape')
    expect(await term.waitForExit()).toBe(130)
    expect(fx.sb.counts().orders).toBe(before)
  })
})
