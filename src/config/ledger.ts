/**
 * The fixtures ledger: what each `fixtures run` created, so that a rerun reuses it and `fixtures clean` undoes it.
 *
 * One append-only JSONL file per run in `<config dir>/fixtures/` (directory 0700, files 0600, never written
 * through a link). Line 1 is the run's header (its identity: the scenario's SHA-256, the base URL, the key id, a
 * generation); then per entry `{"entry":"alice","kind":"customers","started":<ms>}` just before its create
 * request, then what the service said: `{"entry":"alice","kind":"customers","id":42,"record":{...},"fingerprint":{...}}`
 * when it made the record (2xx), `{"entry":"alice","kind":"customers","refused":422,"reason":"..."}` when it refused
 * (4xx: nothing was made), nothing when no answer came (the outcome is unknown: "in doubt"); for a clean
 * `{"entry":"alice","clean":"deleted"|"refunded"|"gone"|"left"|"failed","reason":"..."}`. Each line is one
 * write(2) to a file opened for appending: a process killed at any point leaves every line written before it; a
 * torn last line is skipped when read and cut off before the next append. Any other line that cannot be read stops
 * the command, naming the file and the line: nothing is created or deleted on a guess.
 *
 * A run is identified by the scenario's content, the base URL and the key id; after a clean has touched it, the
 * same file run again starts the next generation (a new run id), so data that was undone is never "reused".
 */
import {createHash} from 'node:crypto'
import {closeSync, fstatSync, ftruncateSync, mkdirSync, readdirSync, readSync, writeSync} from 'node:fs'
import {join} from 'node:path'

import {createWhole, FileTooLargeError, NotOwnFileError, openOwnFileSync, readOwnFileSync} from '../domain/own-file.js'
import {isObject} from '../domain/json.js'
import {SCENARIO_KINDS, type ScenarioKind} from '../domain/scenario.js'
import {CliError} from '../errors.js'
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
  /** When its last create was sent (ms). */
  startedAt?: number
  /** The service refused its last create (4xx): nothing was made, and nothing may be adopted for it. */
  refused?: {status: number; reason: string}
  id?: number | string
  record?: Record<string, unknown>
  /** What identifies the record made (services/fixtures/fingerprint.ts); absent in ledgers of older releases. */
  fingerprint?: Record<string, string>
  clean?: {outcome: CleanOutcome; reason?: string}
}

/** Whether the last create of an entry may have made a record that the ledger does not know: sent, and never answered. */
export function inDoubt(entry: LedgerEntry | undefined): boolean {
  return entry !== undefined && entry.started && entry.id === undefined && entry.refused === undefined
}

/** A ledger line that cannot be read: the command stops, naming the file and the line. */
export class LedgerCorruptError extends CliError {
  constructor(
    readonly path: string,
    readonly line: number,
    why: string,
  ) {
    super(`The fixtures ledger ${path} cannot be read at line ${line} (${why}); nothing was created or deleted.`, {
      hint: `Repair that line, or move the file away (the run it records is then forgotten: what it made stays in the account), and run the command again.`,
    })
  }
}

export class LedgerLinkError extends CliError {
  constructor(
    readonly path: string,
    what = 'a symbolic link',
  ) {
    super(`${path} is ${what}; the fixtures ledger is never read or written through one. Remove it and try again.`)
  }
}

