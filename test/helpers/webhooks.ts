/** Real loopback servers and clients for the webhook tests. */
import {mkdtempSync, rmSync} from 'node:fs'
import {request, createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

export interface Received {
  method: string
  url: string
  headers: IncomingHttpHeaders
  rawHeaders: string[]
  body: Buffer
}

export interface Receiver {
  url: string
  port: number
  received: Received[]
  /** How the receiver answers; 200 "ok" by default. */
  respond: (req: Received, res: ServerResponse) => void | Promise<void>
  close(): Promise<void>
}

/** A receiver on 127.0.0.1 (`port` 0: a free one) that records every request and answers with `respond`. */
export async function startReceiver(port = 0): Promise<Receiver> {
  const receiver: Receiver = {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
    port: 0,
    received: [],
    respond: (_req, res) => void res.writeHead(200, {'content-type': 'text/plain'}).end('ok'),
    url: '',
  }
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const got = {body: Buffer.concat(chunks), headers: req.headers, method: req.method!, rawHeaders: req.rawHeaders, url: req.url!}
      receiver.received.push(got)
      void receiver.respond(got, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  receiver.port = (server.address() as AddressInfo).port
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`
  return receiver
}

export interface Reply {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** A POST (or another method) with exactly these headers and body, on a fresh connection. */
export function send(url: string, options: {method?: string; headers?: Record<string, string>; body?: Buffer | string} = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, {agent: false, headers: options.headers, method: options.method ?? 'POST'}, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({body: Buffer.concat(chunks).toString('utf8'), headers: res.headers, status: res.statusCode!}))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

export function makeEvent(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    created_at: '2030-01-01T12:00:00Z',
    data: {id: 42, status: 'paid', total: 1999},
    id: 'evt_1',
    type: 'order.paid',
    ...overrides,
  })
}

export function tempDir(): {path: string; remove(): void} {
  const path = mkdtempSync(join(tmpdir(), 'commerce-webhooks-'))
  return {path, remove: () => rmSync(path, {force: true, recursive: true})}
}

/** A promise with its resolve function, to hold a receiver's answer until a test lets it go. */
export function deferred<T = void>(): {promise: Promise<T>; resolve: (value: T) => void} {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return {promise, resolve}
}

/** A port nothing listens on (bound, then released). */
export async function deadPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
