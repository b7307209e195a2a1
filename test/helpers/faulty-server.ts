/**
 * A small HTTP server for faults the sandbox cannot produce (5xx, dropped connections, HTML or empty error
 * bodies, 429 with an HTTP-date Retry-After...). Each request is recorded and answered by a script; a script
 * step can also forward the request to an upstream (the sandbox) and then drop the connection instead of
 * answering, which is how "the request took effect but the response was lost" is produced.
 */
import {type IncomingHttpHeaders, type IncomingMessage, type Server, createServer, request as httpRequest} from 'node:http'
import type {AddressInfo, Socket} from 'node:net'

export interface RecordedRequest {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

export interface Step {
  status?: number
  headers?: Record<string, string>
  /** A string is sent as is; anything else as JSON. */
  body?: unknown
  /** Destroy the socket without answering. */
  drop?: boolean
  /** Forward to the upstream first (then answer with its response, or drop when `drop` is set). */
  forward?: boolean
}

export type Script = (req: RecordedRequest, index: number) => Promise<Step> | Step

export interface FaultyServer {
  url: string
  requests: RecordedRequest[]
  close(): Promise<void>
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = ''
    req.setEncoding('utf8').on('data', (d: string) => (body += d))
    req.on('end', () => resolve(body))
  })
}

function forward(upstream: string, rec: RecordedRequest): Promise<{status: number; headers: Record<string, string>; body: string}> {
  return new Promise((resolve, reject) => {
    const target = new URL(rec.url, upstream)
    const headers = {...rec.headers, host: target.host}
    const req = httpRequest(target, {headers, method: rec.method}, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (d: string) => (body += d))
      res.on('end', () => {
        const out: Record<string, string> = {}
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string' && k !== 'content-length' && k !== 'connection' && k !== 'keep-alive' && k !== 'transfer-encoding') out[k] = v
        resolve({body, headers: out, status: res.statusCode ?? 502})
      })
    })
    req.on('error', reject)
    req.end(rec.body)
  })
}

export async function startFaultyServer(script: Script, options: {upstream?: string} = {}): Promise<FaultyServer> {
  const requests: RecordedRequest[] = []
  const sockets = new Set<Socket>()
  const server: Server = createServer(async (req, res) => {
    const rec: RecordedRequest = {body: await readBody(req), headers: req.headers, method: req.method ?? 'GET', url: req.url ?? '/'}
    const index = requests.push(rec) - 1
    try {
      const step = await script(rec, index)
      let status = step.status ?? 200
      let headers = step.headers ?? {}
      let body: string | undefined = step.body === undefined ? undefined : typeof step.body === 'string' ? step.body : JSON.stringify(step.body)
      if (step.forward) {
        if (!options.upstream) throw new Error('forward needs an upstream')
        const up = await forward(options.upstream, rec)
        ;({body, headers, status} = {body: up.body, headers: {...up.headers, ...headers}, status: up.status})
      }
      if (step.drop) {
        req.socket.destroy()
        return
      }
      if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
        headers = {...headers, 'content-type': typeof step.body === 'string' && !step.forward ? 'text/plain' : 'application/json'}
      res.writeHead(status, headers)
      res.end(body)
    } catch (error) {
      res.writeHead(599)
      res.end(String(error))
    }
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
    requests,
    url: `http://127.0.0.1:${port}`,
  }
}
