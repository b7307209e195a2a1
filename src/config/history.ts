/**
 * The history: every request of this CLI that changed an account (any non-GET but the token's issue), from any
 * surface, one JSON line an entry in `history.jsonl` in the config directory (what `commerce history` lists and
 * `history undo` reverses). Entries name their profile and origin; an import or a fixtures run is one entry.
 *
 * The file is ours as every file of the config directory is (domain/own-file.ts: 0600, never through a link or a
 * FIFO); an append is one write under the lock beside it (config/lock.ts), so that concurrent commands leave whole
 * lines. Bounded as the webhook inbox is (domain/bounds.ts): when the file reaches half its size bound it becomes
 * `history.jsonl.1` (replacing the older one), and entries older than the age bound are not read.
 * COMMERCE_NO_HISTORY=1, or a profile's `history` set to `off`, records nothing.
 */
import {AsyncLocalStorage} from 'node:async_hooks'
import {mkdir, rename} from 'node:fs/promises'
import {dirname} from 'node:path'

import {type Bounds, boundsFromEnv} from '../domain/bounds.js'
import {openOwnFile, readOwnFile} from '../domain/own-file.js'
import {readTimestamp} from '../domain/timestamp.js'
import {acquireLock} from './lock.js'
import {configPath} from './paths.js'

export const HISTORY_FILE = 'history.jsonl'
export const HISTORY_MAX_AGE_MS = 90 * 86_400_000
export const HISTORY_MAX_BYTES = 16 * 1024 * 1024

/** Where a change came from. */
export const SURFACES = ['cli', 'mcp', 'import', 'fixtures', 'api'] as const
export type Surface = (typeof SURFACES)[number]

export interface HistoryEntry {
  /** Its reference, for `history show` and `history undo`. */
  entry: string
  /** Shared by the entries of one invocation (a command, a tool call). */
  run: string
  /** ISO date-time the answer came (or did not). */
  time: string
  profile: string
  /** The service's origin (scheme, host, port). */
  origin: string
  surface: Surface
  /** The command line or the tool call, secrets redacted. */
  command: string
  method: string
  /** The path as sent (`/api/v2/customers/42`). */
  path: string
  /** The HTTP status, or `unknown`: sent, and no answer came. */
  status: number | 'unknown'
  /** The service's own words when it refused (never ours). */
  service_message: string | null
  /** The id of the record the answer names (or the path names). */
  record_id: number | string | null
  idempotency_key: string | null
  /** The record just before an update or a delete (read before the write), secrets redacted. */
  before: unknown
  /** What the service answered (the record as made or changed), secrets redacted. */
  after: unknown
  /** The entry this one undid (`history undo`). */
  undoes?: string
  /** An import's journal or a fixtures run's ledger, and what it did. */
  journal?: string
  counts?: Record<string, number>
}

/**
 * What the requests made within it belong to, where one process makes changes for several callers (`commerce mcp`'s
 * tool calls, each its own run) or on behalf of an earlier change (`history undo`: the entry it undoes).
 */
export const historyScope = new AsyncLocalStorage<{run?: string; command?: string; undoes?: string}>()

/** The fields of an entry, as `--fields` knows them. */
export const HISTORY_FIELDS = [
  'entry',
  'run',
  'time',
  'profile',
  'origin',
  'surface',
  'command',
  'method',
  'path',
  'status',
  'service_message',
  'record_id',
  'idempotency_key',
  'before',
  'after',
  'undoes',
] as const

export {newReference} from '../domain/reference.js'

export function historyPath(env: NodeJS.ProcessEnv): string {
  return configPath(HISTORY_FILE, env)
}

export function historyBounds(env: NodeJS.ProcessEnv): Bounds {
  return boundsFromEnv(
    env,
    {age: 'COMMERCE_HISTORY_MAX_AGE', size: 'COMMERCE_HISTORY_MAX_SIZE'},
    {maxAgeMs: HISTORY_MAX_AGE_MS, maxBytes: HISTORY_MAX_BYTES},
  )
}

/** Whether changes are recorded: not with COMMERCE_NO_HISTORY set (but to 0 or empty), nor when the profile says `off`. */
export function historyOn(env: NodeJS.ProcessEnv, profileSetting?: string): boolean {
  const off = env.COMMERCE_NO_HISTORY
  if (off !== undefined && off !== '' && off !== '0') return false
  return profileSetting?.trim().toLowerCase() !== 'off'
}

const older = (path: string) => `${path}.1`

/** Appends one entry, whole, under the lock; the file turns over at half the size bound. */
export async function appendEntry(env: NodeJS.ProcessEnv, entry: HistoryEntry): Promise<void> {
  const path = historyPath(env)
  const {maxBytes} = historyBounds(env)
  const line = `${JSON.stringify(entry)}\n`
  await mkdir(dirname(path), {mode: 0o700, recursive: true})
  const lock = await acquireLock(`${path}.lock`)
  try {
    let file = await openOwnFile(path, 'append')
    try {
      const {size} = await file.stat()
      if (size > 0 && size + Buffer.byteLength(line) > maxBytes / 2) {
        await file.close()
        await rename(path, older(path))
        file = await openOwnFile(path, 'append')
      }
      await file.write(line)
    } finally {
      await file.close()
    }
  } finally {
    lock.release()
  }
}

/** Every entry within the bounds, newest first; a line that cannot be read (a torn write) is skipped. */
export async function readEntries(env: NodeJS.ProcessEnv, now: number): Promise<HistoryEntry[]> {
  const path = historyPath(env)
  const {maxAgeMs, maxBytes} = historyBounds(env)
  const entries: HistoryEntry[] = []
  for (const file of [older(path), path]) {
    let text: string
    try {
      text = await readOwnFile(file, maxBytes)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw error
    }
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue
      try {
        const entry = JSON.parse(line) as HistoryEntry
        const time = readTimestamp(entry.time)
        if (typeof entry.entry === 'string' && time !== undefined && now - time <= maxAgeMs) entries.push(entry)
      } catch {
        // A line cut by a crash mid-write: the others stand.
      }
    }
  }
  return entries.reverse()
}
