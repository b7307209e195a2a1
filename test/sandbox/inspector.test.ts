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
})
