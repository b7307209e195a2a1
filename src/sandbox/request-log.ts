/**
 * The request log: every request the sandbox answers, in a bounded ring (read by `GET /_sandbox/logs` and the
 * inspector page) and, when a file is given, as JSON lines appended to it (rotated to FILE.1 past a size).
 * Secrets never enter it: key secrets, access tokens and signing secrets are masked wherever they appear in a
 * body (by field name and by their prefixes), and response bodies over a size are left out (their size kept).
 */
import {createWriteStream, renameSync, statSync, type WriteStream} from 'node:fs'

import {isObject} from '../domain/json.js'
import type {LogEntry} from '../domain/sandbox-control.js'

export type {LogEntry}

export const MASK = '********'
const SECRET_FIELDS = new Set(['key_secret', 'access_token', 'signing_secret', 'secret', 'password', 'authorization'])
const SECRET_VALUE = /^(?:sbx_secret_|sbx_at_|whsec_)/

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

  /** Records one answered request; `responseText` is the JSON as sent (parsed only when small). */
  add(entry: Omit<LogEntry, 'seq' | 'request_body' | 'response_body'> & {request_body: unknown; response_text?: string}): void {
    const {response_text: text, ...rest} = entry
    let response: unknown = null
    if (text !== undefined && text !== '') {
      if (Buffer.byteLength(text) > this.opts.maxBodyBytes) response = {omitted_bytes: Buffer.byteLength(text)}
      else {
        try {
          response = maskSecrets(JSON.parse(text))
        } catch {
          response = null
        }
      }
    }
    const record: LogEntry = {...rest, request_body: maskSecrets(entry.request_body ?? null), response_body: response, seq: ++this.seq}
    this.ring.push(record)
    if (this.ring.length > this.opts.limit) this.ring.splice(0, this.ring.length - this.opts.limit)
    if (this.stream) this.write(record)
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

  close(): void {
    for (const wake of this.waiters) wake()
    this.waiters.clear()
    this.stream?.end()
    this.stream = undefined
  }

  private open(file: string): void {
    try {
      this.fileBytes = statSync(file).size
    } catch {
      this.fileBytes = 0
    }
    this.stream = createWriteStream(file, {flags: 'a', mode: 0o600})
    this.stream.on('error', (e) => {
      this.opts.onError(e)
      this.stream = undefined
    })
  }

  private write(record: LogEntry): void {
    const line = JSON.stringify(record) + '\n'
    if (this.fileBytes + line.length > this.opts.maxFileBytes && this.opts.file) {
      this.stream!.end()
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
