/**
 * The bulk commands' wiring: the engine of this directory (pages, writers, import, senders, pacer, journal,
 * progress) over the real API client. The oclif commands parse flags and render; everything else is here.
 *
 * - Export: page 1, then the other pages with bounded concurrency, written in order as they arrive (memory
 *   holds a few pages); to stdout, or to `--output` through an exclusive temp file beside it (mode 0600, never
 *   through a planted link; src/domain/files.ts) renamed at the end, so a failed or interrupted export leaves no
 *   partial file (a `kill -9` can leave the `.NAME.PID.RANDOM.tmp` file behind).
 * - Import: validation pass, then rows sent through a client that shares one Pacer, journaled row by row.
 * - Ctrl-C: an AbortSignal; waits (pacer, Retry-After) end at once with InterruptedError, requests on the wire
 *   finish and are journaled, and the command exits 130 with what was done so far.
 */
import {stat} from 'node:fs/promises'
import {extname, resolve} from 'node:path'
import {Writable} from 'node:stream'
import {finished} from 'node:stream/promises'

import {ApiClient, type ApiRequest, type TokenSource} from '../../api/client.js'
import {pages, records} from '../../api/paginate.js'
import {type AtomicFile, createAtomicFile} from '../../domain/files.js'
import {type ApiVersion, type Customer, LIMITS, RATE_LIMITS} from '../../domain/schema.js'
import {ApiError, CliError, EXIT, UsageError} from '../../errors.js'
import {createProgressBar} from '../../io/progress.js'
import {renderRecord} from '../../io/render.js'
import type {IOStreams} from '../../io/streams.js'
import {createCustomer, listCustomersRequest, updateCustomer} from '../customers.js'
import {createOrder} from '../orders.js'
import {createErrorsWriter, type ErrorRow, errorsFileFormat} from './errors-file.js'
import {type ImportFileResult, importFile} from './import.js'
import {type Counts, type Journal, journalDir, type RowOutcome} from './journal.js'
import {type Clock, Pacer} from './pacer.js'
import {fetchAllPages} from './pages.js'
import {type ProgressSnapshot, ProgressTracker} from './progress.js'
import type {ImportFormat} from './read.js'
import type {ImportKind, ImportRow, RowError} from './rows.js'
import type {ImportSummary, SendContext} from './runner.js'
import {type CustomerApi, customerSender, type OnConflict, type OrderApi, orderSender} from './senders.js'
import type {ValidatedFile} from './validate-file.js'
import {createRecordWriter, type RecordFormat} from './write.js'

export const EXPORT_FORMATS = ['jsonl', 'csv', 'json'] as const
export const IMPORT_FORMATS = ['csv', 'jsonl'] as const
export const EXPORT_PER_PAGE = LIMITS.perPage.max
export const MAX_CONCURRENCY = 16
/** The documented order-creation limit: past it, before a 429, order requests go one at a time. */
export const ORDER_EXPECTED_LIMIT = RATE_LIMITS.orderCreate.limit

/** What a progress bar is shown (io/progress.ts draws it; nothing is drawn off a terminal). */
export interface BulkProgress {
  update(view: ProgressSnapshot & {note?: string}): void
  stop(): void
}

// ------------------------------------------------------------------------------------------- interruption

export class InterruptedError extends CliError {
  constructor() {
    super('Interrupted.', {exitCode: EXIT.interrupted})
  }
}

/**
 * Ctrl-C as an AbortSignal, for the life of the command. Later signals are ignored: conf's dependency
 * when-exit re-raises the first SIGINT once, and that echo must not count as a second Ctrl-C.
 */
function interruptOnCtrlC(onFirst: () => void): {signal: AbortSignal; dispose(): void} {
  const controller = new AbortController()
  const handler = () => {
    if (controller.signal.aborted) return
    onFirst()
    controller.abort()
  }
  process.on('SIGINT', handler)
  return {dispose: () => process.off('SIGINT', handler), signal: controller.signal}
}

/** A sleep that ends early without error on its own `signal`, and rejects with InterruptedError on `interrupt`. */
function interruptibleSleep(interrupt: AbortSignal | undefined) {
  return (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolvePromise, reject) => {
      if (interrupt?.aborted) return reject(new InterruptedError())
      if (signal?.aborted) return resolvePromise()
      const done = (error?: Error) => {
        clearTimeout(timer)
        interrupt?.removeEventListener('abort', onInterrupt)
        signal?.removeEventListener('abort', onAbort)
        if (error) reject(error)
        else resolvePromise()
      }
      const onInterrupt = () => done(new InterruptedError())
      const onAbort = () => done()
      const timer = setTimeout(done, Math.max(0, ms))
      interrupt?.addEventListener('abort', onInterrupt, {once: true})
      signal?.addEventListener('abort', onAbort, {once: true})
    })
}

