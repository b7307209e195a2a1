/**
 * The bulk services: exports and imports over the real API client, with the engine of src/bulk. Options in,
 * a result out; no printing, no exit codes, no process.* (Ctrl-C comes in as `signal`, the progress bar as an
 * object to update). src/base/bulk-command.ts renders the results for the commands.
 *
 * Import: validation pass, then rows sent through a client that shares one Pacer, journaled row by row.
 * Ctrl-C: waits (pacer, Retry-After) end at once, requests on the wire finish and are journaled, and the
 * outcome says `interrupted` with what was done so far.
 */
import {extname, resolve} from 'node:path'
import {finished} from 'node:stream/promises'

import type {ApiClient, TokenSource} from '../api/client.js'
import {createErrorsWriter, type ErrorRow, errorsFileFormat} from '../bulk/errors-file.js'
import {exportRecords, type ExportOptions, type ExportResult, atomicStream, openAtomic} from '../bulk/export.js'
import {type ImportFileResult, importFile} from '../bulk/import.js'
import {type Counts, type Journal, journalDir, type RowOutcome} from '../bulk/journal.js'
import {type BulkProgress, type PacedClient, pacedClient, startTicker} from '../bulk/paced.js'
import {ProgressTracker} from '../bulk/progress-tracker.js'
import {type ImportKind, type ImportRow, type Invitations, pendingInvitations, type RowError} from '../bulk/rows.js'
import type {ImportSummary, SendContext} from '../bulk/runner.js'
import {customerSender, orderSender} from '../bulk/senders.js'
import type {ValidatedFile} from '../bulk/validate-file.js'
import type {RecordFormat} from '../bulk/write.js'
import type {ImportFormat, OnConflict} from '../domain/bulk-formats.js'
import {fileProblem} from '../domain/files.js'
import {CliError, UsageError} from '../errors.js'
import {option, phrase} from '../domain/phrase.js'
import {customerApi, orderApi} from './bulk-api.js'

export type {BulkProgress, ExportResult, ImportKind, ImportSummary, Invitations, RecordFormat, RowError, ValidatedFile}

/** --format, or from --json: without --output, `--json` makes stdout one JSON document (the array). */
export function exportFormat(format: RecordFormat | undefined, options: {json: boolean; output?: string}): RecordFormat {
  const toStdout = options.output === undefined || options.output === '-'
  if (options.json && toStdout) {
    if (format !== undefined && format !== 'json')
      throw new UsageError(
        phrase`${option('json')} without ${option('output')} prints the records as one JSON array; drop ${option('format')} ${format}, or add ${option('output')} FILE (then ${option('json')} prints a summary).`,
      )
    return 'json'
  }
  return format ?? 'jsonl'
}

/** --format, or the file's extension. */
export function importFormat(file: string, format: ImportFormat | undefined): ImportFormat {
  if (format) return format
  const ext = extname(file).toLowerCase()
  if (ext === '.csv') return 'csv'
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl'
  if (ext === '.json') return 'json'
  throw new UsageError(phrase`Cannot tell the format of ${file} from its name; pass ${option('format')} csv, jsonl or json.`)
}

/** An export's options, over the plain client: runExport paces it. */
export interface RunExportOptions extends Omit<ExportOptions, 'client'> {
  client: ApiClient
  tokens: TokenSource
  /** The documented limit of this list operation, if any (v1 customers). */
  expectedLimit?: number
}

/** An export over a paced client (one Pacer for its concurrent page requests). */
export async function runExport(options: RunExportOptions): Promise<ExportResult> {
  const {progress, signal} = options
  const paced = pacedClient(options.client, options.tokens, {expectedLimit: options.expectedLimit, quietWaits: progress !== undefined, signal})
  try {
    return await exportRecords({...options, client: paced})
  } finally {
    await paced.close()
  }
}

