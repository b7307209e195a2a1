/**
 * The import journal: what happened to each row of one file, so that the same import run again after a crash,
 * `kill -9` or Ctrl-C goes on where it stopped.
 *
 * One append-only JSONL file per (kind, absolute path, file SHA-256, base URL), in `<config dir>/journals/`.
 * Line 1 is a header naming those; then, per row, `{"line":7,"started":<epoch ms>}` just before its request
 * is sent and `{"line":7,"outcome":"created","id":42}` (or updated/skipped/failed, with `reason`) when it is
 * known. Each entry is one write(2) to a file opened for appending, with no fsync: a killed process loses at
 * most the outcomes of the rows in flight, and those rows still show their `started` entry.
 *
 * On a rerun: created/updated/skipped rows are done and are not sent again; failed rows are sent again (the
 * cause may have been fixed); a row with a `started` entry and no outcome after it is "in doubt": its request
 * may or may not have reached the service, and its sender decides (orders: the same Idempotency-Key replays;
 * customers: see customers.ts).
 */
import {createHash} from 'node:crypto'
import {closeSync, createReadStream, fstatSync, mkdirSync, readSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import {createInterface} from 'node:readline'

import {configDir, JOURNALS_DIR} from '../config/paths.js'
import {NotOwnFileError, openOwnFileSync} from '../domain/own-file.js'
import {type HeldLock, holdLock, LockBusyError} from '../config/lock.js'
import type {ImportKind} from './rows.js'

/** `<config dir>/journals`. */
export function journalDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), JOURNALS_DIR)
}

export class JournalBusyError extends Error {
  constructor(
    readonly pid: number | undefined,
    readonly lockPath = '',
  ) {
    super(`Another import of this file is running${pid === undefined ? '' : ` (process ${pid})`}; wait for it to finish or stop it first.`)
    this.name = 'JournalBusyError'
  }
}

export class JournalLinkError extends Error {
  constructor(readonly path: string) {
    super(`${path} is not a file of ours (a link, a FIFO); a journal is never read or written through one. Remove it and run the import again.`)
    this.name = 'JournalLinkError'
  }
}

export type Outcome = 'created' | 'updated' | 'skipped' | 'failed'

export interface RowOutcome {
  outcome: Outcome
  id?: number | string
  reason?: string
}

export interface JournalIdentity {
  kind: ImportKind
  /** Absolute path of the imported file. */
  file: string
  sha256: string
  baseUrl: string
}

export interface Counts {
  created: number
  updated: number
  skipped: number
  failed: number
}

export function journalFileName(id: JournalIdentity): string {
  const where = createHash('sha256').update(`${id.kind}\n${id.file}\n${id.baseUrl}`).digest('hex').slice(0, 16)
  return `${id.kind}-${where}-${id.sha256.slice(0, 16)}.jsonl`
}

export class Journal {
  // Per row, only what a rerun needs; one small map entry per row keeps 100k-row imports light.
  private readonly outcomes = new Map<number, Outcome>()
  /** Failed rows' reasons. */
  private readonly reasons = new Map<number, string>()
  /** Rows sent with no outcome recorded since: epoch ms of the first such send. */
  private readonly inDoubt = new Map<number, number>()
  private fd: number | undefined
  private held?: HeldLock

  private constructor(
    readonly path: string,
    private readonly now: () => number,
  ) {}

  /** Opens (creating when new) the journal of this file in `dir`, and loads what it recorded. */
  static async open(dir: string, identity: JournalIdentity, options: {now?: () => number} = {}): Promise<Journal> {
    mkdirSync(dir, {mode: 0o700, recursive: true})
    const journal = new Journal(join(dir, journalFileName(identity)), options.now ?? Date.now)
    journal.lock()
    const header = {journal: 1, kind: identity.kind, file: identity.file, sha256: identity.sha256, base_url: identity.baseUrl}
    // Appending, never through a link planted at the journal's name (the directory is 0700, but be sure).
    try {
      journal.fd = openOwnFileSync(journal.path, 'read-append')
    } catch (error) {
      journal.close()
      if (error instanceof NotOwnFileError) throw new JournalLinkError(journal.path)
      throw error
    }
    const size = fstatSync(journal.fd).size
    if (size === 0) {
      journal.append(header)
      return journal
    }
    try {
      await journal.load(header)
    } catch (error) {
      journal.close()
      throw error
    }
    // A torn last entry (a crash mid-write) must not glue itself to the next one.
    const last = Buffer.alloc(1)
    readSync(journal.fd, last, 0, 1, size - 1)
    if (last[0] !== 0x0a) writeSync(journal.fd, '\n')
    return journal
  }

