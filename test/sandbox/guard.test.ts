/**
 * The control path refuses what a web page could send it: a foreign Host (DNS rebinding),
 * a foreign Origin, a write without a JSON content type (a cross-site "simple" request). Raw node:http requests,
 * since fetch would not let the test set Host.
 */
import {request} from 'node:http'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {allowedHosts} from '../../src/sandbox/guard.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'
import {call, createCustomer, createOrder, token} from '../helpers/sandbox-client.js'

let sb: TestSandbox
beforeEach(async () => {
  sb = await startTestSandbox()
})
afterEach(() => sb.close())

function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{status: number; text: string}> {
  return new Promise((resolve, reject) => {
    const req = request({headers, host: '127.0.0.1', method, path, port: sb.port, setHost: false}, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (d: string) => (text += d))
      res.on('end', () => resolve({status: res.statusCode!, text}))
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function pendingOrder(): Promise<number> {
  const t = await token(sb)
  const c = await createCustomer(sb, t, `g${Math.random()}@example.com`)
  return (await createOrder(sb, t, {customer_id: c.body.id, currency: 'USD', items: [{product_id: 1}]})).body.id as number
}

const status = async (id: number) => (await call(sb, 'GET', `/api/v2/orders/${id}`, {token: await token(sb)})).body.status

describe('control path guard', () => {
  it('a cross-site text/plain POST with a foreign Origin and Host pays nothing', async () => {
    const id = await pendingOrder()
    const r = await send(
      'POST',
      `/_sandbox/orders/${id}/pay`,
      {'content-type': 'text/plain', host: 'evil.example:80', origin: 'http://evil.example'},
      '{}',
    )
    expect(r.status).toBe(403)
    expect(await status(id)).toBe('pending')
  })

  it('a foreign Host is refused even on GET (DNS rebinding); the API itself is not concerned', async () => {
    expect((await send('GET', '/_sandbox', {host: `rebind.example:${sb.port}`})).status).toBe(403)
    expect((await send('GET', '/_sandbox/deliveries', {host: `127.0.0.1:1`})).status).toBe(403)
    expect((await send('GET', '/api/v2/products', {host: 'api.example'})).status).toBe(200)
  })

  it('a foreign Origin is refused with the right Host', async () => {
    const id = await pendingOrder()
    for (const origin of ['http://evil.example', 'null', `https://127.0.0.1:${sb.port}`, `http://127.0.0.1:${sb.port + 1}`]) {
      const r = await send('POST', `/_sandbox/orders/${id}/pay`, {'content-type': 'application/json', host: `127.0.0.1:${sb.port}`, origin}, '{}')
      expect(r.status, origin).toBe(403)
    }
    expect(await status(id)).toBe('pending')
  })

  it('a write without a JSON content type is 415 (text/plain, form, none)', async () => {
    const id = await pendingOrder()
    const host = `127.0.0.1:${sb.port}`
    expect((await send('POST', `/_sandbox/orders/${id}/pay`, {'content-type': 'text/plain', host}, '{}')).status).toBe(415)
    expect((await send('POST', `/_sandbox/orders/${id}/pay`, {'content-type': 'application/x-www-form-urlencoded', host}, 'a=1')).status).toBe(415)
    expect((await send('POST', `/_sandbox/orders/${id}/pay`, {host})).status).toBe(415)
    expect(await status(id)).toBe('pending')
  })

  it('accepts 127.0.0.1, localhost and [::1] with the port, and its own Origin', async () => {
    const id = await pendingOrder()
    for (const host of [`127.0.0.1:${sb.port}`, `localhost:${sb.port}`, `[::1]:${sb.port}`, `LOCALHOST:${sb.port}`])
      expect((await send('GET', '/_sandbox', {host})).status, host).toBe(200)
    const r = await send('POST', `/_sandbox/orders/${id}/pay`, {
      'content-type': 'application/json',
      host: `localhost:${sb.port}`,
      origin: `http://localhost:${sb.port}`,
    })
    expect(r.status).toBe(200)
    expect(await status(id)).toBe('paid')
  })

  it('bound to one address, only that address; bound to every address, loopback names too', () => {
    expect([...allowedHosts('192.0.2.7', 4242)]).toEqual(['192.0.2.7:4242'])
    expect(allowedHosts('::1', 80)).toEqual(new Set(['[::1]:80', '127.0.0.1:80', 'localhost:80']))
    const any = allowedHosts('0.0.0.0', 4242)
    expect(any.has('localhost:4242')).toBe(true)
    expect(any.has('0.0.0.0:4242')).toBe(false)
  })
})
