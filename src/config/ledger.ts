/**
 * The fixtures ledger: what each `fixtures run` created, so that a rerun reuses it and `fixtures clean` undoes it.
 *
 * One append-only JSONL file per run in `<config dir>/fixtures/` (directory 0700, files 0600, never written
 * through a link). Line 1 is the run's header (its identity: the scenario's SHA-256, the base URL, the key id, a
 * generation); then per entry `{"entry":"alice","kind":"customers","started":<ms>}` just before its create
 * request, `{"entry":"alice","kind":"customers","id":42,"record":{...}}` when it is known, and for a clean
 * `{"entry":"alice","clean":"deleted"|"refunded"|"gone"|"left"|"failed","reason":"..."}`. Each line is one
 * write(2) to a file opened for appending: a process killed at any point leaves every line written before it, and
 * a torn last line is skipped when read.
 *
 * A run is identified by the scenario's content, the base URL and the key id; after a clean has touched it, the
 * same file run again starts the next generation (a new run id), so data that was undone is never "reused".
 */
import {createHash} from 'node:crypto'
import {closeSync, constants, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, writeSync} from 'node:fs'
import {join} from 'node:path'

import type {ScenarioKind} from '../domain/scenario.js'
import {configDir} from './paths.js'

export const FIXTURES_DIR = 'fixtures'

export type CleanOutcome = 'deleted' | 'refunded' | 'gone' | 'left' | 'failed'

export interface RunHeader {
  run: string
  /** SHA-256 of the scenario, base URL and key id: what two runs of one file against one account share. */
  identity: string
  generation: number
  file: string
  base_url: string
  key_id: string
  started_at: string
}

export interface LedgerEntry {
  name: string
  kind: ScenarioKind
  /** Sent at least once: its create may have reached the service. */
  started: boolean
  id?: number | string
  record?: Record<string, unknown>
  clean?: {outcome: CleanOutcome; reason?: string}
}

export class LedgerLinkError extends Error {
  constructor(readonly path: string) {
    super(`${path} is a symbolic link; the fixtures ledger is never written through one. Remove it and try again.`)
  }
}

export function ledgerDir(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), FIXTURES_DIR)
}

/** Creates `<config dir>/fixtures` (0700) when missing; returns it. */
export function ensureLedgerDir(dir: string): string {
  mkdirSync(dir, {mode: 0o700, recursive: true})
  return dir
}

export function runIdentity(scenarioSha256: string, baseUrl: string, keyId: string): string {
  return createHash('sha256').update(`${scenarioSha256}\n${baseUrl}\n${keyId}`).digest('hex')
}

/** Twelve hex characters of the identity, and the generation after the first. */
export function runIdOf(identity: string, generation: number): string {
  return generation === 1 ? identity.slice(0, 12) : `${identity.slice(0, 12)}-${generation}`
}

export class RunLedger {
  readonly entries = new Map<string, LedgerEntry>()
  cleanedAt?: string
  private fd: number | undefined

  private constructor(
    readonly path: string,
    readonly header: RunHeader,
  ) {}

  get touchedByClean(): boolean {
    return [...this.entries.values()].some((e) => e.clean !== undefined)
  }

  /** Reads a ledger file; undefined when it is not one (no header). */
  static read(path: string): RunLedger | undefined {
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch {
      return undefined
    }
    const lines = text.split('\n')
    let header: RunHeader
    try {
      header = JSON.parse(lines[0]) as RunHeader
    } catch {
      return undefined
    }
    if (typeof header?.run !== 'string' || typeof header.identity !== 'string') return undefined
    const ledger = new RunLedger(path, header)
    for (const line of lines.slice(1)) {
      try {
        ledger.apply(JSON.parse(line) as Record<string, unknown>)
      } catch {} // a torn last line: as if it had not been written
    }
    return ledger
  }

  /** Creates the ledger of a new run. */
  static create(dir: string, header: RunHeader): RunLedger {
    mkdirSync(dir, {mode: 0o700, recursive: true})
    const ledger = new RunLedger(join(dir, `${header.run}.jsonl`), header)
    ledger.open()
    if (fstatSync(ledger.fd!).size === 0) ledger.append(header as unknown as Record<string, unknown>)
    return ledger
  }

  private apply(line: Record<string, unknown>): void {
    if (typeof line.cleaned_at === 'string') {
      this.cleanedAt = line.cleaned_at
      return
    }
    if (typeof line.entry !== 'string') return
    const entry = this.entries.get(line.entry) ?? {kind: line.kind as ScenarioKind, name: line.entry, started: false}
    if (typeof line.kind === 'string') entry.kind = line.kind as ScenarioKind
    if (line.started !== undefined) entry.started = true
    if (line.id !== undefined) {
      entry.id = line.id as number | string
      entry.record = (line.record as Record<string, unknown>) ?? {id: line.id}
      entry.started = true
    }
    if (typeof line.clean === 'string') entry.clean = {outcome: line.clean as CleanOutcome, reason: line.reason as string | undefined}
    this.entries.set(line.entry, entry)
  }

  /** Opens the file for appending (an existing ledger read with `read` is opened on its first write). */
  private open(): void {
    if (this.fd !== undefined) return
    try {
      this.fd = openSync(this.path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0), 0o600)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new LedgerLinkError(this.path)
      throw error
    }
    const size = fstatSync(this.fd).size
    if (size === 0) return
    // A torn last line (a kill mid-write) must not glue itself to the next one.
    const last = Buffer.alloc(1)
    readSync(this.fd, last, 0, 1, size - 1)
    if (last[0] !== 0x0a) writeSync(this.fd, '\n')
  }

  private append(line: Record<string, unknown>): void {
    this.open()
    writeSync(this.fd!, `${JSON.stringify(line)}\n`)
    this.apply(line)
  }

  started(name: string, kind: ScenarioKind, now: number): void {
    this.append({entry: name, kind, started: now})
  }

  created(name: string, kind: ScenarioKind, record: Record<string, unknown>): void {
    this.append({entry: name, id: record.id, kind, record})
  }

  cleaned(name: string, outcome: CleanOutcome, reason?: string): void {
    this.append({clean: outcome, entry: name, ...(reason === undefined ? {} : {reason})})
  }

  finishedClean(at: string): void {
    this.append({cleaned_at: at})
  }

  close(): void {
    if (this.fd === undefined) return
    closeSync(this.fd)
    this.fd = undefined
  }
}

/** Every run recorded for this base URL and key id, oldest first. */
export function listRuns(dir: string, baseUrl: string, keyId: string): RunLedger[] {
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.jsonl'))
  } catch {
    return []
  }
  return names
    .map((n) => RunLedger.read(join(dir, n)))
    .filter((l): l is RunLedger => l !== undefined && l.header.base_url === baseUrl && l.header.key_id === keyId)
    .sort((a, b) => a.header.started_at.localeCompare(b.header.started_at) || a.header.generation - b.header.generation)
}
