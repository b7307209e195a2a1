/**
 * Sends the valid rows of an import with bounded concurrency, recording each row in the journal.
 *
 * - A row the journal has as done is not sent again; a failed one is.
 * - `send` answers a row's outcome (created/updated/skipped/failed: a failure of that row, e.g. a 422). When
 *   it throws instead (network error, 5xx, 401, 429 beyond the retries: the service, not the row), the runner
 *   stops taking rows, lets those in flight finish and be journaled, and rethrows the first error. The row that
 *   threw keeps its `started` entry, so the next run treats it as in doubt.
 * - `signal` (Ctrl-C): the same, without an error; the result says `interrupted`.
 */
import type {Counts, Journal, RowOutcome} from './journal.js'

export interface ImportSummary extends Counts {
  invalid: number
  /** Rows an earlier run of this import had done (created, updated or skipped): not sent again now. */
  already_done: number
}

export interface ImportResult extends Counts {
  invalid: number
  /** Requests sent in this run (rows the journal had as done are not). */
  sent: number
  interrupted: boolean
}

export interface SendContext {
  /** The row was sent before (epoch ms of the first send) and its outcome never recorded (a crash mid-request). */
  inDoubtSince?: number
}

export interface RowProgress {
  line: number
  outcome: RowOutcome
  /** The outcome comes from the journal of an earlier run: nothing was sent for it now. */
  resumed: boolean
}

export interface SendRowsOptions<R extends {line: number}> {
  rows: AsyncIterable<R>
  send: (row: R, context: SendContext) => Promise<RowOutcome>
  journal: Journal
  /** Requests in flight at once; default 4. */
  concurrency?: number
  /** Invalid rows left out (--skip-invalid), reported in the summary. */
  invalid?: number
  signal?: AbortSignal
  /** After each row: sent now, or found done in the journal. */
  onProgress?: (event: RowProgress) => void
  /** After each row sent now (e.g. to write failed rows to --errors-file). */
  onOutcome?: (row: R, outcome: RowOutcome) => void
}

export const DEFAULT_CONCURRENCY = 4

export async function sendRows<R extends {line: number}>(options: SendRowsOptions<R>): Promise<ImportResult> {
  const {journal, signal} = options
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY)
  const inFlight = new Set<Promise<void>>()
  let failure: {error: unknown} | undefined
  let sent = 0
  let wake: (() => void) | undefined
  const onAbort = () => wake?.()
  signal?.addEventListener('abort', onAbort)

  const stopped = () => failure !== undefined || signal?.aborted === true

  async function handle(row: R): Promise<void> {
    const inDoubtSince = journal.inDoubtSince(row.line)
    try {
      journal.start(row.line)
      sent++
      const outcome = await options.send(row, inDoubtSince === undefined ? {} : {inDoubtSince})
      journal.finish(row.line, outcome)
      options.onOutcome?.(row, outcome)
      options.onProgress?.({line: row.line, outcome, resumed: false})
    } catch (error) {
      failure ??= {error}
    }
  }

  try {
    for await (const row of options.rows) {
      if (stopped()) break
      if (journal.isDone(row.line)) {
        options.onProgress?.({line: row.line, outcome: journal.outcome(row.line)!, resumed: true})
        continue
      }
      // Wait for a free slot, or for Ctrl-C.
      while (inFlight.size >= concurrency && !stopped()) {
        await Promise.race([...inFlight, new Promise<void>((resolve) => (wake = resolve))])
        wake = undefined
      }
      if (stopped()) break
      const task: Promise<void> = handle(row).finally(() => inFlight.delete(task))
      inFlight.add(task)
    }
  } finally {
    signal?.removeEventListener('abort', onAbort)
    await Promise.all(inFlight)
  }
  if (failure) throw failure.error
  return {...journal.counts(), interrupted: signal?.aborted === true, invalid: options.invalid ?? 0, sent}
}
