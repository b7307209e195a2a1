import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'
import {call, token} from '../helpers/sandbox-client.js'

let sb: TestSandbox
beforeEach(async () => {
  sb = await startTestSandbox({tokenTtlSeconds: 600})
})
afterEach(async () => {
  await sb.close()
})

describe('POST /api/{v1,v2}/auth/tokens', () => {
  it.each(['v1', 'v2'])('%s issues a token with every scope of the key by default (201)', async (version) => {
    const {key_id, key_secret} = sb.keys[0]
    const r = await call(sb, 'POST', `/api/${version}/auth/tokens`, {json: {key_id, key_secret}})
    expect(r.status).toBe(201)
    expect(r.body).toEqual({
      access_token: expect.stringMatching(/^\S{20,}$/),
      token_type: 'Bearer',
      expires_in: 600,
      scopes: ['orders:read', 'orders:write', 'customers:read'],
    })
    expect(r.headers.get('cache-control')).toBe('no-store')
  })

  it('throttles guessing: after 10 rejected pairs in a minute for a key id, further wrong secrets are 429; the right pair never is', async () => {
    const {key_id, key_secret} = sb.keys[0]
    for (let i = 0; i < 10; i++) expect((await call(sb, 'POST', '/api/v2/auth/tokens', {json: {key_id, key_secret: `wrong-${i}`}})).status).toBe(422)
    const refused = await call(sb, 'POST', '/api/v2/auth/tokens', {json: {key_id, key_secret: 'wrong-again'}})
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    // Key ids are not secret (logs, auth status, artifacts): the owner's right pair is never locked out by them.
    expect((await call(sb, 'POST', '/api/v2/auth/tokens', {json: {key_id, key_secret}})).status).toBe(201)
    // Another key id is not held back by this one's failures.
    const other = sb.keys[1]
    expect((await call(sb, 'POST', '/api/v2/auth/tokens', {json: {key_id: other.key_id, key_secret: 'wrong'}})).status).toBe(422)
    sb.clock.advance(61_000)
    expect((await call(sb, 'POST', '/api/v2/auth/tokens', {json: {key_id, key_secret: 'wrong-later'}})).status).toBe(422)
  })

  it('grants the requested subset of scopes', async () => {
    const {key_id, key_secret} = sb.keys[0]
    const r = await call(sb, 'POST', '/api/v2/auth/tokens', {json: {key_id, key_secret, scopes: ['orders:read']}})
    expect(r.status).toBe(201)
    expect(r.body.scopes).toEqual(['orders:read'])
  })

  it('answers 422 {message} only, for a rejected pair, an unknown key, a missing field, or a scope not entitled', async () => {
    const [full, read] = sb.keys
    const cases = [
      {key_id: full.key_id, key_secret: 'wrong'},
      {key_id: 'nope', key_secret: full.key_secret},
      {key_id: full.key_id},
      {key_id: read.key_id, key_secret: read.key_secret, scopes: ['orders:write']},
      {key_id: full.key_id, key_secret: full.key_secret, scopes: []},
      {key_id: full.key_id, key_secret: full.key_secret, scopes: ['admin']},
      [1, 2],
    ]
    for (const json of cases) {
      const r = await call(sb, 'POST', '/api/v2/auth/tokens', {json})
      expect(r.status, JSON.stringify(json)).toBe(422)
      expect(Object.keys(r.body)).toEqual(['message'])
      expect(r.text).not.toContain(full.key_secret)
    }
    const noBody = await call(sb, 'POST', '/api/v2/auth/tokens')
    expect(noBody.status).toBe(422)
  })

  it('the read-only key gets customers:read', async () => {
    const {key_id, key_secret} = sb.keys[1]
    const r = await call(sb, 'POST', '/api/v1/auth/tokens', {json: {key_id, key_secret}})
    expect(r.body.scopes).toEqual(['customers:read'])
  })
})

