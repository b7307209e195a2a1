/**
 * The data file and its journal.
 *
 * - `sandbox-data.json` is a snapshot of the store (mode 0600: it holds key secrets and signing secrets), written
 *   through src/domain/files.ts (an exclusive random temp file beside it, fsync, rename).
 * - `sandbox-data.json.journal` is an append-only log of changes since that snapshot, one JSON line per change,
 *   each with a sequence number `s` and the id counters `n`. The server answers a write only once its lines are
 *   appended and fsynced (`sync()`): concurrent requests share one append and one fsync (group commit). So after
 *   kill -9 no answered write is lost and no answered id is handed out again.
 * - When the journal outgrows the snapshot (and COMPACT_MIN_BYTES), a new snapshot is written, carrying the
 *   sequence number it includes, and the journal is emptied. A crash between the two is harmless: on load, lines
 *   whose `s` the snapshot already includes are skipped, and a torn last line (a crash mid-append, never
 *   answered) is dropped.
 * - At start-up, temp files of the data file left by a process that no longer runs (kill -9 during a snapshot
 *   write) are removed.
 */
import {constants, rmSync} from 'node:fs'
import {mkdir, open, type FileHandle} from 'node:fs/promises'
import {dirname} from 'node:path'

import {removeStaleTemps, writeFileAtomic} from '../domain/files.js'
import {readOwnFile} from '../domain/own-file.js'
import type {Change, CustomerRecord, OrderRecord, Snapshot, WebhookRecord} from './record-store.js'

/** The journal is compacted once it is larger than this and than the last snapshot. */
export const COMPACT_MIN_BYTES = 4 * 1024 * 1024

const JOURNAL_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0)

export function journalPath(dataFile: string): string {
  return `${dataFile}.journal`
}

interface JournalLine {
  s: number
  n: Snapshot['next']
  customer?: CustomerRecord
  deletedCustomer?: number
  order?: OrderRecord
  webhook?: WebhookRecord
  idempotency?: [string, Snapshot['idempotency'][string]]
  /** A whole new state (reset, snapshot restore). */
  state?: Snapshot
}

/** A data file or journal larger than this is not one the sandbox wrote (100,000 orders take about 60 MB). */
export const DATA_MAX_BYTES = 2 * 1024 * 1024 * 1024 - 1

async function readText(path: string, what: string): Promise<string | undefined> {
  try {
    return await readOwnFile(path, DATA_MAX_BYTES)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new Error(`Cannot read the ${what} ${path}: ${(error as Error).message}`)
  }
}

export function checkSnapshot(data: unknown, path: string): Snapshot {
  const s = data as Partial<Snapshot> | null
  const valid =
    s?.version === 1 &&
    Array.isArray(s.keys) &&
    Array.isArray(s.customers) &&
    Array.isArray(s.orders) &&
    Array.isArray(s.webhooks) &&
    typeof s.next === 'object' &&
    typeof s.idempotency === 'object'
  if (!valid) throw new Error(`${path} is not a sandbox data file (version 1); move it away to start with a fresh sandbox`)
  return s as Snapshot
}

/** The snapshot with the journal replayed onto it; undefined when there is no data file yet. */
export async function loadSnapshot(path: string): Promise<Snapshot | undefined> {
  removeStaleTemps(path)
  const text = await readText(path, 'data file')
  if (text === undefined) return undefined
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    throw new Error(`${path} is not valid JSON; move it away to start with a fresh sandbox`)
  }
  const snapshot = checkSnapshot(data, path)
  const journal = await readText(journalPath(path), 'journal')
  return journal ? replay(snapshot, journal, journalPath(path)) : snapshot
}

