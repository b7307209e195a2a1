/**
 * An import from start to end: validate the whole file (nothing is sent when a row is bad, unless
 * `skipInvalid`; never after a fatal error), then, unless `dryRun`, send the valid rows through the runner
 * with the file's journal. The caller turns the result into output and an exit code.
 */
import type {ErrorRow} from './errors-file.js'
import {Journal, type RowOutcome} from './journal.js'
import type {ImportFormat} from './read.js'
import type {ImportRow} from './rows.js'
import {type ImportResult, type RowProgress, type SendContext, sendRows} from './runner.js'
import {type ValidatedFile, validateFile} from './validate-file.js'

export interface ImportFileOptions<R extends ImportRow> {
  file: string
  kind: R['kind']
  format: ImportFormat
  /** The service's base URL: a journal belongs to one service. */
  baseUrl: string
  /** Where journals live (`journalDir()` in production). */
  journalDir: string
  send: (row: R, context: SendContext) => Promise<RowOutcome>
  skipInvalid?: boolean
  /** Customers: send_invite for the rows that leave it unset. */
  sendInvite?: boolean
  dryRun?: boolean
  concurrency?: number
  signal?: AbortSignal
  /** Called once validation passed and sending starts (e.g. to start a progress bar at `valid`). */
  /** Before any row is sent; a rejection (a declined question) stops the import with nothing sent. */
  onStart?: (file: ValidatedFile, journal: Journal) => void | Promise<void>
  onProgress?: (event: RowProgress) => void
  /** --errors-file: the invalid rows (whatever the status), and the rows that failed now. */
  errors?: {write(row: ErrorRow): Promise<void> | void}
  now?: () => number
}

export type ImportFileResult =
  /** Bad rows without skipInvalid, or a fatal error: nothing was sent. */
  | {status: 'invalid'; file: ValidatedFile}
  | {status: 'dry-run'; file: ValidatedFile}
  | {status: 'done'; file: ValidatedFile; result: ImportResult; journal: string}

export async function importFile<R extends ImportRow>(options: ImportFileOptions<R>): Promise<ImportFileResult> {
  const file = await validateFile({file: options.file, format: options.format, kind: options.kind, sendInvite: options.sendInvite})
  for (const e of file.invalid) await options.errors?.write({errors: e.errors, line: e.line, reason: e.reason, status: 'invalid'})
  if (file.fatal || (file.invalidCount > 0 && !options.skipInvalid)) return {file, status: 'invalid'}
  if (options.dryRun) return {file, status: 'dry-run'}

  const journal = await Journal.open(
    options.journalDir,
    {baseUrl: options.baseUrl, file: file.file, kind: file.kind, sha256: file.sha256},
    {now: options.now},
  )
  try {
    await options.onStart?.(file, journal)
    const pendingWrites: Array<Promise<void>> = []
    const result = await sendRows<R>({
      concurrency: options.concurrency,
      invalid: file.invalidCount,
      journal,
      onOutcome(row, outcome) {
        if (outcome.outcome === 'failed' && options.errors)
          pendingWrites.push(Promise.resolve(options.errors.write({line: row.line, reason: outcome.reason ?? 'failed', status: 'failed'})))
      },
      onProgress: options.onProgress,
      rows: file.rows() as AsyncIterable<R>,
      send: options.send,
      signal: options.signal,
    })
    await Promise.all(pendingWrites)
    return {file, journal: journal.path, result, status: 'done'}
  } finally {
    journal.close()
  }
}