describe('bearer tokens', () => {
  it('answers 401 with WWW-Authenticate for a missing, malformed or unknown token', async () => {
    for (const headers of [
      {} as Record<string, string>,
      {authorization: 'Basic abc'},
      {authorization: 'Bearer'},
      {authorization: 'Bearer not-a-token'},
    ]) {
      const r = await call(sb, 'GET', '/api/v2/customers', {headers})
      expect(r.status).toBe(401)
      expect(r.body).toEqual({message: expect.any(String)})
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/)
    }
  })

  it('expires after the TTL on the injected clock', async () => {
    const t = await token(sb)
    sb.clock.advance(599_000)
    expect((await call(sb, 'GET', '/api/v2/customers', {token: t})).status).toBe(200)
    sb.clock.advance(1_000)
    const r = await call(sb, 'GET', '/api/v2/customers', {token: t})
    expect(r.status).toBe(401)
    expect(r.body.message).toMatch(/expired/)
    expect(r.text).not.toContain(t)
  })

  it('revocation: 204, then the token is refused; revoking again is 204 (v1 and v2)', async () => {
    for (const version of ['v1', 'v2']) {
      const t = await token(sb)
      const first = await call(sb, 'DELETE', `/api/${version}/auth/tokens/current`, {token: t})
      expect(first.status).toBe(204)
      expect(first.text).toBe('')
      const after = await call(sb, 'GET', '/api/v2/orders', {token: t})
      expect(after.status).toBe(401)
      expect(after.body.message).toMatch(/revoked/)
      expect((await call(sb, 'DELETE', `/api/${version}/auth/tokens/current`, {token: t})).status).toBe(204)
    }
  })

  it('revocation needs a token that exists and has not expired (401)', async () => {
    expect((await call(sb, 'DELETE', '/api/v2/auth/tokens/current')).status).toBe(401)
    expect((await call(sb, 'DELETE', '/api/v2/auth/tokens/current', {token: 'made-up'})).status).toBe(401)
    const t = await token(sb)
    sb.clock.advance(600_000)
    expect((await call(sb, 'DELETE', '/api/v2/auth/tokens/current', {token: t})).status).toBe(401)
  })

  it('revoking one token leaves the others valid', async () => {
    const a = await token(sb)
    const b = await token(sb)
    await call(sb, 'DELETE', '/api/v2/auth/tokens/current', {token: a})
    expect((await call(sb, 'GET', '/api/v2/customers', {token: b})).status).toBe(200)
  })
})

describe('scopes', () => {
  it('the customers:read key reads customers and gets 403 naming the scope elsewhere', async () => {
    const t = await token(sb, 1)
    expect((await call(sb, 'GET', '/api/v2/customers', {token: t})).status).toBe(200)
    expect((await call(sb, 'GET', '/api/v1/customers', {token: t})).status).toBe(200)
    const denied: Array<[string, string, string]> = [
      ['GET', '/api/v2/orders', 'orders:read'],
      ['GET', '/api/v1/orders', 'orders:read'],
      ['GET', '/api/v2/orders/1', 'orders:read'],
      ['POST', '/api/v2/orders', 'orders:write'],
      ['POST', '/api/v1/orders', 'orders:write'],
      ['POST', '/api/v2/orders/1/refunds', 'orders:write'],
      ['POST', '/api/v2/customers', 'orders:write'],
      ['POST', '/api/v1/customers', 'orders:write'],
      ['PATCH', '/api/v2/customers/1', 'orders:write'],
      ['DELETE', '/api/v2/customers/1', 'orders:write'],
      ['GET', '/api/v2/webhooks', 'orders:read'],
      ['POST', '/api/v2/webhooks', 'orders:write'],
    ]
    for (const [method, path, scope] of denied) {
      const r = await call(sb, method, path, {json: method === 'GET' ? undefined : {}, token: t})
      expect(r.status, `${method} ${path}`).toBe(403)
      expect(r.body.message).toContain(scope)
    }
    expect((await call(sb, 'DELETE', '/api/v2/auth/tokens/current', {token: t})).status).toBe(204)
  })

  it('a token narrowed to orders:read cannot read customers', async () => {
    const t = await token(sb, 0, ['orders:read'])
    expect((await call(sb, 'GET', '/api/v2/orders', {token: t})).status).toBe(200)
    const r = await call(sb, 'GET', '/api/v2/customers/1', {token: t})
    expect(r.status).toBe(403)
    expect(r.body.message).toContain('customers:read')
  })
})