// ------------------------------------------------------------------------------------------- paced client

export interface PacedClient {
  client: ApiClient
  pacer: Pacer
  /** Resolves once a token is at hand (issued, when needed, outside the pacer: it is not a paced request). */
  ready(): Promise<void>
  close(): Promise<void>
}

/**
 * A client like `base` whose requests all go through one Pacer, with waits that Ctrl-C ends. The token is
 * obtained through `base` first, so that the token request neither waits for nor counts against the pacer.
 */
export function pacedClient(base: ApiClient, tokens: TokenSource, options: {expectedLimit?: number; signal?: AbortSignal; quietWaits?: boolean} = {}): PacedClient {
  const sleep = interruptibleSleep(options.signal)
  const clock: Clock = {now: Date.now, sleep}
  const pacer = new Pacer({clock, expectedLimit: options.expectedLimit})
  const client = new ApiClient({
    ...base.options,
    dispatcher: undefined,
    onWait: options.quietWaits ? () => () => {} : base.options.onWait,
    pacer,
    sleep: (ms) => sleep(ms),
  })
  let token: Promise<unknown> | undefined
  return {
    client,
    close: () => client.close(),
    pacer,
    async ready() {
      token ??= tokens.getToken(base)
      await token
    },
  }
}

/** The progress note while the pacer holds requests back for a 429's Retry-After. */
function pauseNote(pacer: Pacer): string | undefined {
  const until = pacer.resumesAt
  return until === undefined ? undefined : `rate limited: resuming in ${Math.ceil((until - Date.now()) / 1000)}s`
}

/** Time left at the learned limit (orders: L per window), and at least the current Retry-After pause. */
function pacedEtaMs(pacer: Pacer, left: number, measured: number | undefined): number | undefined {
  const paced = pacer.limit === undefined || pacer.windowMs === undefined ? measured : (left / pacer.limit) * pacer.windowMs
  const pause = pacer.resumesAt === undefined ? 0 : pacer.resumesAt - Date.now()
  return paced === undefined ? undefined : Math.max(paced, pause)
}

function startTicker(tracker: ProgressTracker, progress: BulkProgress, pacer: Pacer) {
  const tick = () => {
    const view = tracker.snapshot()
    const left = view.total === undefined ? undefined : Math.max(0, view.total - view.done)
    progress.update({...view, etaMs: left === undefined ? undefined : pacedEtaMs(pacer, left, view.etaMs), note: pauseNote(pacer)})
  }
  tick()
  const timer = setInterval(tick, 125)
  timer.unref()
  return {
    stop() {
      clearInterval(timer)
      progress.stop()
    },
  }
}

// ------------------------------------------------------------------------------------------- export

/** --format, or from --json: without --output, `--json` makes stdout one JSON document (the array). */
export function exportFormat(format: RecordFormat | undefined, options: {json: boolean; output?: string}): RecordFormat {
  const toStdout = options.output === undefined || options.output === '-'
  if (options.json && toStdout) {
    if (format !== undefined && format !== 'json')
      throw new UsageError(`--json without --output prints the records as one JSON array; drop --format ${format}, or add --output FILE (then --json prints a summary).`)
    return 'json'
  }
  return format ?? 'jsonl'
}

export interface ExportOptions {
  client: PacedClient
  request: ApiRequest
  format: RecordFormat
  /** A file (written through a temporary file, renamed at the end); undefined or `-` for `stdout`. */
  output?: string
  stdout: Writable
  concurrency: number
  /** CSV: the resource's columns (the header of an empty export). */
  columns: readonly string[]
  signal?: AbortSignal
  progress?: BulkProgress
}

export interface ExportResult {
  exported: number
  /** The absolute path written, or null for stdout. */
  output: string | null
}

interface Target {
  stream: Writable
  commit(): Promise<void>
  abort(): Promise<void>
  /** stdout closed by its reader (`| head`): stop quietly. */
  closed(): boolean
}

async function fileTarget(path: string): Promise<Target> {
  const final = resolve(path)
  // Refused before any request, rather than after a whole export at the final rename.
  if ((await stat(final).catch(() => undefined))?.isDirectory()) throw new UsageError(`--output ${path} is a directory; name a file.`)
  const file = await openAtomic(final, `--output ${path}`)
  const stream = atomicStream(file)
  return {
    async abort() {
      stream.destroy()
      await file.discard()
    },
    closed: () => false,
    async commit() {
      stream.end()
      await finished(stream)
      await file.commit()
    },
    stream,
  }
}

