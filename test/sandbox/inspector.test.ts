/**
 * The inspector page (`/_sandbox/ui`) in a real headless Chromium (Debian's package, driven by
 * puppeteer-core: no browser download): a request made by the CLI appears on the page, with the customer it
 * created; service data is shown as text, never run. Saves a screenshot in test/artifacts/ for a person to look at.
 * Skips, saying why, only where no Chromium is installed (`.ci/run` installs it).
 */
import {existsSync, mkdirSync} from 'node:fs'
import {join} from 'node:path'

import puppeteer, {type Browser} from 'puppeteer-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {formatMoney} from '../../src/io/values.js'
import {call} from '../helpers/sandbox-client.js'
import {startTestSandbox} from '../helpers/sandbox.js'
import {type Session, startSession} from '../helpers/webhooks-setup.js'

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p))
const ARTIFACTS = join(import.meta.dirname, '..', 'artifacts')

if (!CHROMIUM) console.warn('inspector.test.ts: skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)')

describe.skipIf(!CHROMIUM)('inspector page in headless Chromium', () => {
  let session: Session
  let browser: Browser
  beforeAll(async () => {
    session = await startSession()
    browser = await puppeteer.launch({
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
      executablePath: CHROMIUM!,
      headless: true,
    })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await session?.close()
  })

  it('arrives with what the sandbox holds: drawn before anything is fetched, money as the CLI shows it', async () => {
    const customer = await session.cli(['customers', 'create', '--email', 'first-paint@example.com', '--name', 'First Paint', '--json'])
    expect(customer.code, customer.stderr).toBe(0)
    const order = await session.cli(['orders', 'create', '--customer', String(customer.json().id), '--currency', 'EUR', '--item', '1:3', '--json'])
    expect(order.code, order.stderr).toBe(0)
    const page = await browser.newPage()
    // Nothing may be fetched: what shows comes with the page itself.
    await page.setRequestInterception(true)
    page.on('request', (req) => void (req.url().endsWith('/_sandbox/ui') ? req.continue() : req.abort()))
    await page.goto(`${session.sandbox.baseUrl}/_sandbox/ui`, {waitUntil: 'domcontentloaded'})
    expect(await page.$eval('#customers', (el) => el.textContent)).toContain('first-paint@example.com')
    const {total, currency} = order.json()
    const orders = await page.$eval('#orders', (el) => el.textContent)
    expect(orders).toContain(formatMoney(total as number, currency, 'minor'))
    expect(await page.$eval('#requests', (el) => el.textContent)).toContain('/api/v2/orders')
    // Counts read as words do: one of a kind is singular.
    expect(await page.$eval('#counts', (el) => el.textContent)).toMatch(/^\d+ customers?, 1 order, \d+ endpoints?, \d+ deliver(y|ies) pending$/)
    await page.close()
  }, 60_000)

  it('at 600 px nothing overflows sideways: the page as wide as the window, every label and table whole inside it', async () => {
    const page = await browser.newPage()
    await page.setViewport({height: 800, width: 600})
    await page.goto(`${session.sandbox.baseUrl}/_sandbox/ui`, {waitUntil: 'domcontentloaded'})
    await page.waitForFunction(`document.getElementById('base')?.textContent?.startsWith('http://')`, {timeout: 10_000})
    const widths = (await page.evaluate(`({
      page: document.documentElement.scrollWidth,
      window: window.innerWidth,
      labels: [...document.querySelectorAll('header > *')].map((el) => Math.ceil(el.getBoundingClientRect().right)),
      cut: [...document.querySelectorAll('header > *, h2, section')]
        .filter((el) => el.scrollWidth > el.clientWidth + 1)
        .map((el) => (el.tagName === 'SECTION' ? el.querySelector('h2').textContent : el.textContent)),
      sections: [...document.querySelectorAll('section')].map((el) => Math.ceil(el.getBoundingClientRect().right)),
    })`)) as {page: number; window: number; labels: number[]; sections: number[]; cut: string[]}
    mkdirSync(ARTIFACTS, {recursive: true})
    await page.screenshot({fullPage: true, path: join(ARTIFACTS, 'inspector-600.png')})
    expect(widths.cut).toEqual([])
    expect(widths.page).toBeLessThanOrEqual(widths.window)
    for (const right of [...widths.labels, ...widths.sections]) expect(right).toBeLessThanOrEqual(widths.window)
    await page.close()
  }, 60_000)

  it('a request or a delivery that got no answer says "no answer", not 0; a delivery given up on says abandoned', async () => {
    const fault = await call(session.sandbox, 'POST', '/_sandbox/faults', {json: {count: 1, drop: true, method: 'GET', path: '/api/v2/products'}})
    expect(fault.status).toBe(201)
    expect((await session.cli(['products', 'list'])).code).toBe(0) // the GET is retried after the drop
    const endpoint = await session.cli(['webhooks', 'create', '--url', 'http://127.0.0.1:1/hooks', '--event', 'customer.created', '--json'])
    expect(endpoint.code, endpoint.stderr).toBe(0)
    expect((await session.cli(['webhooks', 'trigger', 'customer.created'])).code).toBe(0)
    await session.sandbox.deliveriesSettled()
    // Refused for 10 minutes (the sandbox's clock): the next delivery there is abandoned, and the page says so.
    session.sandbox.clock.advance(10 * 60_000)
    expect((await session.cli(['webhooks', 'trigger', 'customer.created'])).code).toBe(0)
    await session.sandbox.deliveriesSettled()
    const page = await browser.newPage()
    await page.goto(`${session.sandbox.baseUrl}/_sandbox/ui`, {waitUntil: 'domcontentloaded'})
    expect(await page.$eval('#deliveries tr', (tr) => tr.textContent)).toMatch(/no answer\s*abandoned$/)
    const requests = await page.$$eval('#requests tr', (rows) => rows.map((r) => r.textContent ?? ''))
    expect(requests.some((r) => r.includes('/api/v2/products') && r.includes('no answer'))).toBe(true)
    const deliveries = await page.$$eval('#deliveries tr', (rows) => rows.map((r) => r.textContent ?? ''))
    expect(deliveries.length).toBeGreaterThan(0)
    expect(deliveries.every((r) => r.includes('no answer'))).toBe(true)
    await page.close()
  }, 60_000)

  it('shows a request made by the CLI, live, and the data it created; service data stays text', async () => {
    const open = await session.cli(['sandbox', 'open', '--no-browser'])
    expect(open.code, open.stderr).toBe(0)
    const url = open.stdout.trim()
    expect(url).toBe(`${session.sandbox.baseUrl}/_sandbox/ui`)

    const page = await browser.newPage()
    await page.setViewport({height: 900, width: 1400})
    const response = await page.goto(url, {waitUntil: 'domcontentloaded'})
    expect(response?.status()).toBe(200)
    // Page-side code as strings: the test's TypeScript has no DOM types.
    await page.waitForFunction(`document.getElementById('base')?.textContent?.startsWith('http://')`, {timeout: 10_000})

    const hostile = '<img src=x onerror="window.__pwned=1">'
    const created = await session.cli(['customers', 'create', '--email', 'inspector@example.com', '--name', hostile, '--json'])
    expect(created.code, created.stderr).toBe(0)
    await page.waitForFunction(
      `[...document.querySelectorAll('#requests tr')].some((tr) => tr.textContent.includes('POST') && tr.textContent.includes('/api/v2/customers') && tr.textContent.includes('201'))`,
      {timeout: 15_000},
    )
    await page.waitForFunction(`document.getElementById('customers').textContent.includes('inspector@example.com')`, {timeout: 10_000})
    const customers = await page.$eval('#customers', (el) => el.textContent)
    expect(customers).toContain(hostile)
    expect(await page.evaluate('window.__pwned')).toBeUndefined()
    expect(await page.$$('#customers img')).toHaveLength(0)

    mkdirSync(ARTIFACTS, {recursive: true})
    await page.screenshot({fullPage: true, path: join(ARTIFACTS, 'inspector.png')})
    expect(existsSync(join(ARTIFACTS, 'inspector.png'))).toBe(true)
    await page.close()
  }, 60_000)

  it('draws the last 30 days of sales as inline SVG, a bar a day per currency, under the same strict CSP; no request breaks it', async () => {
    const history = await startTestSandbox({seedHistoryDays: 30})
    try {
      const page = await browser.newPage()
      const violations: string[] = []
      page.on('console', (m) => void (/Content Security Policy|Refused/.test(m.text()) && violations.push(m.text())))
      const response = await page.goto(`${history.baseUrl}/_sandbox/ui`, {waitUntil: 'domcontentloaded'})
      expect(response?.status()).toBe(200)
      const csp = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (el) => el.getAttribute('content'))
      expect(csp).toBe("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'")
      await page.waitForSelector('#sales svg rect.bar')
      const charts = await page.$$eval('#sales .chart', (els) =>
        els.map((el) => ({bars: el.querySelectorAll('rect.bar').length, title: el.querySelector('h3')!.textContent})),
      )
      expect(charts.map((c) => c.bars)).toEqual([30, 30, 30])
      expect(charts.map((c) => c.title!.slice(0, 3))).toEqual(['EUR', 'GBP', 'USD'])
      // The page's sums are the sandbox's: the series it was given.
      const sales = (await call(history, 'GET', '/_sandbox/sales')).body as {currencies: Array<{currency: string; orders: number[]}>}
      for (const [i, c] of sales.currencies.entries()) expect(charts[i].title).toContain(`${c.orders.reduce((a, b) => a + b, 0)} orders`)
      mkdirSync(ARTIFACTS, {recursive: true})
      await page.screenshot({fullPage: true, path: join(ARTIFACTS, 'inspector-sales.png')})
      expect(violations).toEqual([])
      await page.close()
    } finally {
      await history.close()
    }
  }, 60_000)
})
