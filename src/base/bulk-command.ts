/**
 * The bulk commands' rendering, shared by customers|orders export|import: the progress bar (on a terminal),
 * the summaries and the exit codes. Ctrl-C comes as BaseCommand's `interrupted` signal, handed to the services.
 */
import type {Command} from '@oclif/core'

import type {ApiClient, ApiRequest, TokenSource} from '../api/client.js'
import type {ImportFormat, OnConflict} from '../domain/bulk-formats.js'
import {confirmOrThrow} from '../io/prompt.js'
import {ERROR_CODES, EXIT, signalCode, UsageError} from '../errors.js'
import {commandSource} from './history-recorder.js'
import {ApiCommand} from './command.js'
import {createProgressBar} from '../io/progress.js'
import {type Output, renderRecord} from '../io/output.js'
import {counted} from '../domain/text.js'
import {sanitize} from '../io/sanitize.js'
import type {IOStreams} from '../io/streams.js'
import {
  exportFormat,
  type ExportResult,
  type ImportKind,
  type ImportOutcome,
  type Invitations,
  importFormat,
  type RecordFormat,
  runExport,
  runImport,
  type ValidatedFile,
} from '../services/bulk.js'

export interface ExportCommandOptions {
  io: IOStreams
  output: Output
  /** BaseCommand's `interrupted`: Ctrl-C stops the export. */
  signal: AbortSignal
  client: ApiClient
  tokens: TokenSource
  request: ApiRequest
  /** `customer`, `order`: names the records in messages. */
  noun: string
  columns: readonly string[]
  /** The unit of the service's amounts, for the rows that carry money. */
  moneyUnit?: string
  flags: {format?: RecordFormat; output?: string; concurrency: number; 'escape-formulas'?: boolean}
  /** The documented limit of this list operation, if any (v1 customers). */
  expectedLimit?: number
}

/**
 * `customers export` / `orders export` after flag parsing: the format, a progress bar when stderr is a terminal
 * and the records do not go to it, Ctrl-C, the export, and the summary (stderr, or stdout with --json --output).
 */
export async function exportCommand(options: ExportCommandOptions): Promise<ExportResult> {
  const {flags, io} = options
  const format = exportFormat(flags.format, {json: io.json, output: flags.output})
  if (flags['escape-formulas'] && format !== 'csv')
    throw new UsageError(`--escape-formulas applies to CSV only; add --format csv (the format is ${format}).`)
  const toFile = flags.output !== undefined && flags.output !== '-'
  const progress = toFile || !io.isStdoutTTY ? await createProgressBar(io, `Exporting ${options.noun}s`) : undefined
  const result = await runExport({
    client: options.client,
    columns: options.columns,
    concurrency: flags.concurrency,
    escapeFormulas: flags['escape-formulas'],
    expectedLimit: options.expectedLimit,
    format,
    moneyUnit: options.moneyUnit,
    output: flags.output,
    progress,
    request: options.request,
    signal: options.signal,
    stdout: io.stdout,
    tokens: options.tokens,
  })
  if (io.json && toFile) await options.output.document(result)
  else if (toFile) io.info(`Exported ${counted(result.exported, options.noun)} to ${result.output}.`)
  return result
}

export interface ImportCommandOptions {
  io: IOStreams
  /** BaseCommand's `interrupted`: Ctrl-C takes no new rows and finishes those in flight. */
  signal: AbortSignal
  env: NodeJS.ProcessEnv
  kind: ImportKind
  file: string
  flags: {
    format?: ImportFormat
    concurrency: number
    'dry-run': boolean
    'skip-invalid': boolean
    'errors-file'?: string
    'send-invite'?: boolean
    yes?: boolean
  }
  /** Told of a run that sent rows, once it ends: the history's one entry for it. */
  recordRun?: (o: {journal: string; counts: Record<string, number>; interrupted: boolean}) => Promise<void>
  /** The client and credentials; called only when rows are to be sent. */
  connect: () => Promise<{client: ApiClient; tokens: TokenSource; onConflict?: OnConflict}>
  expectedLimit?: number
}

/** Failed rows listed on stderr after the summary; the rest are in --errors-file. */
const FAILURES_SHOWN = 10

/**
 * `customers import` / `orders import` after flag parsing: runs the import with a progress bar and Ctrl-C,
 * reports bad rows (exit 2 via UsageError), prints the summary, and answers the exit code: 130 when interrupted,
 * 1 when a row failed, else 0.
 */
