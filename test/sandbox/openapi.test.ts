/**
 * The OpenAPI document (src/sandbox/openapi.ts): valid OpenAPI 3.1 by a kept validator, 24 operations, served by
 * the sandbox at /openapi.json without authentication and printed by `commerce api --spec`; and the check every
 * sandbox answer of the suite goes through (test/helpers/openapi-check.ts) finds what breaks it.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {Validator} from '@seriousme/openapi-schema-validator'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {servedOperations} from '../../src/domain/schema.js'
import {run, tempConfigDir} from '../helpers/cli.js'
import {checkRequestLog, DOCUMENT, problemsOf, takeViolations} from '../helpers/openapi-check.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'
import {call} from '../helpers/sandbox-client.js'

let sb: TestSandbox
beforeAll(async () => {
  sb = await startTestSandbox()
})
afterAll(() => sb.close())

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator) and has the 24 operations, v1 deprecated', async () => {
    const result = await new Validator().validate(DOCUMENT)
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([])
    expect(result.valid).toBe(true)
    const ops = Object.entries(DOCUMENT.paths).flatMap(([path, methods]) => Object.entries(methods).map(([m, op]) => ({m, op, path})))
    expect(ops).toHaveLength(servedOperations().length)
    expect(ops).toHaveLength(24)
    for (const {op, path} of ops) expect(Boolean(op.deprecated), path).toBe(path.startsWith('/api/v1/'))
    const publicOps = ops.filter(({op}) => op.security.length === 0).map(({m, path}) => `${m} ${path}`)
    expect(publicOps.sort()).toEqual(
      [
        'get /api/v1/products',
        'get /api/v1/products/search',
        'get /api/v2/products',
        'get /api/v2/products/{product}',
        'post /api/v1/auth/tokens',
        'post /api/v2/auth/tokens',
      ].sort(),
    )
    expect(JSON.stringify(DOCUMENT)).toContain('"x-sandbox-decision":true')
  })

  it('the root URL, the first one `sandbox start` prints, leads a browser to the inspector and names the document', async () => {
    const root = await fetch(`${sb.baseUrl}/`, {redirect: 'manual'})
    expect(root.status).toBe(302)
    expect(root.headers.get('location')).toBe('/_sandbox/ui')
    expect(await root.text()).toContain('/openapi.json')
    const followed = await fetch(`${sb.baseUrl}/`)
    expect(followed.status).toBe(200)
    expect(await followed.text()).toContain('<h1>commerce sandbox</h1>')
  })

  it('is served at /openapi.json without a token, and `commerce api --spec` prints the same document', async () => {
    const served = await call(sb, 'GET', '/openapi.json')
    expect(served.status).toBe(200)
    // The same document, but for where it is: the served one names this sandbox as its server, the printed one a
    // {base_url} variable (a generator's client then has a base URL either way).
    const {servers, ...rest} = served.body as {servers: Array<{url: string}>}
    expect(servers).toEqual([{description: 'This sandbox.', url: sb.baseUrl}])
    const {servers: _servers, ...expected} = JSON.parse(JSON.stringify(DOCUMENT)) as {servers: unknown}
    expect(rest).toEqual(expected)
    const printed = await run(['api', '--spec'])
    expect(printed.code, printed.stderr).toBe(0)
    const spec = JSON.parse(printed.stdout) as {servers: Array<{url: string; variables?: unknown}>}
    expect(spec.servers[0]).toMatchObject({url: '{base_url}', variables: {base_url: {default: expect.any(String)}}})
    expect({...spec, servers: undefined}).toEqual({...rest, servers: undefined})
    const help = await run(['api', '--help'])
    for (const {op, version} of servedOperations()) expect(help.stdout).toContain(`/api/${version}${op.path}`)
  })

  it('the suite’s check holds the document to what the sandbox does: a field it does not declare, a query parameter the sandbox reads that it does not declare', () => {
    const customer = {created_at: '2026-11-26T10:00:00Z', email: 'a@example.com', id: 7, name: 'A', status: 'active'}
    const extra = problemsOf({
      method: 'GET',
      path: '/api/v2/customers/7',
      requestBody: null,
      status: 200,
      text: JSON.stringify({...customer, loyalty: 3}),
    })
    expect(extra).toEqual([expect.stringMatching(/the body has loyalty, which its schema does not declare/)])
    const nested = problemsOf({
      method: 'GET',
      path: '/api/v2/customers',
      query: '',
      requestBody: null,
      status: 200,
      text: JSON.stringify({data: [{...customer, orders_count: 1}], meta: {page: 1, per_page: 30, total: 1}}),
    })
    expect(nested).toEqual([expect.stringMatching(/the body has data\[0\]\.orders_count/)])
    // metadata is open (arbitrary key/value pairs), and so is never undeclared.
    const open = problemsOf({
      method: 'GET',
      path: '/api/v2/customers/7',
      requestBody: null,
      status: 200,
      text: JSON.stringify({...customer, metadata: {tier: 'gold'}}),
    })
    expect(open).toEqual([])
    const read = problemsOf({
      method: 'GET',
      path: '/api/v2/webhooks',
      query: '',
      queryRead: ['sort'],
      requestBody: null,
      status: 200,
      text: JSON.stringify({data: [], meta: {page: 1, per_page: 30, total: 0}}),
    })
    expect(read).toEqual([expect.stringMatching(/the sandbox reads the query parameter sort, which the document does not declare/)])
  })

  it('the suite’s check finds an undocumented status, a body that breaks its schema, and an accepted body that breaks the request schema', () => {
    expect(problemsOf({method: 'GET', path: '/api/v2/customers/7', requestBody: null, status: 418, text: '{}'})[0]).toMatch(
      /does not list status 418/,
    )
    const bad = problemsOf({method: 'GET', path: '/api/v2/customers/7', requestBody: null, status: 200, text: '{"id":"seven"}'})
    expect(bad[0]).toMatch(/breaks its schema/)
    const good = {created_at: '2026-11-26T10:00:00Z', email: 'a@example.com', id: 7, name: 'A', status: 'active'}
    expect(problemsOf({method: 'GET', path: '/api/v2/customers/7', requestBody: null, status: 200, text: JSON.stringify(good)})).toEqual([])
    const accepted = problemsOf({
      method: 'POST',
      path: '/api/v2/customers',
      requestBody: {email: 'a@example.com'},
      status: 201,
      text: JSON.stringify(good),
    })
    expect(accepted[0]).toMatch(/request schema/)
    const list = {data: [], meta: {page: 1, per_page: 500, total: 0}}
    const query = problemsOf({
      method: 'GET',
      path: '/api/v2/customers',
      query: 'per_page=500',
      requestBody: null,
      status: 200,
      text: JSON.stringify(list),
    })
    expect(query[0]).toMatch(/query parameter per_page=500/)
  })

  it('a sandbox process’s answers are checked from its request log: an undocumented status found; faults, cut lines and left-out bodies skipped', () => {
    const dir = tempConfigDir()
    const customer = {created_at: '2026-11-26T10:00:00Z', email: 'a@example.com', id: 7, name: 'A', status: 'active'}
    const entry = (fields: object) =>
      JSON.stringify({method: 'GET', path: '/api/v2/customers/7', query: '', request_body: null, status: 200, ...fields})
    writeFileSync(join(dir.dir, 'sandbox.log.1'), `${entry({response_body: customer})}\n`)
    const lines = [
      entry({response_body: {omitted_bytes: 20_000}}),
      entry({fault: 'status 418', response_body: {}, status: 418}),
      entry({response_body: customer, status: 418}),
      entry({response_body: customer}).slice(0, 30),
    ]
    writeFileSync(join(dir.dir, 'sandbox.log'), lines.join('\n'))
    expect(checkRequestLog(dir.dir)).toBe(3)
    const found = takeViolations()
    expect(found).toHaveLength(1)
    expect(found[0]).toMatch(/does not list status 418/)
    dir.cleanup()
    expect(takeViolations()).toHaveLength(1) // cleanup checked the log before removing it
  })
})
