/**
 * An export: page 1, then the other pages with bounded concurrency, written in order as they arrive (memory
 * holds a few pages); to stdout, or to a file through an exclusive temp file beside it (mode 0600, never through
 * a planted link; src/domain/files.ts) renamed at the end, so a failed or interrupted export leaves no partial
 * file (a `kill -9` can leave the `.NAME.PID.RANDOM.tmp` file behind). Ctrl-C: `signal`.
 */
import {stat} from 'node:fs/promises'
import {resolve} from 'node:path'
import {Writable} from 'node:stream'
import {finished} from 'node:stream/promises'

import type {ApiRequest} from '../api/client.js'
import {pages} from '../api/paginate.js'
import {EXPORT_PER_PAGE} from '../domain/bulk-formats.js'
import {withMoneyUnit} from '../domain/schema.js'
import {type AtomicFile, createAtomicFile, fileProblem} from '../domain/files.js'
import {CliError, interruptedBy, UsageError} from '../errors.js'
import {option, phrase, type Text} from '../domain/phrase.js'
import {type BulkProgress, type PacedClient, startTicker} from './paced.js'
import {fetchPagesInOrder} from './pages.js'
import {ProgressTracker} from './progress-tracker.js'
import {createRecordWriter, type RecordFormat} from './write.js'

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
  /** CSV: prefix cells a spreadsheet would run as formulas (`--escape-formulas`). */
  escapeFormulas?: boolean
  /** The unit of the service's amounts: every row that carries money says it (`money_unit`), as --json's records do. */
  moneyUnit?: string
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
  if ((await stat(final).catch(() => undefined))?.isDirectory())
    throw new UsageError(phrase`${option('output')} ${path} is a directory; name a file.`)
  const file = await openAtomic(final, phrase`${option('output')} ${path}`)
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
export async function openAtomic(path: string, what: Text): Promise<AtomicFile> {
  try {
    return await createAtomicFile(path)
  } catch (error) {
    throw new UsageError(phrase`Cannot write ${what}: ${fileProblem(error, path, 'write')}.`)
  }
}

/** A Writable over an AtomicFile, for the record writers (one write at a time, backpressure included). */
export function atomicStream(file: AtomicFile): Writable {
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
    const writer = createRecordWriter(options.format, target.stream, {columns: options.columns, escapeFormulas: options.escapeFormulas})
    const inOrder = fetchPagesInOrder<Record<string, unknown>>({
      concurrency: options.concurrency,
      async fetchPage(page, perPage) {
        for await (const fetched of pages<Record<string, unknown>>(client.client, request, {page, perPage})) return fetched
        throw new CliError('Unexpected response: no page of records.')
      },
      onTotal: (total) => tracker.setTotal(total),
      perPage: EXPORT_PER_PAGE,
    })
    pages: for await (const page of inOrder) {
      for (const record of page) {
        if (signal?.aborted) throw interruptedBy(signal.reason)
        if (target.closed()) break pages
        const wait = writer.write(options.moneyUnit === undefined ? record : withMoneyUnit(record, options.moneyUnit))
        if (wait) await waitOrClosed(wait, target)
        tracker.advance()
      }
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

/** A write's drain wait, ended (quietly) when the reader closed stdout. */
async function waitOrClosed(wait: Promise<void> | void, target: Target): Promise<void> {
  try {
    await wait
  } catch (error) {
    if (!target.closed() && (error as NodeJS.ErrnoException).code !== 'EPIPE') throw error
  }
}
