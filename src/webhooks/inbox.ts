/**
 * The local inbox: one JSON line per verified delivery, in the config directory, read newest first within its
 * bounds: an age (received within the last 7 days) and a size (64 MiB), so that routine bulk work (an import of
 * thousands of customers, each an event) loses no history; no count. COMMERCE_INBOX_MAX_AGE and
 * COMMERCE_INBOX_MAX_SIZE change them (inboxBoundsFromEnv). How appends reach the file, and why they never rewrite
 * it: inbox-writer.ts.
 */
import {isUtf8} from 'node:buffer'
import type {FileHandle} from 'node:fs/promises'
import {WEBHOOK_INBOX_FILE, configPath} from '../config/paths.js'
import {openOwnFile} from '../domain/own-file.js'
import {InboxWriter, olderPath} from './inbox-writer.js'
import {readTimestamp} from '../domain/timestamp.js'
import {type Bounds, boundsFromEnv} from '../domain/bounds.js'

export const INBOX_MAX_AGE_MS = 7 * 86_400_000
export const INBOX_MAX_BYTES = 64 * 1024 * 1024

/** The inbox's bounds from COMMERCE_INBOX_MAX_AGE and COMMERCE_INBOX_MAX_SIZE (domain/bounds.ts); the defaults when unset. */
export function inboxBoundsFromEnv(env: NodeJS.ProcessEnv): Bounds {
  return boundsFromEnv(env, {age: 'COMMERCE_INBOX_MAX_AGE', size: 'COMMERCE_INBOX_MAX_SIZE'}, {maxAgeMs: INBOX_MAX_AGE_MS, maxBytes: INBOX_MAX_BYTES})
}

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
  /** The receiver it was forwarded to (`listen --forward-to`, or a replay's), which `replay` uses when given none. */
  forward_to?: string
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
  /** No bound by default (tests set one to see rotation). */
  maxRecords?: number
  maxBytes?: number
  /** Records received longer ago than this are not read (INBOX_MAX_AGE_MS by default). */
  maxAgeMs?: number
  now?: () => number
}

export class Inbox {
  readonly path: string
  private readonly maxRecords: number
  private readonly maxBytes: number
  private readonly maxAgeMs: number
  private readonly now: () => number
  private readonly writer: InboxWriter

  constructor(options: InboxOptions = {}) {
    this.path = options.path ?? defaultInboxPath()
    this.maxRecords = options.maxRecords ?? Number.POSITIVE_INFINITY
    this.maxBytes = options.maxBytes ?? INBOX_MAX_BYTES
    this.maxAgeMs = options.maxAgeMs ?? INBOX_MAX_AGE_MS
    this.now = options.now ?? Date.now
    this.writer = new InboxWriter(this.path, {maxBytes: this.maxBytes, maxRecords: this.maxRecords})
  }

  /** Resolves once the record is in the file. */
  append(record: InboxRecord): Promise<void> {
    return this.writer.append(`${JSON.stringify(record)}\n`)
  }

  /**
   * Newest first: the records received within maxAgeMs, within maxBytes (the newest one always, even when it alone
   * is over) and maxRecords.
   */
  async listEvents(options: {limit?: number} = {}): Promise<InboxRecord[]> {
    const lines = parseLines(await readInbox(this.path))
    const records: InboxRecord[] = []
    const oldest = this.now() - this.maxAgeMs
    let bytes = 0
    for (let i = lines.length - 1; i >= 0 && records.length < Math.min(this.maxRecords, options.limit ?? Infinity); i--) {
      bytes += Buffer.byteLength(lines[i].text) + 1
      if (records.length > 0 && bytes > this.maxBytes) break
      // Appended in the order received: past the first that is too old, all are.
      if ((readTimestamp(lines[i].record.received_at) ?? Number.NaN) < oldest) break
      records.push(lines[i].record)
    }
    return records
  }

  /** The newest record of that event id (a redelivered event appears once per delivery). */
  async findEvent(id: string): Promise<InboxRecord | undefined> {
    return (await this.listEvents()).find((r) => r.id === id)
  }
}

/**
 * The older file and the current one, as one text. The current one is opened first: a rotation in between makes
 * both handles the same file (read once), never a current file opened after the records it held moved away.
 */
async function readInbox(path: string): Promise<string> {
  const current = await openIfAny(path)
  try {
    const older = await openIfAny(olderPath(path))
    try {
      const same = current && older && (await current.stat()).ino === (await older.stat()).ino
      const olderText = older && !same ? await older.readFile({encoding: 'utf8'}) : ''
      const currentText = current ? await current.readFile({encoding: 'utf8'}) : ''
      return olderText === '' || olderText.endsWith('\n') ? olderText + currentText : `${olderText}\n${currentText}`
    } finally {
      await older?.close()
    }
  } finally {
    await current?.close()
  }
}

async function openIfAny(path: string): Promise<FileHandle | undefined> {
  try {
    return await openOwnFile(path, 'read')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
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
