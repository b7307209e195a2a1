import {connect} from 'node:net'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {servedOperations} from '../../src/domain/schema.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'
import {call, token} from '../helpers/sandbox-client.js'

let sb: TestSandbox
let t: string
beforeEach(async () => {
  sb = await startTestSandbox()
  t = await token(sb)
})
afterEach(async () => {
  await sb.close()
})

/** Sends raw bytes over a fresh connection and returns what came back until the server closed or 1 s passed. */
function raw(bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(sb.port, '127.0.0.1')
    let out = ''
    socket.setEncoding('utf8').on('data', (d: string) => (out += d))
    socket.on('error', reject)
    socket.on('close', () => resolve(out))
    socket.setTimeout(1_000, () => socket.end())
    socket.end(bytes)
  })
}

describe('routing', () => {
  it('serves all 24 operations of the spec at their method and path', async () => {
    const ops = servedOperations()
    expect(ops).toHaveLength(24)
    for (const {op, version} of ops) {
      const path = `/api/${version}${op.path.replace(/\{\w+\}/g, '1')}`
      const r = await call(sb, op.method, path, {token: await token(sb)}) // fresh: one of them revokes its token
      expect(r.status, `${op.method} ${path}`).not.toBe(401)
      expect(r.status, `${op.method} ${path}`).not.toBe(405)
      expect(r.status, `${op.method} ${path}`).toBeLessThan(500)
      // A 404 here may only mean that resource 1 does not exist, never that the route does not.
      if (r.status === 404) expect(r.body.message, `${op.method} ${path}`).toMatch(/^No (customer|order|product) has id/)
    }
  })

  it('answers 404 {message} to unknown routes and 405 with Allow to a wrong method', async () => {
    // (`/` leads to the inspector: test/sandbox/openapi.test.ts.)
    for (const path of ['/api', '/api/v3/customers', '/api/v2/customers/', '/api/v2/custom', '/api/v2/customers/1/orders', '/_sandbox/nope']) {
      const r = await call(sb, 'GET', path, {token: t})
      expect(r.status, path).toBe(404)
      expect(r.body).toEqual({message: expect.any(String)})
    }
    const wrong: Array<[string, string, string]> = [
      ['PUT', '/api/v2/customers/1', 'GET, PATCH, DELETE'],
      ['DELETE', '/api/v2/orders', 'GET, POST'],
      ['GET', '/api/v2/auth/tokens', 'POST'],
      ['POST', '/api/v1/products/search', 'GET'],
      ['PATCH', '/api/v1/customers/1', 'GET'],
      ['GET', '/api/v2/orders/1/refunds', 'POST'],
      ['GET', '/_sandbox/events', 'POST'],
    ]
    for (const [method, path, allow] of wrong) {
      const r = await call(sb, method, path, {token: t})
      expect(r.status, `${method} ${path}`).toBe(405)
      expect(r.headers.get('allow')).toBe(allow)
      expect(r.body.message).toContain(method)
    }
  })
})

