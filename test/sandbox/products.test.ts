import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {CURRENCIES} from '../../src/domain/schema.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'
import {call} from '../helpers/sandbox-client.js'

let sb: TestSandbox
beforeEach(async () => {
  sb = await startTestSandbox({v1ProductsLimit: {limit: 2, windowSeconds: 10}})
})
afterEach(async () => {
  await sb.close()
})

describe('GET /api/{v1,v2}/products (public)', () => {
  it('serves at least 20 products over the three currencies, newest first, without a token', async () => {
    const r = await call(sb, 'GET', '/api/v2/products?per_page=100', {headers: {authorization: 'Bearer ignored'}})
    expect(r.status).toBe(200)
    expect(r.body.meta.total).toBeGreaterThanOrEqual(20)
    expect(new Set(r.body.data.map((p: {currency: string}) => p.currency))).toEqual(new Set(CURRENCIES))
    expect(r.body.data[0].id).toBe(r.body.meta.total)
    expect(Object.keys(r.body.data[0])).toEqual(['id', 'name', 'description', 'price', 'currency', 'in_stock'])
  })

  it('converts prices with the fixed rate table, rounding half up', async () => {
    const all = (await call(sb, 'GET', '/api/v2/products?per_page=100')).body.data as Array<{id: number; price: number; currency: string}>
    const gbp = (await call(sb, 'GET', '/api/v2/products?per_page=100&currency=GBP')).body.data as typeof all
    expect(gbp.every((p) => p.currency === 'GBP')).toBe(true)
    const byId = new Map(gbp.map((p) => [p.id, p.price]))
    expect(byId.get(1)).toBe(1936) // 24.50 USD * 0.79 = 19.355 -> 19.36
    expect(byId.get(16)).toBe(3300) // already GBP
    expect(byId.get(10)).toBe(1288) // 15.00 EUR * 0.79 / 0.92 = 12.880...
    expect(all.find((p) => p.id === 1)!.price).toBe(2450)
  })

  it('q searches name and description, case-insensitively; invalid queries are 422', async () => {
    const r = await call(sb, 'GET', '/api/v2/products?q=GIFT%20card')
    expect(r.body.data.map((p: {id: number}) => p.id)).toEqual([24, 23, 22])
    const byDescription = await call(sb, 'GET', '/api/v1/products?q=bergamot')
    expect(byDescription.body.data.map((p: {name: string}) => p.name)).toEqual(['Loose Leaf Earl Grey'])
    for (const q of ['currency=JPY', 'per_page=0', `q=${'a'.repeat(121)}`]) {
      const bad = await call(sb, 'GET', `/api/v2/products?${q}`)
      expect(bad.status, q).toBe(422)
    }
  })

  it('v1 lists are limited per client address (429 with Retry-After); v2 is not', async () => {
    expect((await call(sb, 'GET', '/api/v1/products')).status).toBe(200)
    expect((await call(sb, 'GET', '/api/v1/products')).status).toBe(200)
    sb.clock.advance(2_000)
    const r = await call(sb, 'GET', '/api/v1/products')
    expect(r.status).toBe(429)
    expect(r.headers.get('retry-after')).toBe('8')
    expect(r.headers.get('sunset')).toBe('Tue, 01 Sep 2026 00:00:00 GMT')
    expect((await call(sb, 'GET', '/api/v2/products')).status).toBe(200)
    expect((await call(sb, 'GET', '/api/v1/products/search?q=tea')).status).toBe(200)
    sb.clock.advance(8_000)
    expect((await call(sb, 'GET', '/api/v1/products')).status).toBe(200)
  })
})

describe('GET /api/v1/products/search (public)', () => {
  it('searches with q in the page envelope and converts currency', async () => {
    const r = await call(sb, 'GET', '/api/v1/products/search?q=tea&currency=USD&per_page=2')
    expect(r.status).toBe(200)
    expect(r.body.meta).toEqual({page: 1, per_page: 2, total: 4})
    expect(r.body.data.every((p: {currency: string}) => p.currency === 'USD')).toBe(true)
    expect(r.headers.get('deprecation')).toBe('true')
  })

  it('matches every word in any order, each as a substring ("tea pot" finds "Teapot 1 l")', async () => {
    const names = async (q: string) =>
      (await call(sb, 'GET', `/api/v1/products/search?q=${encodeURIComponent(q)}`)).body.data.map((p: {name: string}) => p.name)
    expect(await names('tea pot')).toEqual(['Teapot 1 l'])
    expect(await names('POT tea')).toEqual(['Teapot 1 l'])
    expect(await names('iron infuser')).toEqual(['Teapot 1 l'])
    expect(await names('tea nothing-like-this')).toEqual([])
  })

  it('requires q (422), and exists only in v1', async () => {
    const r = await call(sb, 'GET', '/api/v1/products/search')
    expect(r.status).toBe(422)
    expect(r.body.errors.q).toEqual(['is required'])
    expect((await call(sb, 'GET', '/api/v2/products/search?q=tea')).status).toBe(404)
  })
})

describe('GET /api/v2/products/{product} (public)', () => {
  it('returns a product, converted on request; 404 unknown; 422 bad currency', async () => {
    const r = await call(sb, 'GET', '/api/v2/products/9')
    expect(r.body).toMatchObject({id: 9, name: 'Moka Pot', price: 3600, currency: 'EUR', in_stock: true})
    expect((await call(sb, 'GET', '/api/v2/products/9?currency=USD')).body).toMatchObject({price: 3913, currency: 'USD'})
    for (const id of ['999', 'moka', '0']) expect((await call(sb, 'GET', `/api/v2/products/${id}`)).status).toBe(404)
    expect((await call(sb, 'GET', '/api/v2/products/9?currency=usd')).status).toBe(422)
    expect((await call(sb, 'GET', '/api/v1/products/9')).status).toBe(404)
  })
})