/** A ledger holds a line per entry of one fixtures file: far under this. */
const LEDGER_MAX_BYTES = 64 * 1024 * 1024

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

  /**
   * Reads a ledger file; undefined when it cannot be opened (gone since it was listed) or is empty. LedgerCorruptError for a
   * header or a line that cannot be read, but for a torn last line (a kill mid-write), which is skipped.
   */
  static read(path: string): RunLedger | undefined {
    let text: string
    try {
      text = readOwnFileSync(path, LEDGER_MAX_BYTES)
    } catch (error) {
      if (error instanceof NotOwnFileError) throw new LedgerLinkError(path, error.message.includes('symbolic') ? undefined : 'not a regular file')
      if (error instanceof FileTooLargeError) throw new LedgerCorruptError(path, 0, error.message)
      return undefined
    }
    // Empty: a ledger being created by an older release (it wrote the header after creating the file); nothing is
    // recorded in it yet.
    if (text === '') return undefined
    const lines = text.split('\n')
    // The text after the last newline is a torn write when it is not empty: skipped.
    const whole = lines.slice(0, -1)
    if (whole.length === 0) throw new LedgerCorruptError(path, 1, 'no header')
    let header: RunHeader
    try {
      header = JSON.parse(whole[0]) as RunHeader
    } catch {
      throw new LedgerCorruptError(path, 1, 'the header is not JSON')
    }
    if (!isHeader(header)) throw new LedgerCorruptError(path, 1, 'the header lacks the run, its identity, base URL or key')
    const ledger = new RunLedger(path, header)
    for (const [i, line] of whole.slice(1).entries()) {
      let parsed: unknown
      try {
        parsed = JSON.parse(line)
      } catch {
        throw new LedgerCorruptError(path, i + 2, 'not JSON')
      }
      const why = ledger.apply(parsed)
      if (why) throw new LedgerCorruptError(path, i + 2, why)
    }
    return ledger
  }

  /**
   * Creates the ledger of a new run (under the run's lock). The file has its header from its first moment, so that a
   * command reading ledgers meanwhile (without the lock) never meets an empty one (createWhole).
   */
  static create(dir: string, header: RunHeader): RunLedger {
    mkdirSync(dir, {mode: 0o700, recursive: true})
    const ledger = new RunLedger(join(dir, `${header.run}.jsonl`), header)
    createWhole(ledger.path, `${JSON.stringify(header)}\n`)
    ledger.open()
    if (fstatSync(ledger.fd!).size === 0) ledger.append(header as unknown as Record<string, unknown>)
    return ledger
  }

  /** Applies one line; says what is wrong with a line it cannot apply. */
  private apply(line: unknown): string | undefined {
    if (!isObject(line)) return 'not an object'
    if (typeof line.cleaned_at === 'string') {
      this.cleanedAt = line.cleaned_at
      return undefined
    }
    if (typeof line.entry !== 'string') return 'no entry name'
    const known = this.entries.get(line.entry)
    if (line.kind !== undefined && !(SCENARIO_KINDS as readonly unknown[]).includes(line.kind)) return `an unknown kind ${JSON.stringify(line.kind)}`
    const kind = (line.kind as ScenarioKind | undefined) ?? known?.kind
    if (kind === undefined) return 'an entry of no kind'
    const entry = known ?? {kind, name: line.entry, started: false}
    entry.kind = kind
    if (line.started !== undefined) {
      entry.started = true
      entry.startedAt = typeof line.started === 'number' ? line.started : undefined
      entry.refused = undefined
    }
    if (line.refused !== undefined) entry.refused = {reason: typeof line.reason === 'string' ? line.reason : '', status: Number(line.refused)}
    if (line.id !== undefined) {
      if (typeof line.id !== 'number' && typeof line.id !== 'string') return 'an id that is neither a number nor a string'
      entry.id = line.id
      entry.record = isObject(line.record) ? line.record : {id: line.id}
      entry.fingerprint = isObject(line.fingerprint) ? (line.fingerprint as Record<string, string>) : undefined
      entry.started = true
      entry.refused = undefined
    }
    if (typeof line.clean === 'string') entry.clean = {outcome: line.clean as CleanOutcome, reason: line.reason as string | undefined}
    this.entries.set(line.entry, entry)
    return undefined
  }

  /** Opens the file for appending (an existing ledger read with `read` is opened on its first write). */
  private open(): void {
    if (this.fd !== undefined) return
    try {
      this.fd = openOwnFileSync(this.path, 'read-append')
    } catch (error) {
      if (error instanceof NotOwnFileError) throw new LedgerLinkError(this.path)
      throw error
    }
    const size = fstatSync(this.fd).size
    if (size === 0) return
    // A torn last line (a kill mid-write) is cut off, so that it never glues itself to the next one nor becomes a
    // line in the middle, which a read would take for damage.
    const text = Buffer.alloc(size)
    readSync(this.fd, text, 0, size, 0)
    const end = text.lastIndexOf(0x0a) + 1
    if (end < size) ftruncateSync(this.fd, end)
  }

  private append(line: Record<string, unknown>): void {
    this.open()
    writeSync(this.fd!, `${JSON.stringify(line)}\n`)
    this.apply(line)
  }

  /** The records made so far, as `alice (42)`: what a run that stops part-way has left in the account. */
  made(): string[] {
    return [...this.entries.values()].filter((e) => e.id !== undefined && e.clean === undefined).map((e) => `${e.name} (${String(e.id)})`)
  }

  started(name: string, kind: ScenarioKind, now: number): void {
    this.append({entry: name, kind, started: now})
  }

  created(name: string, kind: ScenarioKind, record: Record<string, unknown>, fingerprint: Record<string, string>): void {
    this.append({entry: name, fingerprint, id: record.id, kind, record})
  }

  /** The service refused the create (a 4xx answer): nothing was made. */
  refusedBy(name: string, kind: ScenarioKind, status: number, reason: string): void {
    this.append({entry: name, kind, reason, refused: status})
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

function isHeader(header: unknown): header is RunHeader {
  return (
    isObject(header) &&
    typeof header.run === 'string' &&
    typeof header.identity === 'string' &&
    typeof header.base_url === 'string' &&
    typeof header.key_id === 'string' &&
    typeof header.started_at === 'string' &&
    Number.isSafeInteger(header.generation)
  )
}

/** Every run recorded for this base URL and key id, oldest first; LedgerCorruptError when any ledger cannot be read. */
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
