/**
 * The small HTTP layer: a route table with 404/405, request bodies (413/415/400), JSON replies, and the
 * error type handlers throw to answer `{message}` or `{message, errors}`.
 */
import type {IncomingMessage, ServerResponse} from 'node:http'

import {nestsDeeper} from '../domain/json.js'
import type {FieldErrors} from '../domain/validate.js'

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

/** 422 `{message, errors}`; the message names the first problem so that it reads well alone. */
export function validationError(errors: FieldErrors): HttpError {
  const [field, messages] = Object.entries(errors)[0] ?? ['body', ['is invalid']]
  return new HttpError(422, `Validation failed: ${field} ${messages[0]}`, errors)
}

export interface Reply {
  status: number
  body?: unknown
  /** A body already serialised (an idempotent replay is sent byte for byte). */
  raw?: string
  headers?: Record<string, string>
}

export interface Request {
  req: IncomingMessage
  method: string
  path: string
  query: URLSearchParams
  params: Record<string, string>
  /** The parsed JSON body, `undefined` when the request has none. */
  body: () => Promise<unknown>
}

export type Handler = (request: Request) => Promise<Reply> | Reply

interface Route {
  method: string
  regex: RegExp
  names: string[]
  handler: Handler
}

export class Router {
  private readonly routes: Route[] = []

  /** `pattern` uses `:name` for a path segment, e.g. `/api/v2/customers/:customer`. */
  add(method: string, pattern: string, handler: Handler): this {
    const names: string[] = []
    const source = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_, name: string) => {
      names.push(name)
      return '([^/]+)'
    })
    this.routes.push({handler, method, names, regex: new RegExp(`^${source}$`)})
    return this
  }

  /** The handler for a request, or the 404/405 error to answer. */
  resolve(method: string, path: string): {handler: Handler; params: Record<string, string>} {
    const allowed: string[] = []
    for (const route of this.routes) {
      const m = route.regex.exec(path)
      if (!m) continue
      if (route.method !== method) {
        allowed.push(route.method)
        continue
      }
      const params: Record<string, string> = {}
      route.names.forEach((name, i) => (params[name] = decodeSegment(m[i + 1])))
      return {handler: route.handler, params}
    }
    if (allowed.length > 0)
      throw new HttpError(405, `Method ${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`, undefined, {
        allow: allowed.join(', '),
      })
    throw new HttpError(404, `No route for ${method} ${path}`)
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i

/** Reads a JSON body of at most `limit` bytes, nesting at most `maxDepth` objects/arrays. */
export function readJsonBody(req: IncomingMessage, limit: number, maxDepth: number): Promise<unknown> {
  const length = req.headers['content-length']
  const declared = length === undefined ? undefined : Number(length)
  const chunked = req.headers['transfer-encoding'] !== undefined
  if (!chunked && (declared === undefined || declared === 0)) return Promise.resolve(undefined)
  if (declared !== undefined && declared > limit) return Promise.reject(tooLarge(limit))
  const type = req.headers['content-type']
  if (!type || !JSON_TYPE.test(type))
    return Promise.reject(new HttpError(415, `Content-Type must be application/json (got ${type ? JSON.stringify(type) : 'none'})`))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        req.off('data', onData)
        req.resume() // discard the rest; the reply closes the connection
        reject(tooLarge(limit))
        return
      }
      chunks.push(chunk)
    }
    req.on('data', onData)
    req.on('error', reject)
    req.on('close', () => {
      if (!req.complete) reject(new HttpError(400, 'The request body was cut short'))
    })
    req.on('end', () => {
      if (size > limit) return
      const text = Buffer.concat(chunks).toString('utf8')
      if (text.trim() === '') return resolve(undefined)
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch (error) {
        return reject(new HttpError(400, `Request body is not valid JSON: ${(error as Error).message}`))
      }
      if (nestsDeeper(value, maxDepth)) return reject(new HttpError(400, `Request body nests deeper than ${maxDepth} levels`))
      resolve(value)
    })
  })
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `Request body is larger than ${limit} bytes`, undefined, {connection: 'close'})
}

export function writeReply(res: ServerResponse, reply: Reply): void {
  const text = reply.raw ?? (reply.body === undefined ? undefined : JSON.stringify(reply.body))
  const headers: Record<string, string | number> = {...reply.headers}
  if (text !== undefined) {
    headers['content-type'] ??= 'application/json; charset=utf-8'
    headers['content-length'] = Buffer.byteLength(text)
  }
  res.writeHead(reply.status, headers)
  res.end(text)
}

export function errorReply(error: HttpError): Reply {
  const body = error.errors ? {message: error.message, errors: error.errors} : {message: error.message}
  return {body, headers: error.headers, status: error.status}
}
