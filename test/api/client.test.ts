/**
 * The API client (src/api/client.ts) without a process, against a scripted server: the URL it builds, the checks
 * made before anything is sent, a GET retried after a 5xx and a POST not, redirects not followed, the size bound,
 * and the token asked for once and sent as a bearer. Injected sleep: the retries take no time.
 */
import {afterEach, describe, expect, it} from 'vitest'

import {ApiClient, type ClientOptions} from '../../src/api/client.js'
import {ApiError, CliError, UsageError} from '../../src/errors.js'
import {type FaultyServer, type Script, startFaultyServer} from '../helpers/faulty-server.js'

let server: FaultyServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function clientFor(script: Script, options: Partial<ClientOptions> = {}): Promise<ApiClient> {
  server = await startFaultyServer(script)
  let issued = 0
  return new ApiClient({
    apiVersion: 'v2',
    baseUrl: server.url,
    random: () => 0,
    sleep: async () => {},
    tokens: {getToken: async () => `tok${++issued}`, renew: async () => undefined},
    userAgent: 'commerce-cli-test',
    ...options,
  })
}

describe('ApiClient', () => {
  it('builds {base}/api/{version}{path} with the query, sends the bearer and the contract headers', async () => {
    const client = await clientFor(() => ({body: {ok: true}, status: 200}))
    const res = await client.request({auth: true, method: 'GET', path: '/customers', query: {page: 2, q: 'a b', skip: undefined}})
    expect(res.body).toEqual({ok: true})
    const [req] = server!.requests
    expect(req.url).toBe('/api/v2/customers?page=2&q=a+b')
    expect(req.headers.authorization).toBe('Bearer tok1')
    expect(req.headers['user-agent']).toBe('commerce-cli-test')
    expect(req.headers.accept).toMatch(/application\/json/)
  })

  it('refuses a header value with a line break before sending anything', async () => {
    const client = await clientFor(() => ({status: 200}))
    await expect(client.request({auth: true, headers: {'X-Trace': 'a\r\nInjected: 1'}, method: 'GET', path: '/customers'})).rejects.toBeInstanceOf(
      UsageError,
    )
    expect(server!.requests).toHaveLength(0)
  })

  it('retries a GET after a 503, and never a POST (its outcome is unknown)', async () => {
    const get = await clientFor((_, i) => (i === 0 ? {body: {message: 'busy'}, status: 503} : {body: {data: []}, status: 200}))
    expect((await get.request({auth: true, method: 'GET', path: '/customers'})).status).toBe(200)
    expect(server!.requests).toHaveLength(2)
    await server!.close()
    const post = await clientFor(() => ({body: {message: 'busy'}, status: 503}))
    const error = await post.request({auth: true, body: {}, idempotent: false, method: 'POST', path: '/orders'}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).message).toMatch(/outcome of this POST is unknown, so it was not retried/)
    expect(server!.requests).toHaveLength(1)
  })

  it('does not follow a redirect (credentials stay with the base URL)', async () => {
    const client = await clientFor(() => ({headers: {location: 'http://127.0.0.1:9/elsewhere'}, status: 302}))
    await expect(client.request({auth: true, method: 'GET', path: '/customers'})).rejects.toBeInstanceOf(CliError)
    expect(server!.requests).toHaveLength(1)
  })

  it('refuses a response over its size bound without reading it', async () => {
    const client = await clientFor(() => ({headers: {'content-length': String(1 << 30)}, status: 200, stream: {chunk: 'x'.repeat(1024)}}), {
      maxResponseBytes: 1024,
    })
    await expect(client.request({auth: true, method: 'GET', path: '/customers'})).rejects.toThrow(
      /announces 1024 MiB \(Content-Length\), more than the client accepts \(1 KiB\)/,
    )
  })

  it('cuts a body that goes on past its size bound without a Content-Length, and does not retry it', async () => {
    const client = await clientFor(() => ({status: 200, stream: {chunk: 'x'.repeat(4096)}}), {maxResponseBytes: 64 * 1024})
    await expect(client.request({auth: true, method: 'GET', path: '/customers'})).rejects.toThrow(
      /goes on past the bound, more than the client accepts \(64 KiB\)/,
    )
    expect(server!.requests).toHaveLength(1)
  })

  it('a request the HTTP client refuses to build (a header name that is not a token) is a usage error, and nothing is sent', async () => {
    const client = await clientFor(() => ({status: 200}))
    const error = await client.request({auth: true, headers: {'bad name': 'x'}, method: 'GET', path: '/customers'}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).message).toMatch(/^The request could not be sent: .*Nothing was sent\.$/)
    expect(server!.requests).toHaveLength(0)
  })
})
