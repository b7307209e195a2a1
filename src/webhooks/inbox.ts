/**
 * The local inbox: one JSON line per verified delivery, in the config directory. Appends are cheap (records
 * that arrive during a write go out together in the next one); when the file passes its bounds (records or bytes) it is rewritten atomically (temp file + rename) with only the
 * newest records, down to COMPACT_TO of each bound, so that compaction does not run on every append.
 */
import {isUtf8} from 'node:buffer'
import {promises as fs} from 'node:fs'
import {dirname} from 'node:path'
import {acquireLock} from '../config/lock.js'
import {WEBHOOK_INBOX_FILE, configPath} from '../config/paths.js'
import {writeFileAtomic} from '../domain/files.js'

export const INBOX_MAX_RECORDS = 1000
export const INBOX_MAX_BYTES = 16 * 1024 * 1024
const COMPACT_TO = 0.8

export type BodyEncoding = 'utf8' | 'base64'

/** The most of a receiver's answer body an inbox record keeps. */
export const ANSWER_BODY_BYTES = 64 * 1024

/** What the receiver answered a forwarded (or replayed) delivery. */
export interface InboxAnswer {
  status: number
  /** End-to-end headers, names in lower case. */
  headers: Record<string, string>
  /** The first ANSWER_BODY_BYTES of the body (cut at a character boundary when it is UTF-8). */
  body: string
  body_encoding: BodyEncoding
  /** The whole body's size; more than was kept when `body_truncated`. */
  body_bytes: number
  body_truncated: boolean
}

export interface InboxRecord {
  id: string
  type: string
  created_at: string | null
  /** ISO date-time at which the listener received the delivery. */
  received_at: string
  forward_status: number | null
  forward_error?: string
  duration_ms: number
  /** The delivery's end-to-end headers, names in lower case. */
  headers: Record<string, string>
  /** The raw body: as is when it is valid UTF-8, else base64, so that replay is byte for byte. */
  body: string
  body_encoding: BodyEncoding
  /** The receiver's answer (absent without --forward-to, or when it could not be reached: see forward_error). */
  response?: InboxAnswer
  /** This record is a `webhooks replay` of the event, not a delivery from the sender. */
  replayed?: boolean
}

/**
 * A delivery's outcome: `failed` when forwarding failed (forward_error: unreachable, timed out) or the receiver
 * answered other than 2xx; `received` when there was no receiver to forward to; else `ok`.
 */
export function outcomeOf(record: Pick<InboxRecord, 'forward_error' | 'forward_status'>): 'failed' | 'ok' | 'received' {
  if (record.forward_error !== undefined) return 'failed'
  if (record.forward_status === null) return 'received'
  return record.forward_status >= 200 && record.forward_status <= 299 ? 'ok' : 'failed'
}

/** Header pairs as one object, names in lower case, repeats joined with `, `. */
export function headerObject(pairs: ReadonlyArray<readonly [string, string]>): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of pairs) {
    const key = name.toLowerCase()
    headers[key] = key in headers ? `${headers[key]}, ${value}` : value
  }
  return headers
}

/** A receiver's answer as an inbox keeps it: its first ANSWER_BODY_BYTES, at a character boundary when UTF-8. */
export function recordAnswer(answer: {status: number; headers: ReadonlyArray<readonly [string, string]>; body: Buffer}): InboxAnswer {
  const {body} = answer
  let kept = body.subarray(0, ANSWER_BODY_BYTES)
  if (kept.length < body.length && isUtf8(body)) {
    let end = kept.length
    // Back to the start of the character the cut fell in (continuation bytes are 10xxxxxx).
    while (end > 0 && (body[end] & 0xc0) === 0x80) end--
    kept = body.subarray(0, end)
  }
  return {
    ...encodeBody(kept),
    body_bytes: body.length,
    body_truncated: kept.length < body.length,
    headers: headerObject(answer.headers),
    status: answer.status,
  }
}

export function encodeBody(raw: Buffer): {body: string; body_encoding: BodyEncoding} {
  return isUtf8(raw) ? {body: raw.toString('utf8'), body_encoding: 'utf8'} : {body: raw.toString('base64'), body_encoding: 'base64'}
}

export function decodeBody(record: Pick<InboxRecord, 'body' | 'body_encoding'>): Buffer {
  return Buffer.from(record.body, record.body_encoding === 'base64' ? 'base64' : 'utf8')
}

export function defaultInboxPath(env: NodeJS.ProcessEnv = process.env): string {
  return configPath(WEBHOOK_INBOX_FILE, env)
}