export async function importCommand(options: ImportCommandOptions): Promise<number> {
  const {flags, io} = options
  const format = importFormat(options.file, flags.format)
  const noun = options.kind === 'customers' ? 'customer' : 'order'
  // The bar goes first, for good: a redraw after the message would leave pieces of it behind.
  const onStop = () => {
    io.stopStatus()
    io.info('Stopping: no new rows; finishing the requests in flight (they are journaled)…')
  }
  options.signal.addEventListener('abort', onStop, {once: true})
  const failures: string[] = []
  let failedNow = 0
  let outcome: ImportOutcome
  try {
    outcome = await runImport({
      concurrency: flags.concurrency,
      connect: options.connect,
      dryRun: flags['dry-run'],
      env: options.env,
      errorsFile: flags['errors-file'],
      expectedLimit: options.expectedLimit,
      file: options.file,
      format,
      kind: options.kind,
      onFailed(line, reason) {
        failedNow++
        // The reason is the service's message: control characters shown escaped, never run by the terminal.
        if (failures.length < FAILURES_SHOWN) failures.push(`line ${line}: ${sanitize(reason, 'cell')}`)
      },
      onSkipped: (e) => io.warn(`skipping invalid ${sanitize(e.message, 'cell')}`),
      progress: () => createProgressBar(io, `Importing ${noun}s`),
      async onStart(file, invitations) {
        const note = invitationsNote(file.kind, invitations, 'will get')
        if (!note) return
        // Emails to real people: on a terminal, asked before anything is sent (--yes, or --no-send-invite, says so).
        if (invitations.sent > 0 && flags['send-invite'] === undefined && !flags.yes && io.canPrompt())
          await confirmOrThrow(io, `${note.replace(/\.$/, '')}. Send the invitations?`, false)
        else io.info(note)
      },
      sendInvite: flags['send-invite'],
      signal: options.signal,
      skipInvalid: flags['skip-invalid'],
    })
  } finally {
    options.signal.removeEventListener('abort', onStop)
  }

  if (outcome.status === 'invalid') throw invalidFile(outcome.file, options.file, {errorsFile: flags['errors-file'], json: io.json})
  if (outcome.status === 'dry-run') {
    const {file} = outcome
    io.info(`Dry run: ${file.valid} valid row${file.valid === 1 ? '' : 's'}, ${file.invalidCount} invalid; nothing was sent.`)
    const note = invitationsNote(file.kind, file.invitations, 'would get')
    if (note) io.info(note)
    // The summary of a run that sent nothing is all zeros: a document for a program, nothing for a person.
    if (io.json) await renderRecord(io, withIgnored(outcome.summary, file))
    return EXIT.ok
  }
  if (outcome.sent > 0)
    await options.recordRun?.({counts: {...outcome.summary}, interrupted: outcome.status === 'interrupted', journal: outcome.journal})
  for (const line of failures) io.info(`${io.chalk.red('failed')} ${line}`)
  if (failedNow > failures.length)
    io.info(
      `… and ${failedNow - failures.length} more${flags['errors-file'] ? ` (all in ${flags['errors-file']})` : ' (--errors-file FILE lists them all)'}.`,
    )
  if (outcome.status === 'interrupted') io.info(`Interrupted. Run the same command again to resume (journal: ${outcome.journal}).`)
  else if (outcome.sent === 0 && outcome.file.valid > 0) io.info('Nothing to send: every row was done by an earlier run of this import.')
  await renderRecord(io, withIgnored(outcome.summary, outcome.file))
  if (outcome.status === 'interrupted') return ERROR_CODES[signalCode(options.signal.reason)].exit
  return outcome.summary.failed > 0 ? EXIT.failure : EXIT.ok
}

/**
 * The summary, with the fields the rows carried that were not sent (the service sets them), and how many rows had a
 * status the create body cannot carry, when there were any.
 */
function withIgnored(summary: object, file: ValidatedFile): Record<string, unknown> {
  return {
    ...summary,
    ...(file.ignoredFields.length > 0 ? {ignored_fields: file.ignoredFields} : {}),
    ...(file.statusNotCarried > 0 ? {status_not_carried: file.statusNotCarried} : {}),
  }
}

