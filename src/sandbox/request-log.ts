/**
 * The request log: every request the sandbox answers, in a bounded ring (read by `GET /_sandbox/logs` and the
 * inspector page) and, when a file is given, as JSON lines appended to it (rotated to FILE.1 past a size).
 * Secrets never enter it: key secrets, access tokens and signing secrets are masked wherever they appear in a
 * body (by field name and by their prefixes), and response bodies over a size are left out (their size kept).
 */
import {createWriteStream, fstatSync, renameSync, type WriteStream} from 'node:fs'

import {openOwnFileSync} from '../domain/own-file.js'
import {isObject} from '../domain/json.js'
import type {LogEntry} from '../domain/sandbox-control.js'

export type {LogEntry}

export const MASK = '********'
const SECRET_FIELDS = new Set(['key_secret', 'access_token', 'signing_secret', 'secret', 'password', 'authorization'])
const SECRET_VALUE = /^(?:sbx_secret_|sbx_at_|whsec_)/
/** Text that may hold a secret: a field name of SECRET_FIELDS or a secret's prefix, in any case. */
const MAY_HOLD_SECRET = /secret|access_token|password|authorization|sbx_at_|whsec_/i

/** A copy of `value` with every secret replaced by MASK. */
export function maskSecrets(value: unknown, depth = 0): unknown {
  if (depth > 64) return MASK
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? MASK : value
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, depth + 1))
  if (isObject(value)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELDS.has(k.toLowerCase()) && v !== null ? MASK : maskSecrets(v, depth + 1)
    return out
  }
  return value
}

export interface RequestLogOptions {
  limit: number
  /** Response bodies longer than this (bytes of JSON) are logged as `{omitted_bytes: N}`. */
  maxBodyBytes: number
  file?: string
  /** FILE is moved to FILE.1 when it grows past this. */
  maxFileBytes: number
  onError: (error: Error) => void
}

export class RequestLog {
  private readonly ring: LogEntry[] = []
  private seq = 0
  private stream?: WriteStream
  private fileBytes = 0
  private readonly waiters = new Set<() => void>()

  constructor(private readonly opts: RequestLogOptions) {
    if (opts.file) this.open(opts.file)
  }

  /**
   * Records one answered request; `responseText` is the JSON as sent. The response is kept as that text and
   * parsed (and masked) when the entry is first read: parsing and masking every answer as it went out, and
   * keeping a thousand parsed pages for the collector to trace, held the sandbox to 2,800 pages of 100
   * customers a second (7,000 without the log; test/bench/sandbox.bench.ts). The file gets the text as it is
   * when it cannot hold a secret.
   */
  add(entry: Omit<LogEntry, 'seq' | 'request_body' | 'response_body'> & {request_body: unknown; response_text?: string}): void {
    const {response_text: text, ...rest} = entry
    const base = {...rest, request_body: maskSecrets(entry.request_body ?? null), seq: ++this.seq}
    const bytes = text === undefined ? 0 : Buffer.byteLength(text)
    const kept = text !== undefined && text !== '' && bytes <= this.opts.maxBodyBytes ? text : undefined
    let response: unknown = kept === undefined ? (bytes > 0 ? {omitted_bytes: bytes} : null) : undefined
    const read = () => (response ??= parseMasked(kept!))
    if (this.stream) {
      const asSent = kept !== undefined && /^[[{]/.test(kept) && !MAY_HOLD_SECRET.test(kept)
      this.write(asSent ? `${JSON.stringify(base).slice(0, -1)},"response_body":${kept}}\n` : `${JSON.stringify({...base, response_body: read()})}\n`)
    }
    const record = base as LogEntry
    Object.defineProperty(record, 'response_body', {configurable: true, enumerable: true, get: read})
    this.ring.push(record)
    if (this.ring.length > this.opts.limit) this.ring.splice(0, this.ring.length - this.opts.limit)
    for (const wake of this.waiters) wake()
    this.waiters.clear()
  }

  /** Entries after `after` (a seq), oldest first. */
  since(after = 0): LogEntry[] {
    if (after <= 0) return [...this.ring]
    const first = this.ring.findIndex((e) => e.seq > after)
    return first < 0 ? [] : this.ring.slice(first)
  }

  /** Resolves on the next entry or after `ms` (a long poll for --follow and the inspector page). */
  next(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      timer.unref()
      const waiters = this.waiters
      function done() {
        clearTimeout(timer)
        waiters.delete(done)
        resolve()
      }
      waiters.add(done)
    })
  }

  clear(): void {
    this.ring.length = 0
  }

  /** Resolves once the file has what was written. */
  close(): Promise<void> {
    for (const wake of this.waiters) wake()
    this.waiters.clear()
    const stream = this.stream
    this.stream = undefined
    return new Promise((resolve) => (stream && !stream.destroyed ? stream.end(resolve) : resolve()))
  }

  private open(file: string): void {
    let fd: number
    try {
      // Never through a link or into a FIFO planted at the name (src/domain/files.ts).
      fd = openOwnFileSync(file, 'append')
      this.fileBytes = fstatSync(fd).size
    } catch (error) {
      this.opts.onError(error as Error)
      this.stream = undefined
      return
    }
    this.stream = createWriteStream(file, {fd})
    this.stream.on('error', (e) => {
      this.opts.onError(e)
      this.stream = undefined
    })
  }

  private write(line: string): void {
    if (this.fileBytes + line.length > this.opts.maxFileBytes && this.opts.file) {
      this.stream?.end()
      try {
        renameSync(this.opts.file, `${this.opts.file}.1`)
      } catch {}
      this.open(this.opts.file)
      this.fileBytes = 0
    }
    this.fileBytes += Buffer.byteLength(line)
    this.stream?.write(line)
  }
}

/** A response body as the log keeps it: parsed, with its secrets masked; null when it is not JSON. */
function parseMasked(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text)
    return MAY_HOLD_SECRET.test(text) ? maskSecrets(value) : value
  } catch {
    return null
  }
}