  private async load(expected: Record<string, unknown>): Promise<void> {
    // Read through a descriptor of its own, opened as every file of ours is (never through a link, never a FIFO): the
    // stream closes it, whenever its last read ends, and the journal's own descriptor is never touched by it.
    const input = createReadStream('', {fd: openOwnFileSync(this.path, 'read')})
    const lines = createInterface({crlfDelay: Number.POSITIVE_INFINITY, input})
    let first = true
    try {
      for await (const text of lines) {
        let entry: Record<string, unknown>
        try {
          entry = JSON.parse(text) as Record<string, unknown>
        } catch {
          continue // a torn entry: its row is treated as if it had not been written
        }
        if (first) {
          first = false
          for (const [k, v] of Object.entries(expected))
            if (entry[k] !== v) throw new Error(`${this.path} is not the journal of this import (its ${k} differs)`)
          continue
        }
        this.apply(entry)
      }
    } finally {
      lines.close()
      input.destroy()
    }
  }

  private apply(entry: Record<string, unknown>): void {
    const line = entry.line
    if (typeof line !== 'number') return
    if (typeof entry.started === 'number') {
      if (!this.inDoubt.has(line)) this.inDoubt.set(line, entry.started)
    } else if (typeof entry.outcome === 'string') {
      const outcome = entry.outcome as Outcome
      this.outcomes.set(line, outcome)
      this.inDoubt.delete(line)
      if (outcome === 'failed') this.reasons.set(line, typeof entry.reason === 'string' ? entry.reason : '')
      else this.reasons.delete(line)
    }
  }

  private append(entry: Record<string, unknown>): void {
    if (this.fd === undefined) throw new Error(`the journal ${this.path} is closed`)
    writeSync(this.fd, JSON.stringify(entry) + '\n')
  }

  /** Done: created, updated or skipped (a failed row is tried again). */
  isDone(line: number): boolean {
    const outcome = this.outcomes.get(line)
    return outcome !== undefined && outcome !== 'failed' && !this.inDoubt.has(line)
  }

  /** When the row was first sent without an outcome recorded since (epoch ms), or undefined. */
  inDoubtSince(line: number): number | undefined {
    return this.inDoubt.get(line)
  }

  /** The latest outcome recorded (ids stay in the file only, to keep memory small). */
  outcome(line: number): RowOutcome | undefined {
    const outcome = this.outcomes.get(line)
    if (outcome === undefined) return undefined
    const reason = this.reasons.get(line)
    return reason === undefined ? {outcome} : {outcome, reason}
  }

  /** Records that the row's request is about to be sent. */
  start(line: number): void {
    const at = this.now()
    this.append({line, started: at})
    this.apply({line, started: at})
  }

  finish(line: number, result: RowOutcome): void {
    const entry: Record<string, unknown> = {line, outcome: result.outcome}
    if (result.id !== undefined) entry.id = result.id
    if (result.reason !== undefined) entry.reason = result.reason
    this.append(entry)
    this.apply(entry)
  }

  /** The latest outcome of every row, counted. */
  counts(): Counts {
    const counts: Counts = {created: 0, failed: 0, skipped: 0, updated: 0}
    for (const outcome of this.outcomes.values()) counts[outcome]++
    return counts
  }

  /** Rows whose latest outcome is `failed`, in line order. */
  failures(): Array<{line: number; reason: string}> {
    return [...this.reasons.entries()].map(([line, reason]) => ({line, reason})).sort((a, b) => a.line - b.line)
  }

  /** Closes the file and releases the lock (also when the file could not be opened). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
    this.held?.release()
    this.held = undefined
  }

  private get lockPath(): string {
    return `${this.path}.lock`
  }

  /** One process per journal: two imports of one file at once would send its rows twice. A dead owner's lock is taken over. */
  private lock(): void {
    try {
      this.held = holdLock(this.lockPath)
    } catch (error) {
      if (error instanceof LockBusyError) throw new JournalBusyError(error.pid, error.path)
      throw error
    }
  }
}
