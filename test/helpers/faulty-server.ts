/**
 * A small HTTP server for faults the sandbox cannot produce (5xx, dropped connections, HTML or empty error
 * bodies, 429 with an HTTP-date Retry-After...). Each request is recorded and answered by a script; a script
 * step can also forward the request to an upstream (the sandbox) and then drop the connection instead of
 * answering, which is how "the request took effect but the response was lost" is produced. A step may also
 * stream a body without end (as fast as the client reads, or dripping a chunk per interval), with any
 * Content-Length announced: the hostile servers the client's byte bound and deadline are tested against.
 */
import {type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse, createServer, request as httpRequest} from 'node:http'
import {type AddressInfo, type Socket, connect as netConnect} from 'node:net'

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
  /**
   * Send `prefix`, then `chunk` again and again until the client goes away (or the server closes): as fast as the
   * client reads (backpressure respected), or one chunk per `intervalMs`. Headers come from `status`/`headers`
   * (a `content-length` there is announced as given, whatever is sent).
   */
  stream?: {prefix?: string; chunk: string; intervalMs?: number}
}

export type Script = (req: RecordedRequest, index: number) => Promise<Step> | Step

export interface FaultyServer {
  url: string
  requests: RecordedRequest[]
  /** Hosts asked for with CONNECT: the server is also an HTTP proxy that tunnels every CONNECT to itself. */
  tunnels: string[]
  /** Body bytes written by `stream` steps so far. */
  streamedBytes(): number
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
        for (const [k, v] of Object.entries(res.headers))
          if (typeof v === 'string' && k !== 'content-length' && k !== 'connection' && k !== 'keep-alive' && k !== 'transfer-encoding') out[k] = v
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
  let streamed = 0
  let closing = false
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
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
      if (step.stream) {
        const {chunk, intervalMs, prefix} = step.stream
        res.writeHead(status, {'content-type': 'application/json', ...headers})
        const write = (text: string) => {
          streamed += Buffer.byteLength(text)
          return res.write(text)
        }
        if (prefix) write(prefix)
        while (!closing && !res.destroyed && !res.writableEnded) {
          const flowing = write(chunk)
          if (intervalMs !== undefined) await new Promise((resolve) => setTimeout(resolve, intervalMs))
          else if (!flowing)
            await new Promise<void>((resolve) => {
              const done = () => {
                res.off('drain', done).off('close', done)
                resolve()
              }
              res.on('drain', done).on('close', done)
            })
        }
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
  }
  const server: Server = createServer((req, res) => void handle(req, res))
  const tunnels: string[] = []
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push(req.url ?? '')
    const self = netConnect((server.address() as AddressInfo).port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      self.write(head)
      self.pipe(client).pipe(self)
    })
    sockets.add(self)
    self.on('close', () => sockets.delete(self))
    self.on('error', () => client.destroy())
    client.on('error', () => self.destroy())
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    async close() {
      closing = true
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
    requests,
    streamedBytes: () => streamed,
    tunnels,
    url: `http://127.0.0.1:${port}`,
  }
}
