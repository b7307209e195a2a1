/**
 * What a command's requests that change the account become in the history (config/history.ts): the client's report
 * of each (api/changes.ts) made an entry, with the command's surface, run and command line, the profile and the
 * service's origin, secrets redacted as --debug redacts them. A history that cannot be written never fails the
 * change, which was made: it is said once on stderr.
 */
import type {SentChange} from '../api/request.js'
import {redactArgv, redactBody} from '../api/redact.js'
import {shellWord} from '../domain/argv.js'
import type {HistoryEntry, Surface} from '../config/history.js'
import {newReference} from '../domain/reference.js'

/** Where a command's changes come from, and under which run: fixed for a command, per tool call for `commerce mcp`. */
export interface HistorySource {
  surface: Surface
  run(): string
  command(): string
}

/** A command's source: one run for the whole invocation, its command line with secrets redacted. */
export function commandSource(surface: Surface | undefined, commandLine: string, argv: readonly string[]): HistorySource | undefined {
  if (surface === undefined) return undefined
  // Made when the first change is recorded: a command that changes nothing draws no reference.
  let run: string | undefined
  const command = [commandLine, ...redactArgv(argv).map((word) => shellWord(word))].join(' ')
  return {command: () => command, run: () => (run ??= newReference()), surface}
}

export interface RecorderDeps {
  env: NodeJS.ProcessEnv
  now: () => number
  profile(): Promise<{name: string; setting?: string}>
  warn(text: string): void
}

/** A value as the history keeps it: secrets masked by field name and prefix (api/redact.ts). */
export function kept(value: unknown): unknown {
  if (value === undefined || value === null) return null
  return JSON.parse(redactBody(JSON.stringify(value))) as unknown
}

/** The id the answer names, else the last id of the path. */
function recordIdOf(change: SentChange): number | string | null {
  const id = (change.body as {id?: unknown} | null)?.id
  if (typeof id === 'number' || typeof id === 'string') return id
  const fromPath = /\/(\d+)(?:\/[a-z]+)?$/.exec(change.path)?.[1]
  return fromPath === undefined ? null : Number(fromPath)
}

/** An import or a fixtures run: one entry naming its journal or ledger and its counts, not one entry a row. */
export interface RunRecord {
  surface: 'import' | 'fixtures'
  command: string
  /** POST for an import of records; RUN for a fixtures run or clean (it makes and undoes several kinds). */
  method: string
  /** What it acted on: the collection an import posts to, or the run's ledger. */
  path: string
  /** 201: every row was done; 207: some failed; unknown: interrupted. */
  status: number | 'unknown'
  journal: string
  counts: Record<string, number>
}

export async function recordRun(run: RunRecord, baseUrl: string, deps: RecorderDeps): Promise<void> {
  try {
    const {appendEntry, historyOn} = await import('../config/history.js')
    const profile = await deps.profile()
    if (!historyOn(deps.env, profile.setting)) return
    await appendEntry(deps.env, {
      after: null,
      before: null,
      entry: newReference(),
      idempotency_key: null,
      origin: new URL(baseUrl).origin,
      profile: profile.name,
      record_id: null,
      run: newReference(),
      service_message: null,
      time: new Date(deps.now()).toISOString(),
      ...run,
    })
  } catch (error) {
    deps.warn(`The history could not record the run: ${error instanceof Error ? error.message : String(error)}`)
  }
}

export function recorder(source: HistorySource, baseUrl: string, deps: RecorderDeps): (change: SentChange) => Promise<void> {
  return async (change) => {
    try {
      // The file's module (its lock, its bounds) only once a change is to be recorded: a read loads none of it.
      const {appendEntry, historyOn, historyScope} = await import('../config/history.js')
      const profile = await deps.profile()
      if (!historyOn(deps.env, profile.setting)) return
      const scope = historyScope.getStore()
      const entry: HistoryEntry = {
        entry: newReference(),
        run: scope?.run ?? source.run(),
        time: new Date(deps.now()).toISOString(),
        profile: profile.name,
        origin: new URL(baseUrl).origin,
        surface: source.surface,
        command: scope?.command ?? source.command(),
        method: change.method,
        path: change.path,
        status: change.status,
        service_message: change.serviceMessage,
        record_id: recordIdOf(change),
        idempotency_key: change.idempotencyKey,
        before: kept(change.before),
        after: typeof change.status === 'number' && change.status < 300 ? kept(change.body) : null,
        ...(scope?.undoes ? {undoes: scope.undoes} : {}),
      }
      await appendEntry(deps.env, entry)
    } catch (error) {
      deps.warn(`The history could not record a change to the account: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}