export interface ImportRunOptions {
  kind: ImportKind
  file: string
  format: ImportFormat
  concurrency: number
  dryRun: boolean
  skipInvalid: boolean
  /** Customers: send_invite for the rows that leave it unset (--send-invite / --no-send-invite). */
  sendInvite?: boolean
  errorsFile?: string
  env: NodeJS.ProcessEnv
  /** The client and credentials; not called for a dry run (nothing is sent). */
  connect?: () => Promise<{client: ApiClient; tokens: TokenSource; onConflict?: OnConflict}>
  /** The bar to draw (none off a terminal); only when rows are sent. */
  progress?: () => Promise<BulkProgress | undefined>
  /** The documented limit of the create operation, if any (orders). */
  expectedLimit?: number
  signal?: AbortSignal
  /** Each invalid row, when the import goes on without it (--skip-invalid, or a dry run). */
  onSkipped?: (error: RowError) => void
  /** Each row that failed now (the service refused it). */
  onFailed?: (line: number, reason: string) => void
  /**
   * The file validated and the journal opened, before any row is sent: `invitations` counts the rows not yet done.
   * A rejection (a declined question) stops the import with nothing sent.
   */
  onStart?: (file: ValidatedFile, invitations: Invitations) => void | Promise<void>
}

export type ImportOutcome =
  /** Bad rows (without --skip-invalid) or a fatal error: nothing was sent. */
  | {status: 'invalid'; file: ValidatedFile}
  | {status: 'dry-run'; file: ValidatedFile; summary: ImportSummary}
  | {status: 'done' | 'interrupted'; file: ValidatedFile; summary: ImportSummary; sent: number; journal: string}

interface Connection {
  paced: PacedClient
  onConflict?: OnConflict
  progress?: BulkProgress
}

export async function runImport(options: ImportRunOptions): Promise<ImportOutcome> {
  const errors = options.errorsFile ? await openErrorsFile(options.errorsFile) : undefined
  let connection: Connection | undefined
  let started: {file: ValidatedFile; journal: Journal} | undefined
  let ticker: {stop(): void} | undefined
  const tracker = new ProgressTracker()
  try {
    connection = await connectImport(options)
    const paced = connection?.paced
    const send = rowSender(options.kind, paced, connection?.onConflict)
    let answered = 0
    // What this run did; rows an earlier run finished are counted apart (the journal holds every run's outcomes).
    const now: Counts = {created: 0, failed: 0, skipped: 0, updated: 0}
    let alreadyDone = 0
    let result: ImportFileResult
    try {
      result = await importFile<ImportRow>({
        baseUrl: paced?.client.baseUrl ?? '',
        concurrency: options.concurrency,
        dryRun: options.dryRun,
        errors: {
          write(row: ErrorRow) {
            if (row.status === 'failed') options.onFailed?.(row.line, row.reason)
            return errors?.writer.write(row)
          },
        },
        file: options.file,
        format: options.format,
        journalDir: journalDir(options.env),
        kind: options.kind,
        onProgress(event) {
          if (event.resumed) {
            alreadyDone++
            tracker.skip()
          } else {
            answered++
            now[event.outcome.outcome]++
            tracker.advance()
          }
        },
        async onStart(file, journal) {
          await options.onStart?.(
            file,
            pendingInvitations(file.invitations, (line) => journal.isDone(line)),
          )
          started = {file, journal}
          for (const e of file.invalid) options.onSkipped?.(e)
          tracker.setTotal(file.valid)
          if (connection?.progress && paced) ticker = startTicker(tracker, connection.progress, paced.pacer)
        },
        send,
        sendInvite: options.sendInvite,
        signal: options.signal,
        skipInvalid: options.skipInvalid,
      })
    } catch (error) {
      if (!started) throw asUsage(error)
      const summary = summaryOf(now, started.file.invalidCount, alreadyDone)
      if (options.signal?.aborted) return {file: started.file, journal: started.journal.path, sent: answered, status: 'interrupted', summary}
      throw withResumeHint(error, summary, started.journal.path)
    }
    if (result.status === 'invalid') return result
    if (result.status === 'dry-run') {
      for (const e of result.file.invalid) options.onSkipped?.(e)
      return {...result, summary: summaryOf(now, result.file.invalidCount, 0)}
    }
    return {
      file: result.file,
      journal: result.journal,
      sent: result.result.sent,
      status: result.result.interrupted ? 'interrupted' : 'done',
      summary: summaryOf(now, result.result.invalid, alreadyDone),
    }
  } finally {
    ticker?.stop()
    connection?.progress?.stop()
    await errors?.close()
    await connection?.paced.close()
  }
}

