/**
 * One request to the sandbox, from its arrival to its answer and its line in the request log: the control path's
 * guard, an injected fault, the route, the data file's sync before a write is answered, the v1 deprecation headers.
 */
import type {IncomingMessage, ServerResponse} from 'node:http'
import {STATUS_CODES} from 'node:http'
import type {Socket} from 'node:net'

import type {Core} from './core.js'
import {CONTROL_PREFIX, MAX_BODY_BYTES, MAX_JSON_DEPTH, V1_DEPRECATION_HEADER, V1_SUNSET_HEADER} from './decisions.js'
import {describeFault, type FaultRule} from './faults.js'
import {checkControlRequest} from './guard.js'
import {errorReply, HttpError, readJsonBody, type Reply, type Router, writeReply} from './http.js'
import type {DataFile} from './persistence.js'
import {monotonicMs} from '../domain/clock.js'

/** What serving a request needs of the running sandbox. */
export interface Site {
  core: Core
  router: Router
  dataFile?: DataFile
  now: () => number
  log: (line: string) => void
  /** The Host values the control path accepts (known once the server listens). */
  controlHosts: () => Set<string>
  /** Told of every answer the sandbox itself gave (not a fault's): the test suite checks each against the document. */
  onAnswer?: (answer: SandboxAnswer) => void
}

export interface SandboxAnswer {
  method: string
  path: string
  /** The query string, without `?`. */
  query: string
  status: number
  headers: Record<string, string>
  /** The response body as sent (undefined for none). */
  text: string | undefined
  /** The request's parsed JSON body, when the handler read one. */
  requestBody: unknown
  /** The query parameters the handler read (what the sandbox honours): its OpenAPI document must declare each. */
  queryRead: string[]
}

/** A request's query that remembers which parameters were read, so that a test can hold the document to them. */
class ReadQuery extends URLSearchParams {
  readonly read = new Set<string>()
  override get(name: string): string | null {
    this.read.add(name)
    return super.get(name)
  }
  override getAll(name: string): string[] {
    this.read.add(name)
    return super.getAll(name)
  }
  override has(name: string, value?: string): boolean {
    this.read.add(name)
    return super.has(name, value)
  }
}

export async function handleRequest(site: Site, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const {core, dataFile, log, now, router} = site
  const {requestLog} = core
  const started = monotonicMs()
  const at = now()
  const target = req.url ?? '/'
  const q = target.indexOf('?')
  const path = q < 0 ? target : target.slice(0, q)
  const method = req.method ?? 'GET'
  let fault: FaultRule | undefined
  let parsedBody: Promise<unknown> | undefined
  let requestBody: unknown = null
  let query: ReadQuery | undefined
  let reply: Reply
  try {
    if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) checkControlRequest(req, site.controlHosts())
    fault = path.startsWith('/api/') ? core.faults.take(method, path) : undefined
    if (fault) await applyFault(fault, req)
    const {handler, params} = router.resolve(method, path)
    query = new ReadQuery(q < 0 ? '' : target.slice(q + 1))
    reply = await handler({
      body: () =>
        (parsedBody ??= readJsonBody(req, MAX_BODY_BYTES, MAX_JSON_DEPTH).then((value) => {
          requestBody = value ?? null
          return value
        })),
      method,
      params,
      path,
      query,
      req,
    })
  } catch (error) {
    if (error instanceof HttpError) {
      reply = errorReply(error)
    } else {
      log(`${method} ${path} failed: ${(error as Error)?.stack ?? String(error)}`)
      reply = {body: {message: 'Internal sandbox error'}, status: 500}
    }
  }
  // A write is answered only once it is on disk (the journal's group commit); failing that, a 500.
  if (dataFile) {
    try {
      await dataFile.sync()
    } catch (error) {
      log(`could not save a change to ${dataFile.path}: ${(error as Error).message}`)
      reply = {body: {message: 'The sandbox could not save the change to its data file'}, status: 500}
    }
  }
  if (path.startsWith('/api/v1/'))
    reply.headers = {...reply.headers, deprecation: V1_DEPRECATION_HEADER, link: '</api/v2>; rel="successor-version"', sunset: V1_SUNSET_HEADER}
  const entry = {
    duration_ms: 0,
    ...(fault ? {fault: describeFault(fault)} : {}),
    key_id: keyIdOf(core, req, requestBody),
    method,
    path,
    query: q < 0 ? '' : target.slice(q + 1),
    request_body: requestBody,
    status: reply.status,
    time: new Date(at).toISOString(),
  }
  // A dropped connection (a fault) has no one to answer: its socket is gone before the response knows it.
  if (res.headersSent || res.destroyed || req.socket.destroyed) {
    if (!unlogged(method, path)) requestLog.add({...entry, duration_ms: Math.round((monotonicMs() - started) * 10) / 10})
    return
  }
  const text = reply.raw ?? (reply.body === undefined ? undefined : JSON.stringify(reply.body))
  try {
    writeReply(res, {...reply, raw: text})
  } catch (error) {
    log(`could not answer ${method} ${path}: ${(error as Error).message}`)
    res.destroy()
  }
  if (!unlogged(method, path)) requestLog.add({...entry, duration_ms: Math.round((monotonicMs() - started) * 10) / 10, response_text: text})
  const queryRead = [...(query?.read ?? [])]
  if (!fault) site.onAnswer?.({headers: {...reply.headers}, method, path, query: entry.query, queryRead, requestBody, status: reply.status, text})
}

/** An injected fault: its delay, then a dropped connection or its status (thrown as the reply); else nothing. */
async function applyFault(fault: FaultRule, req: IncomingMessage): Promise<void> {
  if (fault.delay_ms) await new Promise((resolve) => setTimeout(resolve, fault.delay_ms!))
  if (fault.drop) {
    req.socket.destroy()
    throw new HttpError(0, 'dropped')
  }
  if (fault.status !== null)
    throw new HttpError(
      fault.status,
      `Injected fault ${describeFault(fault)} (sandbox fault add)`,
      undefined,
      fault.retry_after === null ? {} : {'retry-after': String(fault.retry_after)},
    )
}

/** Reads of the control path are not logged: `logs --follow` and the inspector page would fill the log with themselves. */
function unlogged(method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`))
}

/** The key pair behind a request: its bearer token's, or the key_id of a token request. */
function keyIdOf(core: Core, req: IncomingMessage, body: unknown): string | null {
  const m = /^Bearer +(\S+)/i.exec(req.headers.authorization ?? '')
  if (m) {
    const found = core.tokens.lookup(m[1])
    return found.state === 'valid' || found.state === 'revoked' ? found.token.keyId : null
  }
  const keyId = (body as {key_id?: unknown} | null)?.key_id
  return typeof keyId === 'string' ? keyId : null
}

/**
 * Requests Node cannot parse (a malformed request line or header, headers over its size limit, a body cut
 * short) never reach the router; they get a JSON `{message}` too (Node's default answer has no body), unless
 * a response is already being written on the connection (as Node checks), and the connection is closed.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  const inFlight = (socket as Socket & {_httpMessage?: ServerResponse | null})._httpMessage
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) return void socket.destroy()
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request was not received in time']
        : [400, `Malformed HTTP request${error.code ? ` (${error.code})` : ''}`]
  const body = JSON.stringify({message})
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  )
}