/** A new file through an exclusive temp file beside it (src/domain/files.ts), or a usage error naming `what`. */
async function openAtomic(path: string, what: string): Promise<AtomicFile> {
  try {
    return await createAtomicFile(path)
  } catch (error) {
    throw new UsageError(`Cannot write ${what}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`)
  }
}

/** A Writable over an AtomicFile, for the record writers (one write at a time, backpressure included). */
function atomicStream(file: AtomicFile): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      file.write(chunk).then(() => done(), done)
    },
  })
}

function stdoutTarget(stdout: Writable): Target {
  let closed = false
  // EPIPE: the reader went away (`| head`); without a listener Node would throw it asynchronously.
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') closed = true
  })
  return {abort: async () => {}, closed: () => closed, commit: async () => {}, stream: stdout}
}

export async function exportRecords(options: ExportOptions): Promise<ExportResult> {
  const {client, request, signal} = options
  const toFile = options.output !== undefined && options.output !== '-'
  const target = toFile ? await fileTarget(options.output!) : stdoutTarget(options.stdout)
  const tracker = new ProgressTracker()
  let ticker: {stop(): void} | undefined
  try {
    await client.ready()
    if (options.progress) ticker = startTicker(tracker, options.progress, client.pacer)
    const writer = createRecordWriter(options.format, target.stream, {columns: options.columns})
    const records = fetchAllPages<Record<string, unknown>>({
      concurrency: options.concurrency,
      async fetchPage(page, perPage) {
        for await (const fetched of pages<Record<string, unknown>>(client.client, request, {page, perPage})) return fetched
        throw new CliError('Unexpected response: no page of records.')
      },
      onTotal: (total) => tracker.setTotal(total),
      perPage: EXPORT_PER_PAGE,
    })
    for await (const record of records) {
      if (signal?.aborted) throw new InterruptedError()
      if (target.closed()) break
      const wait = writer.write(record)
      if (wait) await waitOrClosed(wait, target)
      tracker.advance()
    }
    if (!target.closed()) await waitOrClosed(writer.end(), target)
    await target.commit()
    return {exported: writer.count, output: toFile ? resolve(options.output!) : null}
  } catch (error) {
    await target.abort()
    throw error
  } finally {
    ticker?.stop()
  }
}

export interface ExportCommandOptions {
  io: IOStreams
  client: ApiClient
  tokens: TokenSource
  request: ApiRequest
  /** `customer`, `order`: names the records in messages. */
  noun: string
  columns: readonly string[]
  flags: {format?: RecordFormat; output?: string; concurrency: number; json: boolean}
  /** The documented limit of this list operation, if any (v1 customers). */
  expectedLimit?: number
}

/**
 * `customers export` / `orders export` after flag parsing: the format, a progress bar when stderr is a terminal
 * and the records do not go to it, Ctrl-C, the export, and the summary (stderr, or stdout with --json --output).
 */
export async function exportCommand(options: ExportCommandOptions): Promise<ExportResult> {
  const {flags, io} = options
  const format = exportFormat(flags.format, flags)
  const toFile = flags.output !== undefined && flags.output !== '-'
  const progress = toFile || !io.isStdoutTTY ? await createProgressBar(io, `Exporting ${options.noun}s`) : undefined
  const interrupt = interruptOnCtrlC(() => {})
  const paced = pacedClient(options.client, options.tokens, {expectedLimit: options.expectedLimit, quietWaits: progress !== undefined, signal: interrupt.signal})
  try {
    const result = await exportRecords({
      client: paced,
      columns: options.columns,
      concurrency: flags.concurrency,
      format,
      output: flags.output,
      progress,
      request: options.request,
      signal: interrupt.signal,
      stdout: io.stdout,
    })
    if (io.json && toFile) io.outJson(result)
    else if (toFile) io.info(`Exported ${result.exported} ${options.noun}${result.exported === 1 ? '' : 's'} to ${result.output}.`)
    return result
  } finally {
    interrupt.dispose()
    await paced.close()
  }
}

/** A write's drain wait, ended (quietly) when the reader closed stdout. */
async function waitOrClosed(wait: Promise<void> | void, target: Target): Promise<void> {
  try {
    await wait
  } catch (error) {
    if (!target.closed() && (error as NodeJS.ErrnoException).code !== 'EPIPE') throw error
  }
}

// ------------------------------------------------------------------------------------------- import

