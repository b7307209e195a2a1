/**
 * How the inbox's lines reach its files. The listener's hot path waits on it (a delivery is answered only once
 * its record is in the file), so an append costs one write to an open file and nothing else:
 *
 * - Batches: records that arrive while a write is in progress go out together in the next one.
 * - A session: the lock beside the inbox (shared with other processes on the same config directory), the open
 *   file and its counts are kept across a busy stretch, and let go when appends pause (IDLE_RELEASE_MS) or after
 *   MAX_HOLD_MS, when the writer steps aside for YIELD_MS so that another process waiting for the lock gets it.
 *   While the lock is held nobody else writes, so the counts stay exact without a stat per batch.
 * - Rotation instead of compaction: when the file reaches its share of the bounds (maxRecords records or half of
 *   maxBytes), it is renamed to `<inbox>.1`, replacing the older one, and a new file starts. A rename is atomic
 *   and rewrites nothing, so a record is on disk once, from its append (kill -9 loses no answered delivery), until
 *   the rotation after next drops it. Readers take the newest records within the bounds from both files.
 */
import {type FileHandle, mkdir, rename} from 'node:fs/promises'
import {dirname} from 'node:path'
import {type HeldLock, acquireLock} from '../config/lock.js'
import {monotonicMs} from '../domain/clock.js'
import {openOwnFile} from '../domain/own-file.js'

/** Appends pause this long before the lock and the file are let go. */
const IDLE_RELEASE_MS = 20
/** A writer busy for this long lets go of the lock after its current batch... */
const MAX_HOLD_MS = 1_000
/** ...and waits this long before taking it again: past the interval at which a waiting process tries the lock. */
const YIELD_MS = 35

export interface WriterBounds {
  maxRecords: number
  maxBytes: number
}

/** The older file of an inbox, which the current one becomes when it reaches its bound. */
export const olderPath = (path: string): string => `${path}.1`

interface Session {
  lock: HeldLock
  file: FileHandle
  records: number
  bytes: number
  since: number
}

export class InboxWriter {
  private pending: Array<{line: string; done: (error?: Error) => void}> = []
  private writing = false
  private session?: Session
  /** What this process left in the current file when it last let go, to skip recounting when nobody wrote since. */
  private left?: {ino: number; size: number; records: number}
  private idle?: NodeJS.Timeout
  /** The letting go in progress, which a new session waits for. */
  private ending?: Promise<void>
  private yieldUntil = 0

  constructor(
    readonly path: string,
    private readonly bounds: WriterBounds,
  ) {}

  /** Resolves once the line is in the file. */
  append(line: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({done: (error) => (error ? reject(error) : resolve()), line})
      if (!this.writing) void this.flush()
    })
  }

  private async flush(): Promise<void> {
    this.writing = true
    clearTimeout(this.idle)
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0)
      try {
        await this.write(batch.map((entry) => entry.line).join(''))
        for (const entry of batch) entry.done()
      } catch (error) {
        for (const entry of batch) entry.done(error as Error)
        await this.end()
      }
    }
    this.writing = false
    if (this.session) {
      this.idle = setTimeout(() => void (this.writing || (this.ending = this.end())), IDLE_RELEASE_MS)
      this.idle.unref()
    }
  }

  private async write(text: string): Promise<void> {
    const session = await this.begin()
    const bytes = Buffer.byteLength(text)
    const {bytesWritten} = await session.file.write(text)
    // A short write (a full disk): the batch is not in the file. The next session recounts it and ends the cut line.
    if (bytesWritten !== bytes) throw new Error(`wrote ${bytesWritten} of ${bytes} bytes to ${this.path}`)
    session.records += countLines(text)
    session.bytes += bytes
    if (session.records >= this.bounds.maxRecords || session.bytes >= this.bounds.maxBytes / 2) {
      await session.file.close()
      await rename(this.path, olderPath(this.path))
      session.file = await openOwnFile(this.path, 'read-append')
      session.records = 0
      session.bytes = 0
    }
  }

  /** The session, begun (or begun again after MAX_HOLD_MS, or when another process took the lock over). */
  private async begin(): Promise<Session> {
    if (this.session && !this.session.lock.compromised && monotonicMs() - this.session.since < MAX_HOLD_MS) return this.session
    if (this.session) {
      await this.end()
      this.yieldUntil = monotonicMs() + YIELD_MS
    }
    await this.ending
    const wait = this.yieldUntil - monotonicMs()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    await mkdir(dirname(this.path), {mode: 0o700, recursive: true})
    const lock = await acquireLock(`${this.path}.lock`)
    let file: FileHandle | undefined
    try {
      // a+: appends, and reads from the start to count what is there.
      file = await openOwnFile(this.path, 'read-append')
      const {ino, size} = await file.stat()
      let records = this.left?.records ?? 0
      if (this.left?.ino !== ino || this.left.size !== size) {
        // Another process wrote, or this is the first write: count what is there.
        const existing = await file.readFile({encoding: 'utf8'})
        records = countLines(existing)
        // A line cut short by a crash must not swallow the next one.
        if (existing !== '' && !existing.endsWith('\n')) await file.write('\n')
      }
      this.session = {bytes: (await file.stat()).size, file, lock, records, since: monotonicMs()}
      return this.session
    } catch (error) {
      await file?.close().catch(() => {})
      lock.release()
      throw error
    }
  }

  /** Lets go of the file and the lock, remembering what was left. */
  private async end(): Promise<void> {
    const session = this.session
    if (!session) return
    this.session = undefined
    clearTimeout(this.idle)
    try {
      const {ino} = await session.file.stat()
      this.left = {ino, records: session.records, size: session.bytes}
      await session.file.close()
    } catch {
      this.left = undefined
    } finally {
      session.lock.release()
    }
  }
}

function countLines(text: string): number {
  let n = 0
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++
  return n
}