/**
 * Customers whose rows leave send_invite unset get an invitation email from the service: said before it
 * happens (and by a dry run), with the way out. Nothing when every row says what it wants.
 */
function invitationsNote(kind: ImportKind, invitations: Invitations, verb: string): string | undefined {
  const {sent, unset} = invitations
  if (kind !== 'customers' || unset === 0) return undefined
  // "Up to": a row whose email is taken already creates no customer, and so sends none (the conflicts are known only
  // once the service answers).
  return `Up to ${counted(sent, 'customer')} ${verb} an invitation email (${unset} of them ${unset === 1 ? 'leaves' : 'leave'} send_invite unset; --no-send-invite: none).`
}

/** Every bad row by its line, as one usage error (exit 2): nothing was sent. */
/** Invalid rows listed on a terminal or a pipe: the rest are counted, and all of them are in --errors-file. */
const INVALID_SHOWN = 20

/**
 * Exit 2 naming the bad rows: all of them in the --json error document; in human output the first INVALID_SHOWN,
 * then how many more and where all of them are (a file of the wrong format is thousands of lines otherwise).
 */
function invalidFile(file: ValidatedFile, name: string, shown: {json: boolean; errorsFile?: string}): UsageError {
  const errors: Record<string, string[]> = {}
  const listed = shown.json ? file.invalid : file.invalid.slice(0, INVALID_SHOWN)
  for (const e of listed) (errors[`line ${e.line}`] ??= []).push(e.reason)
  const more = file.invalidCount - listed.length
  const rest =
    more > 0
      ? ` … and ${counted(more, 'more invalid row')} (${shown.errorsFile ? `all of them in ${shown.errorsFile}` : '--errors-file FILE lists them all'}).`
      : ''
  if (file.fatal)
    return new UsageError(`Cannot import ${name}: nothing was sent.`, {fieldErrors: errors, hint: `Fix the file and run the command again.${rest}`})
  const n = file.invalidCount
  return new UsageError(`${counted(n, 'invalid row')} in ${name}; nothing was sent.`, {
    fieldErrors: errors,
    hint: `Fix them, or pass --skip-invalid to import the other rows.${rest}`,
  })
}

/**
 * customers|orders export|import: interruptible (Ctrl-C stops taking work and finishes what is in flight), and
 * wired to this command's context once: its client and credentials, its streams, its flags and its Ctrl-C.
 */
export abstract class BulkCommand<T extends typeof Command> extends ApiCommand<T> {
  // An import is one entry of the history (importRecords), not one a row; an export changes nothing.
  static historySurface = undefined
  static interruptible = true

  protected async exportRecords(spec: Pick<ExportCommandOptions, 'columns' | 'expectedLimit' | 'noun' | 'request'>): Promise<void> {
    await exportCommand({
      ...spec,
      moneyUnit: await this.moneyUnit(),
      // Reads only: a signal gives up the page in flight at once (nothing to finish), the temp file goes.
      client: await this.ctx.client({signal: this.interrupted}),
      flags: this.flags as ExportCommandOptions['flags'],
      io: this.io,
      output: this.output,
      signal: this.interrupted,
      tokens: (await this.ctx.credentials()).tokens,
    })
  }

  /** Exits with the import's code (130 interrupted, 1 a row failed) unless it is 0. */
  protected async importRecords(spec: {kind: ImportKind; file: string; onConflict?: OnConflict; expectedLimit?: number}): Promise<void> {
    const {onConflict, ...rest} = spec
    const code = await importCommand({
      ...rest,
      connect: async () => ({client: await this.ctx.client(), onConflict, tokens: (await this.ctx.credentials()).tokens}),
      env: this.ctx.env,
      flags: this.flags as ImportCommandOptions['flags'],
      io: this.io,
      // One entry for the run (the rows are in its journal), not one a row: the command's client records none.
      recordRun: async ({counts, interrupted, journal}) =>
        this.ctx.recordRun({
          command: commandSource('import', this.commandLine(), this.argv)!.command(),
          counts,
          journal,
          method: 'POST',
          path: `/api/${await this.ctx.apiVersion()}/${spec.kind}`,
          status: interrupted ? 'unknown' : counts.failed > 0 ? 207 : 201,
          surface: 'import',
        }),
      signal: this.interrupted,
    })
    if (code !== 0) this.exit(code)
  }
}
