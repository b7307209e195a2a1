/**
 * One HTTP exchange through undici's dispatch() with a handler of its own, shared by the API client and the
 * webhook listener's forwards: the answer is collected as it comes, without the Readable body, its async
 * iterator and the abort signal that undici's request() sets up for each exchange (8-11% of the time of an export
 * of 50,000). One timer bounds the whole exchange, queueing for a connection included; the body is bounded in
 * bytes, refused at its headers when its Content-Length already says it is too large.
 *
 * Failures reject with what the caller says (`timedOut`, `tooLarge`) or undici's own error (network errors,
 * arguments undici refused), for the caller to put in its words.
 */
import type {Dispatcher} from 'undici'
import {monotonicMs} from '../domain/clock.js'
import type {Transport} from './node-transport.js'

export interface ExchangeRequest {
  origin: string
  /** Path and query. */
  path: string
  method: Dispatcher.HttpMethod
  /** Headers as an object, or as flat name/value pairs (repeats and order kept). */
  headers: Record<string, string> | string[]
  body?: string | Buffer
}

export interface ExchangeOptions {
  /** The whole exchange, from queueing for a connection to the last byte of the answer. */
  timeoutMs: number
  /** The most bytes of answer body read. */
  maxBytes: number
  /** The error when `timeoutMs` passes. */
  timedOut(): Error
  /** The error for a body over `maxBytes`: announced by its Content-Length (`announced` bytes), or read past it. */
  tooLarge(status: number, announced?: number): Error
  /** Gives the exchange up at once when it aborts (an interrupted command), with `aborted(reason)` as the error. */
  signal?: AbortSignal
  aborted?(reason: unknown): Error
  /** Called with the answer's status and headers as they arrive (before its body), e.g. for a trace. */
  onHeaders?(status: number, headers: Record<string, string | string[] | undefined>, headersMs: number): void
}

export interface Exchanged {
  status: number
  /** As undici parses them: lower-case names, an array for a repeated header. */
  headers: Record<string, string | string[] | undefined>
  body: Buffer
  /** Milliseconds from the call to the answer's headers. */
  headersMs: number
}

export function exchange(dispatcher: Transport, request: ExchangeRequest, options: ExchangeOptions): Promise<Exchanged> {
  const started = monotonicMs()
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined
    let settled = false
    let status = 0
    let headers: Record<string, string | string[] | undefined> = {}
    let headersMs = 0
    const chunks: Buffer[] = []
    let size = 0
    const fail = (error: Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      reject(error)
      controller?.abort(error)
    }
    const timer = setTimeout(() => fail(options.timedOut()), options.timeoutMs)
    const {signal} = options
    const onAbort = () => fail(options.aborted?.(signal?.reason) ?? new Error('aborted'))
    if (signal?.aborted) onAbort()
    signal?.addEventListener('abort', onAbort, {once: true})
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c
        if (settled) c.abort(new Error('the exchange was given up'))
      },
      onResponseStart(_c, statusCode, responseHeaders) {
        if (statusCode < 200) return // 1xx: the answer is still to come
        status = statusCode
        headers = responseHeaders
        headersMs = monotonicMs() - started
        options.onHeaders?.(status, headers, headersMs)
        const length = headers['content-length']
        if (typeof length === 'string' && /^\d+$/.test(length) && Number(length) > options.maxBytes) fail(options.tooLarge(status, Number(length)))
      },
      onResponseData(_c, chunk) {
        if (settled) return
        size += chunk.length
        if (size > options.maxBytes) return fail(options.tooLarge(status))
        chunks.push(chunk)
      },
      onResponseEnd() {
        if (settled) return
        settled = true
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        resolve({body: Buffer.concat(chunks, size), headers, headersMs, status})
      },
      onResponseError(_c, error) {
        fail(error)
      },
    }
    try {
      dispatcher.dispatch({body: request.body, headers: request.headers, method: request.method, origin: request.origin, path: request.path}, handler)
    } catch (error) {
      fail(error as Error)
    }
  })
}
