/**
 * The client's transport without a proxy (src/api/node-transport.ts), through `exchange()` as the client drives it,
 * against servers written on raw sockets for what a real service or what is between may send: what exchange()
 * relies on (headers as undici gives them, 1xx skipped, one failure) and a connection closed early named as such.
 */
import {type AddressInfo, createServer, type Server, type Socket} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'

import {exchange, type ExchangeOptions} from '../../src/api/exchange.js'
import {ConnectionClosed, NodeTransport, NotSendable} from '../../src/api/node-transport.js'
import {MANY_REQUESTS, Transports} from '../../src/api/transports.js'

const servers: Server[] = []
const transports: NodeTransport[] = []
afterEach(async () => {
  for (const transport of transports.splice(0)) await transport.destroy()
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

/** A server that writes `answer(request text, socket)` on each connection once a request's head has come. */
async function rawServer(answer: (head: string, socket: Socket) => void): Promise<string> {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    let head = ''
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1')
      if (head.includes('\r\n\r\n')) answer(head, socket)
    })
    socket.on('error', () => {})
  })
  server.on('close', () => {
    for (const socket of sockets) socket.destroy()
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

function transport(): NodeTransport {
  const made = new NodeTransport({connections: 4, maxHeaderSize: 16 * 1024})
  transports.push(made)
  return made
}

const options = (more: Partial<ExchangeOptions> = {}): ExchangeOptions => ({
  maxBytes: 1024 * 1024,
  timedOut: () => new Error('deadline'),
  timeoutMs: 5000,
  tooLarge: (status) => new Error(`too large (${status})`),
  ...more,
})

const get = (origin: string, headers: Record<string, string> = {}) => ({headers, method: 'GET' as const, origin, path: '/api/v2/products?page=1'})

describe('the transport without a proxy', () => {
  it('skips a 1xx, gives headers as undici does (lower-case, a repeat as an array, no prototype keys) and the body', async () => {
    let seen = ''
    const origin = await rawServer((head, socket) => {
      seen = head
      socket.write('HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n')
      socket.end(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Seen: one\r\nx-seen: two\r\n__proto__: p\r\nConstructor: c\r\nContent-Length: 9\r\n\r\n{"ok":42}',
      )
    })
    const answer = await exchange(transport(), get(origin, {accept: 'application/json'}), options())
    expect(answer.status).toBe(200)
    expect(answer.body.toString()).toBe('{"ok":42}')
    expect(answer.headers['x-seen']).toEqual(['one', 'two'])
    expect(answer.headers['content-type']).toBe('application/json')
    expect(Object.getOwnPropertyDescriptor(answer.headers, '__proto__')?.value).toBe('p')
    expect(answer.headers.constructor).toBe('c')
    expect(seen).toMatch(/^GET \/api\/v2\/products\?page=1 HTTP\/1\.1\r\n/)
    expect(seen.toLowerCase()).toContain('\r\naccept: application/json\r\n')
  })

  it('a connection closed before the answer, or in the middle of its body, is ConnectionClosed', async () => {
    const before = await rawServer((_head, socket) => socket.destroy())
    await expect(exchange(transport(), get(before), options())).rejects.toBeInstanceOf(ConnectionClosed)
    const midway = await rawServer((_head, socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"partial":')
      setImmediate(() => socket.destroy())
    })
    const error = await exchange(transport(), get(midway), options()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConnectionClosed)
    expect((error as ConnectionClosed).message).toBe('the connection closed before the response was complete')
  })

  it('headers past the bound are refused by the parser', async () => {
    const origin = await rawServer((_head, socket) => socket.end(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(20_000)}\r\nContent-Length: 0\r\n\r\n`))
    const error = await exchange(transport(), get(origin), options()).catch((e: unknown) => e)
    expect((error as NodeJS.ErrnoException).code).toBe('HPE_HEADER_OVERFLOW')
  })

  it('a peer that accepts and never answers meets the deadline, and the request is destroyed', async () => {
    let closed = false
    const origin = await rawServer((_head, socket) => socket.on('close', () => (closed = true)))
    const made = transport()
    await expect(exchange(made, get(origin), options({timeoutMs: 200, timedOut: () => new Error('no answer in 200 ms')}))).rejects.toThrow(
      'no answer in 200 ms',
    )
    await made.destroy()
    await expect.poll(() => closed).toBe(true)
  })

  it('a header Node will not put on the wire is NotSendable, before any connection', async () => {
    let connections = 0
    const origin = await rawServer(() => connections++)
    await expect(exchange(transport(), get(origin, {'bad name': 'x'}), options())).rejects.toBeInstanceOf(NotSendable)
    expect(connections).toBe(0)
  })

  it('reuses a kept-alive connection for the next request', async () => {
    const peers = new Set<number>()
    const origin = await rawServer((_head, socket) => {
      peers.add(socket.remotePort!)
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
    })
    const made = transport()
    for (let i = 0; i < 3; i++) expect((await exchange(made, get(origin), options())).body.toString()).toBe('ok')
    expect(peers.size).toBe(1)
  })
})

describe('which transport carries a request (src/api/transports.ts)', () => {
  it("Node's client for a command's first requests, undici's agent past MANY_REQUESTS and through a proxy", async () => {
    const direct = new Transports({baseUrl: 'http://127.0.0.1:9', env: {NO_PROXY: '*'}, timeoutMs: 1000})
    const first = await direct.next()
    expect(first).toBeInstanceOf(NodeTransport)
    for (let sent = 2; sent <= MANY_REQUESTS; sent++) expect(await direct.next()).toBe(first)
    const later = await direct.next()
    expect(later).not.toBeInstanceOf(NodeTransport)
    expect(later.constructor.name).toBe('EnvHttpProxyAgent')
    expect(await direct.next()).toBe(later)
    await direct.close()

    for (const name of ['HTTPS_PROXY', 'HTTP_PROXY', 'https_proxy', 'http_proxy']) {
      const proxied = new Transports({baseUrl: 'http://127.0.0.1:9', env: {[name]: 'http://127.0.0.1:9'}, timeoutMs: 1000})
      expect((await proxied.next()).constructor.name, name).toBe('EnvHttpProxyAgent')
      await proxied.close()
    }
    // Empty is unset, as undici reads it.
    const empty = new Transports({baseUrl: 'http://127.0.0.1:9', env: {HTTP_PROXY: ''}, timeoutMs: 1000})
    expect(await empty.next()).toBeInstanceOf(NodeTransport)
    await empty.close()
  })

  it('a request in flight on the transport left behind completes', async () => {
    let release: (() => void) | undefined
    const origin = await rawServer((head, socket) => {
      const answer = () => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      if (head.includes('/slow') && !release) release = answer
      else answer()
    })
    const choice = new Transports({baseUrl: origin, env: {}, timeoutMs: 5000})
    const slow = exchange(await choice.next(), {...get(origin), path: '/slow'}, options())
    await expect.poll(() => release).toBeDefined()
    for (let sent = 2; sent <= MANY_REQUESTS; sent++) await choice.next()
    const fast = await exchange(await choice.next(), get(origin), options())
    expect(fast.body.toString()).toBe('ok')
    release!()
    expect((await slow).body.toString()).toBe('ok')
    await choice.close()
  })
})