/** --format, or the file's extension. */
export function importFormat(file: string, format: ImportFormat | undefined): ImportFormat {
  if (format) return format
  const ext = extname(file).toLowerCase()
  if (ext === '.csv') return 'csv'
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl'
  throw new UsageError(`Cannot tell the format of ${file} from its name; pass --format csv or --format jsonl.`)
}

/** A service answer about the row itself (bad or conflicting input), as a reason; undefined for anything else. */
function rowRejection(error: unknown, statuses: readonly number[]): string | undefined {
  if (!(error instanceof ApiError) || error.status === null || !statuses.includes(error.status)) return undefined
  const fields = Object.entries(error.fieldErrors ?? {}).flatMap(([field, messages]) => messages.map((m) => `${field} ${m}`))
  return fields.length > 0 ? fields.join('; ') : error.message
}

/** Answers about one row: bad input (400, 422), a conflict (409), a body too large for the service (413). */
const ROW_STATUSES = [400, 409, 413, 422] as const

/** Customer creation over the client. v2 also finds customers by email (search) and updates them. */
export function customerApi(paced: PacedClient, version: ApiVersion): CustomerApi {
  const {client} = paced
  const api: CustomerApi = {
    async create(body) {
      await paced.ready()
      try {
        const customer = await createCustomer(client, body, version)
        return {id: customer.id, status: 'created'}
      } catch (error) {
        const reason = rowRejection(error, ROW_STATUSES)
        if (reason === undefined) throw error
        // The email passed client-side validation, so a complaint about it (or a 409) means it is taken.
        const e = error as ApiError
        if (e.status === 409 || e.fieldErrors?.email) return {status: 'email_taken'}
        return {reason, status: 'rejected'}
      }
    },
  }
  if (version !== 'v2') return api
  api.findByEmail = async (email) => {
    if (email.length > LIMITS.searchMaxLength) return undefined
    const wanted = email.toLowerCase()
    // The search matches substrings of names and emails too: page through its results for the exact email.
    for await (const c of records<Customer>(client, listCustomersRequest({search: email, version: 'v2'}), {all: true, perPage: EXPORT_PER_PAGE}))
      if (c.email.toLowerCase() === wanted) return {created_at: c.created_at, id: c.id}
    return undefined
  }
  api.update = async (id, body) => {
    try {
      await updateCustomer(client, id, body)
      return {status: 'updated'}
    } catch (error) {
      const reason = rowRejection(error, [...ROW_STATUSES, 404])
      if (reason === undefined) throw error
      return {reason, status: 'rejected'}
    }
  }
  return api
}

/** Order creation in v2, each with its row's Idempotency-Key (a resend replays the original order). */
export function orderApi(paced: PacedClient): OrderApi {
  return {
    async create(body, idempotencyKey) {
      await paced.ready()
      try {
        const {order} = await createOrder(paced.client, body, {idempotencyKey, version: 'v2'})
        return {id: order.id, status: 'created'}
      } catch (error) {
        const reason = rowRejection(error, ROW_STATUSES)
        if (reason === undefined) throw error
        return {reason, status: 'rejected'}
      }
    },
  }
}

