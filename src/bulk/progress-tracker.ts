/**
 * Progress of a bulk command: records done, total, rate and time left, on an injectable clock. The rate is
 * measured over the last `windowMs` (default 10 s) and counts only records processed now: rows an import finds
 * already done in its journal (`skip`) move `done` without inflating the rate.
 *
 * Rendering is the caller's: a reporter of its own (e.g. a cli-progress bar on a TTY, nothing on a pipe).
 */
export interface ProgressSnapshot {
  done: number
  total?: number
  /** Records per second over the recent window; undefined until measurable. */
  rate?: number
  /** Milliseconds left at the current rate; undefined when the total or the rate is unknown. */
  etaMs?: number
  elapsedMs: number
}

export class ProgressTracker {
  private done = 0
  private readonly started: number
  /** (time, records processed now) samples, oldest first, spanning about `windowMs`. */
  private samples: Array<{at: number; processed: number}>
  private processed = 0

  constructor(
    private total?: number,
    private readonly options: {now?: () => number; windowMs?: number} = {},
  ) {
    this.started = this.now()
    this.samples = [{at: this.started, processed: 0}]
  }

  private now(): number {
    return (this.options.now ?? Date.now)()
  }

  setTotal(total: number | undefined): void {
    this.total = total
  }

  /** Records processed now. */
  advance(n = 1): void {
    this.done += n
    this.processed += n
    const at = this.now()
    const windowMs = this.options.windowMs ?? 10_000
    const sample = {at, processed: this.processed}
    // Samples at least a tenth of a window apart keep the list short whatever the rate.
    if (this.samples.length > 1 && at - this.samples.at(-2)!.at < windowMs / 10) this.samples[this.samples.length - 1] = sample
    else this.samples.push(sample)
    while (this.samples.length > 2 && at - this.samples[1].at >= windowMs) this.samples.shift()
  }

  /** Records found already done (a resumed import). */
  skip(n = 1): void {
    this.done += n
  }

  snapshot(): ProgressSnapshot {
    const now = this.now()
    const oldest = this.samples[0]
    const span = now - oldest.at
    const rate = span > 0 && this.processed > 0 ? ((this.processed - oldest.processed) * 1000) / span : undefined
    const left = this.total === undefined ? undefined : Math.max(0, this.total - this.done)
    const etaMs = left === undefined ? undefined : left === 0 ? 0 : rate ? (left / rate) * 1000 : undefined
    return {done: this.done, elapsedMs: now - this.started, etaMs, rate, total: this.total}
  }
}
