/**
 * `commerce products ...` run as processes against the sandbox: the public catalogue (no login, no token sent),
 * paging (--page/--per-page/--all/--limit), v2 and v1 search, the TSV and JSON shapes, and every client-side
 * validation error refused before any request.
 */
import {describe, expect, it} from 'vitest'

import {run} from '../helpers/cli.js'
import {useSandboxFixture} from '../helpers/sandbox-fixture.js'
import {startFaultyServer} from '../helpers/faulty-server.js'
import {ANSI, occurrences, startRecorder} from '../helpers/login.js'

const fx = useSandboxFixture()

/** No credentials at all: products are public. */
const products = (args: string[], env: Record<string, string> = {}) =>
  run(['products', ...args], {env: {COMMERCE_BASE_URL: fx.sb.baseUrl, COMMERCE_CONFIG_DIR: fx.dir, ...env}})

interface Product {
  id: number
  name: string
  price: number
  currency: string
  in_stock: boolean
}

describe('products list', () => {
  it('on a pipe: a header line, then one tab-separated row per product, no colour', async () => {
    const r = await products(['list', '--per-page', '5'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('id\tname\tprice\tcurrency\tin_stock')
    expect(lines).toHaveLength(6)
    for (const line of lines.slice(1)) {
      const cells = line.split('\t')
      expect(cells).toHaveLength(5)
      expect(cells[0]).toMatch(/^\d+$/)
      expect(['true', 'false']).toContain(cells[4])
    }
    expect(r.stdout + r.stderr).not.toMatch(ANSI)
  })

  it('--limit N asks for pages of up to N records, as the README says: --limit 1 is per_page=1, --limit 150 pages of 100', async () => {
    const proxy = await startFaultyServer(() => ({forward: true}), {upstream: fx.sb.baseUrl})
    try {
      const one = await run(['products', 'list', '--limit', '1', '--json', '--base-url', proxy.url])
      expect(one.code, one.stderr).toBe(0)
      expect(JSON.parse(one.stdout)).toHaveLength(1)
      expect(proxy.requests.map((r) => new URL(r.url, proxy.url).searchParams.get('per_page'))).toEqual(['1'])
      proxy.requests.length = 0
      expect((await run(['products', 'list', '--limit', '150', '--json', '--base-url', proxy.url])).code).toBe(0)
      expect(new URL(proxy.requests[0].url, proxy.url).searchParams.get('per_page')).toBe('100')
    } finally {
      await proxy.close()
    }
  })

  it('--json: an array of product objects; --page/--per-page pick the right slice; --all and --limit follow pages', async () => {
    const [all, page2, limited, one] = await Promise.all([
      products(['list', '--all', '--per-page', '7', '--json']),
      products(['list', '--page', '2', '--per-page', '5', '--json']),
      products(['list', '--limit', '9', '--per-page', '4', '--json']),
      products(['list', '--per-page', '3', '--currency', 'EUR', '--json']),
    ])
    for (const r of [all, page2, limited, one]) expect(r.code, r.stderr).toBe(0)
    const everything = all.json<Product[]>()
    expect(everything).toHaveLength(fx.sb.counts().products)
    expect(new Set(everything.map((p) => p.id)).size).toBe(everything.length)
    for (const p of everything)
      expect(p).toMatchObject({
        currency: expect.any(String),
        id: expect.any(Number),
        in_stock: expect.any(Boolean),
        name: expect.any(String),
        price: expect.any(Number),
      })
    expect(page2.json<Product[]>().map((p) => p.id)).toEqual(everything.slice(5, 10).map((p) => p.id))
    expect(limited.json<Product[]>().map((p) => p.id)).toEqual(everything.slice(0, 9).map((p) => p.id))
    const eur = one.json<Product[]>()
    expect(eur).toHaveLength(3)
    for (const p of eur) expect(p.currency).toBe('EUR')
  })

  it('never sends Authorization, even when credentials are set', async () => {
    fx.faulty = await startFaultyServer(() => ({forward: true}), {upstream: fx.sb.baseUrl})
    const r = await products(['list', '--per-page', '2', '--json'], {
      COMMERCE_ACCESS_TOKEN: 'sbx_at_not_for_public_calls',
      COMMERCE_BASE_URL: fx.faulty.url,
    })
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toHaveLength(2)
    expect(fx.faulty.requests).toHaveLength(1)
    expect(fx.faulty.requests[0].headers.authorization).toBeUndefined()
    expect(fx.faulty.requests[0].url).toBe('/api/v2/products?page=1&per_page=2')
  })

  it('--api-version v1 lists through the v1 path and warns once that v1 is deprecated, naming the v2 command', async () => {
    const r = await products(['list', '--api-version', 'v1', '--all', '--per-page', '10', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toHaveLength(fx.sb.counts().products)
    expect(occurrences(r.stderr, 'deprecated')).toBe(1)
    expect(r.stderr).toContain('2026-09-01')
    expect(r.stderr).toContain('commerce products list')
  })
})

describe('products get and search', () => {
  it('get: the product as JSON, and field<TAB>value lines on a pipe', async () => {
    const [json, tsv, gbp] = await Promise.all([
      products(['get', '3', '--json']),
      products(['get', '3']),
      products(['get', '3', '--currency', 'GBP', '--json']),
    ])
    expect(json.code, json.stderr).toBe(0)
    const product = json.json<Product>()
    expect(product.id).toBe(3)
    expect(tsv.code).toBe(0)
    const lines = tsv.stdout.trimEnd().split('\n')
    expect(lines.slice(0, 5)).toEqual([
      'id\t3',
      `name\t${product.name}`,
      `price\t${product.price}`,
      `currency\t${product.currency}`,
      `in_stock\t${product.in_stock}`,
    ])
    expect(gbp.json<Product>().currency).toBe('GBP')
  })

  it('get of an unknown product: exit 4', async () => {
    const r = await products(['get', '99999', '--json'])
    expect(r.code).toBe(4)
    expect(r.json().error).toMatchObject({message: expect.any(String), status: 404})
  })

  it('search in v2 lists with q; in v1 it calls /api/v1/products/search', async () => {
    fx.faulty = await startFaultyServer(() => ({forward: true}), {upstream: fx.sb.baseUrl})
    const env = {COMMERCE_BASE_URL: fx.faulty.url}
    const [v2, v1] = await Promise.all([
      products(['search', 'mug', '--json'], env),
      products(['search', 'mug', '--api-version', 'v1', '--json'], env),
    ])
    expect(v2.code, v2.stderr).toBe(0)
    expect(v1.code, v1.stderr).toBe(0)
    const found = v2.json<Product[]>()
    expect(found.length).toBeGreaterThan(0)
    for (const p of found) expect(JSON.stringify(p).toLowerCase()).toContain('mug')
    expect(v1.json()).toEqual(found)
    const paths = fx.faulty.requests.map((r) => r.url.split('?')[0]).sort()
    expect(paths).toEqual(['/api/v1/products/search', '/api/v2/products'])
    expect(v1.stderr).toContain('deprecated')
    expect(v2.stderr).not.toContain('deprecated')
  })
})

describe('products: invalid input is refused before any request (exit 2, the flag named)', () => {
  const cases: Array<[string, string[], string]> = [
    ['per_page 0', ['list', '--per-page', '0'], '--per-page'],
    ['per_page 101', ['list', '--per-page', '101'], '--per-page'],
    ['page 0', ['list', '--page', '0'], '--page'],
    ['limit 0', ['list', '--limit', '0'], '--limit'],
    ['search of 121 characters', ['list', '--search', 'x'.repeat(121)], '--search'],
    ['search text of 121 characters', ['search', 'x'.repeat(121)], 'TEXT'],
    ['an unknown currency', ['list', '--currency', 'JPY'], '--currency'],
    ['a non-integer id', ['get', '3.5'], 'ID'],
    ['a zero id', ['get', '0'], 'ID'],
    ['a v2-only operation with --api-version v1', ['get', '3', '--api-version', 'v1'], '--api-version'],
  ]
  it.each(cases)('%s', async (_name, args, flag) => {
    fx.faulty = await startRecorder()
    const r = await products(args, {COMMERCE_BASE_URL: fx.faulty.url})
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain(flag)
    expect(r.stderr).not.toMatch(/\n\s+at /)
    expect(fx.faulty.requests).toHaveLength(0)
  })
})