export interface ImportRunOptions {
  kind: ImportKind
  file: string
  format: ImportFormat
  concurrency: number
  dryRun: boolean
  skipInvalid: boolean
  errorsFile?: string
  env: NodeJS.ProcessEnv
  /** The service, a progress bar (none off a terminal); not called for a dry run (nothing is sent). */
  connect?: () => Promise<Connection>
  signal?: AbortSignal
  /** Each invalid row, when the import goes on without it (--skip-invalid, or a dry run). */
  onSkipped?: (error: RowError) => void
  /** Each row that failed now (the service refused it). */
  onFailed?: (line: number, reason: string) => void
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
    if (!options.dryRun) connection = await options.connect?.()
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
        onStart(file, journal) {
          started = {file, journal}
          for (const e of file.invalid) options.onSkipped?.(e)
          tracker.setTotal(file.valid)
          if (connection?.progress && paced)
            ticker = startTicker(tracker, connection.progress, paced.pacer)
        },
        send,
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

/** The summary, in the contract's order, then the rows an earlier run had done. */
function summaryOf(counts: Counts, invalid: number, alreadyDone: number): ImportSummary {
  return {created: counts.created, updated: counts.updated, skipped: counts.skipped, failed: counts.failed, invalid, already_done: alreadyDone}
}

/** How one row is sent, by kind; without a connection (dry run) nothing can be. */
function rowSender(kind: ImportKind, paced: PacedClient | undefined, onConflict: OnConflict = 'fail'): (row: ImportRow, context: SendContext) => Promise<RowOutcome> {
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
  if (error.name === 'JournalBusyError' || error.name === 'FileChangedError') return new CliError(error.message, {cause: error})
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR')
    return new UsageError(`Cannot read ${(error as NodeJS.ErrnoException).path ?? 'the file'}: ${code}.`)
  return error
}

/** An error that stopped an import (network, 5xx, 401, 429 beyond the retries), with how to go on. */
function withResumeHint(error: unknown, summary: Counts, journal: string): unknown {
  if (!(error instanceof Error)) return error
  const done = `${summary.created} created, ${summary.updated} updated, ${summary.skipped} skipped, ${summary.failed} failed so far`
  const hint = `${done}. Run the same command again to resume (journal: ${journal}).`
  if (error instanceof CliError)
    return new CliError(error.message, {cause: error, exitCode: error.exitCode, fieldErrors: error.fieldErrors, hint: error.hint ? `${error.hint}\n${hint}` : hint, status: error.status})
  return new CliError(error.message, {cause: error, hint})
}

/** --errors-file: written through a temp file like an export, and renamed into place however the import ends. */
async function openErrorsFile(path: string) {
  const file = await openAtomic(resolve(path), `--errors-file ${path}`)
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

export interface ImportCommandOptions {
  io: IOStreams
  env: NodeJS.ProcessEnv
  kind: ImportKind
  file: string
  flags: {format?: ImportFormat; concurrency: number; 'dry-run': boolean; 'skip-invalid': boolean; 'errors-file'?: string}
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
  const interrupt = interruptOnCtrlC(() => io.info('Stopping: no new rows; finishing the requests in flight (they are journaled)…'))
  const failures: string[] = []
  let failedNow = 0
  let outcome: ImportOutcome
  try {
    outcome = await runImport({
      concurrency: flags.concurrency,
      async connect() {
        const {client, onConflict, tokens} = await options.connect()
        const progress = await createProgressBar(io, `Importing ${noun}s`)
        const paced = pacedClient(client, tokens, {expectedLimit: options.expectedLimit, quietWaits: progress !== undefined, signal: interrupt.signal})
        return {onConflict, paced, progress}
      },
      dryRun: flags['dry-run'],
      env: options.env,
      errorsFile: flags['errors-file'],
      file: options.file,
      format,
      kind: options.kind,
      onFailed(line, reason) {
        failedNow++
        if (failures.length < FAILURES_SHOWN) failures.push(`line ${line}: ${reason}`)
      },
      onSkipped: (e) => io.warn(`skipping invalid ${e.message}`),
      signal: interrupt.signal,
      skipInvalid: flags['skip-invalid'],
    })
  } finally {
    interrupt.dispose()
  }

  if (outcome.status === 'invalid') throw invalidFile(outcome.file, options.file)
  if (outcome.status === 'dry-run') {
    const {file} = outcome
    io.info(`Dry run: ${file.valid} valid row${file.valid === 1 ? '' : 's'}, ${file.invalidCount} invalid; nothing was sent.`)
    await renderRecord(io, {...outcome.summary})
    return EXIT.ok
  }
  for (const line of failures) io.info(`${io.chalk.red('failed')} ${line}`)
  if (failedNow > failures.length) io.info(`… and ${failedNow - failures.length} more${flags['errors-file'] ? ` (all in ${flags['errors-file']})` : ' (--errors-file FILE lists them all)'}.`)
  if (outcome.status === 'interrupted') io.info(`Interrupted. Run the same command again to resume (journal: ${outcome.journal}).`)
  else if (outcome.sent === 0 && outcome.file.valid > 0) io.info('Nothing to send: every row was done by an earlier run of this import.')
  await renderRecord(io, {...outcome.summary})
  if (outcome.status === 'interrupted') return EXIT.interrupted
  return outcome.summary.failed > 0 ? EXIT.failure : EXIT.ok
}

/** Every bad row by its line, as one usage error (exit 2): nothing was sent. */
function invalidFile(file: ValidatedFile, name: string): UsageError {
  const errors: Record<string, string[]> = {}
  for (const e of file.invalid) (errors[`line ${e.line}`] ??= []).push(e.reason)
  if (file.fatal) return new UsageError(`Cannot import ${name}: nothing was sent.`, {fieldErrors: errors, hint: 'Fix the file and run the command again.'})
  const n = file.invalidCount
  return new UsageError(`${n} invalid row${n === 1 ? '' : 's'} in ${name}; nothing was sent.`, {
    fieldErrors: errors,
    hint: 'Fix them, or pass --skip-invalid to import the other rows.',
  })
}