function replay(base: Snapshot, journal: string, path: string): Snapshot {
  let state = base
  let customers = new Map(state.customers.map((c) => [c.id, c]))
  let orders = new Map(state.orders.map((o) => [o.id, o]))
  let webhooks = new Map(state.webhooks.map((w) => [w.id, w]))
  let idempotency = {...state.idempotency}
  let next = {...state.next}
  let seq = state.seq ?? 0
  const lines = journal.split('\n')
  lines.forEach((text, i) => {
    if (text === '') return
    let line: JournalLine
    try {
      line = JSON.parse(text) as JournalLine
    } catch {
      // A torn last line is a write that was never answered; anything else is damage.
      if (lines.slice(i + 1).every((l) => l === '')) return
      throw new Error(`${path} line ${i + 1} is not valid JSON; move it away to start from the last snapshot`)
    }
    if (typeof line?.s !== 'number' || line.s <= seq) return
    seq = line.s
    if (line.state) {
      state = checkSnapshot(line.state, path)
      customers = new Map(state.customers.map((c) => [c.id, c]))
      orders = new Map(state.orders.map((o) => [o.id, o]))
      webhooks = new Map(state.webhooks.map((w) => [w.id, w]))
      idempotency = {...state.idempotency}
    }
    if (line.customer) customers.set(line.customer.id, line.customer)
    if (line.deletedCustomer !== undefined) customers.delete(line.deletedCustomer)
    if (line.order) orders.set(line.order.id, line.order)
    if (line.webhook) webhooks.set(line.webhook.id, line.webhook)
    if (line.idempotency) idempotency[line.idempotency[0]] = line.idempotency[1]
    if (line.n) next = {...line.n}
  })
  return {
    customers: [...customers.values()].sort((a, b) => a.id - b.id),
    idempotency,
    keys: state.keys,
    next,
    orders: [...orders.values()].sort((a, b) => a.id - b.id),
    seq,
    version: 1,
    webhooks: [...webhooks.values()],
  }
}

export class DataFile {
  private pending: string[] = []
  private seq = 0
  private chain: Promise<void> = Promise.resolve()
  private last: Promise<void> = Promise.resolve()
  private journal?: FileHandle
  private journalBytes = 0
  private snapshotBytes = 0
  private compacting = false

  constructor(
    readonly path: string,
    private readonly snapshot: () => Snapshot,
    private readonly onError: (error: Error) => void,
    private readonly compactBytes = COMPACT_MIN_BYTES,
  ) {}

  /**
   * Writes a snapshot of the current state and opens an empty journal: at start (a new data file, or one whose
   * journal was just replayed). Fails loudly: a sandbox that cannot keep its data must not start.
   */
  async open(seq: number): Promise<void> {
    this.seq = seq
    try {
      await mkdir(dirname(this.path), {mode: 0o700, recursive: true})
      await this.writeSnapshot()
      // O_APPEND: every write lands at the end, also after a truncate; never through a planted link.
      this.journal = await open(journalPath(this.path), JOURNAL_FLAGS, 0o600)
      await this.journal.truncate(0)
      await this.journal.sync()
    } catch (error) {
      throw new Error(`Cannot write the data file ${this.path}: ${(error as Error).message}`)
    }
  }

  /** Records a change (called synchronously by the store after each mutation); on disk after `sync()`. */
  record(change: Change, next: Snapshot['next']): void {
    this.pending.push(JSON.stringify({s: ++this.seq, n: next, ...change}) + '\n')
  }

  /** Resolves when every change recorded so far is appended and fsynced (rejects when that failed). */
  sync(): Promise<void> {
    if (this.pending.length === 0) return this.last
    const text = this.pending.join('')
    this.pending = []
    this.last = this.enqueue(() => this.append(text))
    return this.last
  }

  /** Writes everything, compacts, and removes the journal: a clean stop leaves the data file alone. */
  async close(): Promise<void> {
    await this.sync().catch(() => {})
    await this.enqueue(async () => {
      await this.compact()
      await this.journal?.close()
      this.journal = undefined
      rmSync(journalPath(this.path), {force: true})
    }).catch((error: Error) => this.onError(error))
  }

  private enqueue(job: () => Promise<void>): Promise<void> {
    const run = this.chain.then(job, job)
    this.chain = run.catch(() => {})
    return run
  }

  private async append(text: string): Promise<void> {
    if (!this.journal) throw new Error('the data file is closed')
    await this.journal.appendFile(text)
    await this.journal.datasync()
    this.journalBytes += Buffer.byteLength(text)
    if (!this.compacting && this.journalBytes > Math.max(this.compactBytes, this.snapshotBytes)) {
      this.compacting = true
      // In the background: the answer that triggered it does not wait.
      setImmediate(() => void this.enqueue(() => this.compact()).catch((error: Error) => this.onError(error)))
    }
  }

  /** A snapshot including every recorded change, then an empty journal. */
  private async compact(): Promise<void> {
    try {
      await this.writeSnapshot()
      if (this.journal) {
        await this.journal.truncate(0)
        await this.journal.sync()
      }
      this.journalBytes = 0
    } finally {
      this.compacting = false
    }
  }

  private async writeSnapshot(): Promise<void> {
    const json = JSON.stringify({...this.snapshot(), seq: this.seq})
    this.snapshotBytes = Buffer.byteLength(json)
    await writeFileAtomic(this.path, json)
  }
}
