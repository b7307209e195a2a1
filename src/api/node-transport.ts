/**
 * The API client's transport for a command's first requests where no proxy is set (transports.ts decides): Node's
 * own HTTP client behind the one method of undici's Dispatcher that `exchange()` calls. undici costs a command 15-20
 * ms before its first byte (its 0.76 MB bundle and code cache, its agent, its WebAssembly parser compiled on the first
 * connection), where node:http's parser is built into Node and its modules mostly loaded with the sockets
 * (docs/performance.md). undici stays the transport through a proxy (HTTP(S)_PROXY, CONNECT tunnels), past a
 * client's first hundred requests, and for the webhook listener's forwards.
 *
 * What `exchange()` relies on, kept alike: headers as undici gives them (lower-case names, an array for a repeated
 * one), 1xx answers skipped, the body as Buffers, a controller whose abort destroys the request, and a failure
 * once. A connection that closes before the answer is complete is `ConnectionClosed`, whatever Node names it.
 */
import {Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage} from 'node:http'

import type {Dispatcher} from 'undici'

/** What `exchange()` needs of a dispatcher: undici's agents have it, and so does NodeTransport. */
export interface Transport {
  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean
  destroy(): Promise<void>
}

/** The connection closed before the whole answer came (the server or something between hung up). */
export class ConnectionClosed extends Error {
  readonly code = 'COMMERCE_CONNECTION_CLOSED'
  constructor(cause: Error) {
    super('the connection closed before the response was complete', {cause})
  }
}

/** Node refused to build the request (a header name that is not a token, a value with a control character): nothing was sent. */
export class NotSendable extends Error {
  readonly code = 'COMMERCE_NOT_SENDABLE'
  constructor(cause: Error) {
    super(cause.message, {cause})
  }
}

export interface NodeTransportOptions {
  /** Connections kept per origin. */
  connections: number
  /** The most bytes of an answer's headers (Node's parser refuses more: HPE_HEADER_OVERFLOW). */
  maxHeaderSize: number
  /**
   * node:https, given by a caller that will speak to an https origin: it loads node:tls and node:crypto (some 10 ms),
   * which a command against http://127.0.0.1 never needs.
   */
  https?: typeof import('node:https')
}

export class NodeTransport implements Transport {
  private readonly http: HttpAgent
  private readonly https?: HttpAgent
  private readonly requests = new Set<ClientRequest>()

  constructor(private readonly options: NodeTransportOptions) {
    // Kept-alive sockets wait unreferenced: an idle pool never holds the process open.
    const agent = {keepAlive: true, maxSockets: options.connections, scheduling: 'lifo' as const}
    this.http = new HttpAgent(agent)
    this.https = options.https && new options.https.Agent(agent)
  }

  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = new URL(String(options.origin))
    const secure = origin.protocol === 'https:'
    if (secure && !this.options.https) throw new TypeError(`no https transport was made for ${origin.origin}`)
    const controller = new Controller()
    let done = false
    const failed = (error: Error) => {
      if (done) return
      done = true
      handler.onResponseError?.(controller, error)
    }
    let req: ClientRequest
    try {
      req = (secure ? this.options.https!.request : httpRequest)({
        agent: secure ? this.https : this.http,
        headers: options.headers as Record<string, string> | string[] | undefined,
        hostname: origin.hostname.replace(/^\[(.*)\]$/, '$1'),
        maxHeaderSize: this.options.maxHeaderSize,
        method: options.method,
        path: options.path,
        port: origin.port,
      })
    } catch (error) {
      // Node checks a request's method, path and headers as it builds it, before any connection.
      throw new NotSendable(error as Error)
    }
    this.requests.add(req)
    req.on('close', () => this.requests.delete(req))
    controller.onAbort = (reason) => {
      done = true
      req.destroy(reason)
    }
    req.on('error', (error: NodeJS.ErrnoException) => failed(closedEarly(error) ? new ConnectionClosed(error) : error))
    req.on('response', (res: IncomingMessage) => {
      if (done) return void res.destroy()
      controller.onPause = () => res.pause()
      controller.onResume = () => res.resume()
      res.on('error', (error: NodeJS.ErrnoException) => failed(closedEarly(error) ? new ConnectionClosed(error) : error))
      handler.onResponseStart?.(controller, res.statusCode ?? 0, undiciHeaders(res.rawHeaders), res.statusMessage ?? '')
      if (done) return void res.destroy()
      res.on('data', (chunk: Buffer) => {
        if (!done) handler.onResponseData?.(controller, chunk)
      })
      res.on('end', () => {
        if (done) return
        done = true
        handler.onResponseEnd?.(controller, undiciHeaders(res.rawTrailers))
      })
    })
    handler.onRequestStart?.(controller, {})
    if (done) return false
    req.end(options.body as string | Buffer | undefined)
    return true
  }

  async destroy(): Promise<void> {
    for (const req of this.requests) req.destroy()
    this.http.destroy()
    this.https?.destroy()
  }
}

class Controller implements Dispatcher.DispatchController {
  aborted = false
  paused = false
  reason: Error | null = null
  onAbort?: (reason: Error) => void
  onPause?: () => void
  onResume?: () => void

  abort(reason: Error): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    this.onAbort?.(reason)
  }

  pause(): void {
    this.paused = true
    this.onPause?.()
  }

  resume(): void {
    this.paused = false
    this.onResume?.()
  }
}

/** Node's words for a connection that ended mid-exchange: "socket hang up" before the answer, "aborted" during it. */
function closedEarly(error: NodeJS.ErrnoException): boolean {
  return error.code === 'ECONNRESET' && (error.message === 'socket hang up' || error.message === 'aborted')
}

/** Raw name/value pairs as undici parses them: lower-case names, a repeated header's values in an array. */
function undiciHeaders(raw: string[]): Record<string, string | string[]> {
  const headers = Object.create(null) as Record<string, string | string[]>
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase()
    const seen = headers[name]
    if (seen === undefined) headers[name] = raw[i + 1]
    else if (Array.isArray(seen)) seen.push(raw[i + 1])
    else headers[name] = [seen, raw[i + 1]]
  }
  return headers
}
