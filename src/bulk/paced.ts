/**
 * The bulk engine's client side: one Pacer shared by every request of a bulk command (so that concurrent
 * requests learn and respect the service's limit together), waits that Ctrl-C ends (an AbortSignal in, never a
 * SIGINT handler here), and the progress ticker fed from a ProgressTracker and the pacer.
 */
import {ApiClient, type TokenSource} from '../api/client.js'
import {CliError, signalCode} from '../errors.js'
import {type Clock, Pacer} from './pacer.js'
import type {ProgressSnapshot, ProgressTracker} from './progress-tracker.js'

/** What a progress bar is shown (io/progress.ts draws it; nothing is drawn off a terminal). */
export interface BulkProgress {
  update(view: ProgressSnapshot & {note?: string}): void
  stop(): void
}

/** Ended by a signal: the reason of the interruption (the signal's name) gives the code and exit code (130, 143, 129). */
export class InterruptedError extends CliError {
  constructor(reason?: unknown) {
    super(`Interrupted by ${typeof reason === 'string' ? reason : 'SIGINT'}.`, {code: signalCode(reason)})
  }
}

/** A sleep that ends early without error on its own `signal`, and rejects with InterruptedError on `interrupt`. */
function interruptibleSleep(interrupt: AbortSignal | undefined) {
  return (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolvePromise, reject) => {
      if (interrupt?.aborted) return reject(new InterruptedError(interrupt.reason))
      if (signal?.aborted) return resolvePromise()
      const done = (error?: Error) => {
        clearTimeout(timer)
        interrupt?.removeEventListener('abort', onInterrupt)
        signal?.removeEventListener('abort', onAbort)
        if (error) reject(error)
        else resolvePromise()
      }
      const onInterrupt = () => done(new InterruptedError(interrupt?.reason))
      const onAbort = () => done()
      const timer = setTimeout(done, Math.max(0, ms))
      interrupt?.addEventListener('abort', onInterrupt, {once: true})
      signal?.addEventListener('abort', onAbort, {once: true})
    })
}

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
export function pacedClient(
  base: ApiClient,
  tokens: TokenSource,
  options: {expectedLimit?: number; signal?: AbortSignal; quietWaits?: boolean} = {},
): PacedClient {
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

export function startTicker(tracker: ProgressTracker, progress: BulkProgress, pacer: Pacer) {
  const tick = () => {
    const snapshot = tracker.snapshot()
    // More records than the first page announced (added meanwhile): the bar's total follows the count.
    const view = {...snapshot, total: snapshot.total === undefined ? undefined : Math.max(snapshot.total, snapshot.done)}
    const left = view.total === undefined ? undefined : Math.max(0, view.total - view.done)
    progress.update({...view, etaMs: left === undefined ? undefined : pacedEtaMs(pacer, left, view.etaMs), note: pauseNote(pacer)})
  }
  tick()
  const timer = setInterval(tick, 125)
  timer.unref()
  return {
    stop() {
      clearInterval(timer)
      tick() // the last frame shows the final count
      progress.stop()
    },
  }
}