/** The paced client an import sends through, with its progress display; none for a dry run. */
async function connectImport(options: ImportRunOptions): Promise<Connection | undefined> {
  if (options.dryRun || !options.connect) return undefined
  const {client, onConflict, tokens} = await options.connect()
  const progress = await options.progress?.()
  const paced = pacedClient(client, tokens, {expectedLimit: options.expectedLimit, quietWaits: progress !== undefined, signal: options.signal})
  return {onConflict, paced, progress}
}

/** The summary, in the contract's order, then the rows an earlier run had done. */
function summaryOf(counts: Counts, invalid: number, alreadyDone: number): ImportSummary {
  return {created: counts.created, updated: counts.updated, skipped: counts.skipped, failed: counts.failed, invalid, already_done: alreadyDone}
}

/** How one row is sent, by kind; without a connection (dry run) nothing can be. */
function rowSender(
  kind: ImportKind,
  paced: PacedClient | undefined,
  onConflict: OnConflict = 'fail',
): (row: ImportRow, context: SendContext) => Promise<RowOutcome> {
  if (!paced) return () => Promise.reject(new Error('no connection to the service (dry run)'))
  if (kind === 'customers') {
    const send = customerSender({api: customerApi(paced, paced.client.apiVersion), onConflict})
    return (row, context) => send(row as Extract<ImportRow, {kind: 'customers'}>, context)
  }
  const send = orderSender({api: orderApi(paced)})
  return (row) => send(row as Extract<ImportRow, {kind: 'orders'}>)
}

/** The engine's own errors, in the contract's terms. */
function asUsage(error: unknown): unknown {
  if (error instanceof CliError || !(error instanceof Error)) return error
  if (error.name === 'JournalBusyError' || error.name === 'JournalLinkError' || error.name === 'FileChangedError')
    return new CliError(error.message, {cause: error})
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR')
    return new UsageError(`Cannot import: ${fileProblem(error, (error as NodeJS.ErrnoException).path ?? 'the file')}.`)
  return error
}

/** An error that stopped an import (network, 5xx, 401, 429 beyond the retries), with how to go on. */
function withResumeHint(error: unknown, summary: Counts, journal: string): unknown {
  if (!(error instanceof Error)) return error
  const done = `${summary.created} created, ${summary.updated} updated, ${summary.skipped} skipped, ${summary.failed} failed so far`
  const hint = `${done}. Run the same command again to resume (journal: ${journal}).`
  if (error instanceof CliError)
    return new CliError(error.message, {
      cause: error,
      exitCode: error.exitCode,
      fieldErrors: error.fieldErrors,
      hint: error.hint ? `${error.hint}\n${hint}` : hint,
      status: error.status,
    })
  return new CliError(error.message, {cause: error, hint})
}

/** --errors-file: written through a temp file like an export, and renamed into place however the import ends. */
async function openErrorsFile(path: string) {
  const file = await openAtomic(resolve(path), phrase`${option('errorsFile')} ${path}`)
  const stream = atomicStream(file)
  const writer = createErrorsWriter(errorsFileFormat(path), stream)
  return {
    async close() {
      try {
        await writer.end()
        stream.end()
        await finished(stream)
        await file.commit()
      } catch (error) {
        await file.discard()
        throw error
      }
    },
    writer,
  }
}