describe('bad requests', () => {
  it('answers 400 to invalid JSON', async () => {
    for (const body of ['{', '{"email": }', 'nul', '\u0000']) {
      const r = await call(sb, 'POST', '/api/v2/customers', {headers: {'content-type': 'application/json'}, raw: body, token: t})
      expect(r.status, body).toBe(400)
      expect(r.body.message).toMatch(/not valid JSON/)
    }
    expect(sb.counts().customers).toBe(0)
  })

  it('answers 400 to bodies nesting too deeply, which could not be sent back out', async () => {
    const deep = (n: number) => JSON.parse(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`)
    const ok = await call(sb, 'POST', '/api/v2/customers', {json: {email: 'a@example.com', name: 'A', metadata: deep(30)}, token: t})
    expect(ok.status).toBe(201)
    const tooDeep = [JSON.stringify({email: 'b@example.com', name: 'B', metadata: deep(40)}), '['.repeat(200_000) + ']'.repeat(200_000)]
    for (const raw of tooDeep) {
      const r = await call(sb, 'POST', '/api/v2/customers', {headers: {'content-type': 'application/json'}, raw, token: t})
      expect(r.status).toBe(400)
      expect(r.body.message).toMatch(/deeper than 32/)
    }
    expect((await call(sb, 'GET', '/api/v2/customers', {token: t})).body.meta.total).toBe(1)
  })

  it('answers 415 to a body that is not JSON, and accepts charset and +json types', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
      const r = await call(sb, 'POST', '/api/v2/auth/tokens', {headers: {'content-type': type}, raw: '{}'})
      expect(r.status, type).toBe(415)
      expect(r.body).toEqual({message: expect.stringContaining('application/json')})
    }
    const noType = await call(sb, 'POST', '/api/v2/customers', {raw: Buffer.from('{}'), token: t})
    expect(noType.status).toBe(415)
    for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json']) {
      const {key_id, key_secret} = sb.keys[0]
      const r = await call(sb, 'POST', '/api/v2/auth/tokens', {headers: {'content-type': type}, json: {key_id, key_secret}})
      expect(r.status, type).toBe(201)
    }
  })

  it('answers 413 to a body over 1 MiB, by its declared length or while streaming', async () => {
    const big = JSON.stringify({email: 'a@example.com', name: 'x'.repeat(1024 * 1024)})
    const declared = await raw(
      `POST /api/v2/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n{"a":`,
    )
    expect(declared).toMatch(/^HTTP\/1\.1 413 /)
    expect(declared).toMatch(/larger than 1048576 bytes/)
    const chunk = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`
    const streamed = await raw(
      `POST /api/v2/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(big)}0\r\n\r\n`,
    )
    expect(streamed).toMatch(/^HTTP\/1\.1 413 /)
    expect(sb.counts().customers).toBe(0)
    expect((await call(sb, 'GET', '/api/v2/customers', {token: t})).status).toBe(200)
  })

  it('survives malformed HTTP, odd paths and hostile bodies, and keeps serving', async () => {
    // Requests Node itself cannot parse get a JSON {message} like every other error.
    const jsonBody = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
    const garbage = await raw('GARBAGE\r\n\r\n')
    expect(garbage).toMatch(/^HTTP\/1\.1 400 .*content-type: application\/json/is)
    expect(jsonBody(garbage).message).toMatch(/Malformed HTTP request/)
    const badHeader = await raw('GET /api/v2/products HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n')
    expect(badHeader).toMatch(/^HTTP\/1\.1 400 /)
    expect(jsonBody(badHeader)).toHaveProperty('message')
    const hugeHeaders = await raw(`GET /api/v2/products HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`)
    expect(hugeHeaders).toMatch(/^HTTP\/1\.1 431 /)
    expect(jsonBody(hugeHeaders).message).toMatch(/headers are too large/)
    expect(await raw('GET //api/v2/products HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 404/)
    expect(await raw('GET http://evil/api/v2/products HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 404/)
    const odd = ['/api/v2/customers/%E0%A4%A', '/api/v2/customers/%00', '/api/v2/products?per_page=%ZZ&page=1e3', '/api/v2/products?currency=&q=']
    for (const path of odd) expect((await call(sb, 'GET', path, {token: t})).status, path).toBeLessThan(500)
    const hostile = [null, 0, 'x', [], [{}], {__proto__: {admin: true}}, {email: {}, name: []}, {metadata: {constructor: 1}}]
    for (const json of hostile) {
      for (const path of ['/api/v2/customers', '/api/v2/orders', '/api/v2/webhooks', '/api/v2/orders/1/refunds', '/api/v2/auth/tokens']) {
        const r = await call(sb, 'POST', path, {headers: {'idempotency-key': crypto.randomUUID()}, json, token: t})
        expect(r.status, `${path} ${JSON.stringify(json)}`).toBeLessThan(500)
      }
      expect((await call(sb, 'PATCH', '/api/v2/customers/1', {json, token: t})).status).toBeLessThan(500)
    }
    expect((await call(sb, 'GET', '/api/v2/products')).status).toBe(200)
  })
})

describe('v1 deprecation headers', () => {
  it('every v1 response carries Deprecation and Sunset (2026-09-01); v2 ones do not', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/customers'],
      ['GET', '/api/v1/customers/77'],
      ['GET', '/api/v1/products'],
      ['POST', '/api/v1/orders'],
      ['GET', '/api/v1/nothing'],
    ]) {
      const r = await call(sb, method, path, {json: method === 'POST' ? {} : undefined, token: t})
      expect(r.headers.get('deprecation'), path).toBe('true')
      expect(new Date(r.headers.get('sunset')!).toISOString()).toBe('2026-09-01T00:00:00.000Z')
    }
    const v2 = await call(sb, 'GET', '/api/v2/customers', {token: t})
    expect(v2.headers.get('deprecation')).toBeNull()
    expect(v2.headers.get('sunset')).toBeNull()
  })
})