export interface InboxOptions {
  /** Defaults to WEBHOOK_INBOX_FILE in the config directory. */
  path?: string
  maxRecords?: number
  maxBytes?: number
}

export class Inbox {
  readonly path: string
  private readonly maxRecords: number
  private readonly maxBytes: number
  /** Records and bytes in the file, learnt on the first write. */
  private counts: {records: number; bytes: number} | undefined
  /** Records waiting for the write in progress to finish; they then go out together in one write. */
  private pending: Array<{line: string; done: (error?: Error) => void}> = []
  private writing = false

  constructor(options: InboxOptions = {}) {
    this.path = options.path ?? defaultInboxPath()
    this.maxRecords = options.maxRecords ?? INBOX_MAX_RECORDS
    this.maxBytes = options.maxBytes ?? INBOX_MAX_BYTES
  }

  /** Resolves once the record is in the file. */
  append(record: InboxRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({done: (error) => (error ? reject(error) : resolve()), line: `${JSON.stringify(record)}\n`})
      if (!this.writing) void this.flush()
    })
  }

  /** Newest first. */
  async listEvents(options: {limit?: number} = {}): Promise<InboxRecord[]> {
    const records = parseLines(await readText(this.path))
      .map((line) => line.record)
      .reverse()
    return options.limit === undefined ? records : records.slice(0, options.limit)
  }

  /** The newest record of that event id (a redelivered event appears once per delivery). */
  async findEvent(id: string): Promise<InboxRecord | undefined> {
    return (await this.listEvents()).find((r) => r.id === id)
  }

  private async flush(): Promise<void> {
    this.writing = true
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0)
      try {
        await this.write(batch.map((entry) => entry.line))
        for (const entry of batch) entry.done()
      } catch (error) {
        for (const entry of batch) entry.done(error as Error)
      }
    }
    this.writing = false
  }

  /**
   * Appends and compactions take a lock beside the inbox (`<inbox>.lock`), so that two listeners on one config
   * directory neither lose each other's appends to a compaction's rename nor let the inbox pass its bound. The
   * counts are re-read whenever the file's size is not the one this process left (another process wrote).
   */
  private async write(lines: string[]): Promise<void> {
    await fs.mkdir(dirname(this.path), {mode: 0o700, recursive: true})
    const lock = await acquireLock(`${this.path}.lock`)
    try {
      await this.writeLocked(lines)
    } finally {
      lock.release()
    }
  }

  private async writeLocked(lines: string[]): Promise<void> {
    let text = lines.join('')
    const size = await fs.stat(this.path).then(
      (st) => st.size,
      () => 0,
    )
    if (!this.counts || this.counts.bytes !== size) {
      const existing = await readText(this.path)
      this.counts = {bytes: Buffer.byteLength(existing), records: parseLines(existing).length}
      // A line cut short by a crash must not swallow the next one.
      if (existing !== '' && !existing.endsWith('\n')) text = `\n${text}`
    }
    await fs.appendFile(this.path, text, {mode: 0o600})
    this.counts.records += lines.length
    this.counts.bytes += Buffer.byteLength(text)
    if (this.counts.records > this.maxRecords || this.counts.bytes > this.maxBytes) await this.compact()
  }

  private async compact(): Promise<void> {
    const lines = parseLines(await readText(this.path))
    const maxRecords = Math.max(1, Math.floor(this.maxRecords * COMPACT_TO))
    const maxBytes = Math.floor(this.maxBytes * COMPACT_TO)
    const kept: string[] = []
    let bytes = 0
    for (let i = lines.length - 1; i >= 0 && kept.length < maxRecords; i--) {
      const size = Buffer.byteLength(lines[i].text) + 1
      // The newest record is always kept, even when it alone passes the byte bound.
      if (kept.length > 0 && bytes + size > maxBytes) break
      kept.push(lines[i].text)
      bytes += size
    }
    await writeFileAtomic(
      this.path,
      kept
        .reverse()
        .map((line) => `${line}\n`)
        .join(''),
    )
    this.counts = {bytes, records: kept.length}
  }
}

async function readText(path: string): Promise<string> {
  try {
    return await fs.readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ''
    throw error
  }
}

/** Oldest first, with each record's line. A line that is not a record (a write cut short by a crash) is skipped. */
function parseLines(text: string): Array<{text: string; record: InboxRecord}> {
  const lines: Array<{text: string; record: InboxRecord}> = []
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    try {
      const record = JSON.parse(line) as InboxRecord
      if (record && typeof record.id === 'string' && typeof record.body === 'string') lines.push({record, text: line})
    } catch {
      // skipped, see above
    }
  }
  return lines
}
