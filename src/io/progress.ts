/**
 * A one-line progress bar on stderr (cli-progress), for bulk commands: records done (of the total when known),
 * rate, time left, and a note (e.g. a rate-limit pause). Drawn only where IOStreams.canAnimate() allows (stdin
 * and stderr TTYs, CI not set): elsewhere `createProgressBar` returns undefined and nothing is written.
 *
 * The caller pushes views (a few times a second is enough); cli-progress owns the terminal work: one line,
 * redrawn in place, cut to the terminal's width, throttled.
 */
import type {IOStreams} from './streams.js'
import {formatCount} from '../domain/text.js'

export interface ProgressView {
  done: number
  total?: number
  /** Records per second. */
  rate?: number
  /** Milliseconds left. */
  etaMs?: number
  note?: string
}

export interface ProgressBar {
  update(view: ProgressView): void
  /** Erases the bar (the caller prints its own summary). */
  stop(): void
}

const WIDTH = 24

/** `1h 02m`, `3m 05s`, `42s`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s >= 3600) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
  if (s >= 60) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`
  return `${s}s`
}

export function formatRate(rate: number): string {
  return rate >= 100 ? `${formatCount(Math.round(rate))}/s` : `${rate.toFixed(1)}/s`
}

/** The line, without colour: `Importing [======------] 120/300 | 41.2/s | 4s left | note`. */
export function progressLine(label: string, view: ProgressView): string {
  const parts: string[] = []
  const {done, total} = view
  if (total !== undefined && total > 0) {
    const filled = Math.min(WIDTH, Math.round((done / total) * WIDTH))
    parts.push(`${label} [${'='.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${formatCount(done)}/${formatCount(total)}`)
  } else parts.push(`${label} ${formatCount(done)}${total === 0 ? '/0' : ''}`)
  if (view.rate !== undefined) parts.push(formatRate(view.rate))
  if (view.etaMs !== undefined && total !== undefined && done < total) parts.push(`${formatDuration(view.etaMs)} left`)
  if (view.note) parts.push(view.note)
  return parts.join(' | ')
}

export async function createProgressBar(io: IOStreams, label: string): Promise<ProgressBar | undefined> {
  if (!io.canAnimate()) return undefined
  const {SingleBar} = (await import('cli-progress')).default
  let view: ProgressView = {done: 0}
  const bar = new SingleBar({
    clearOnComplete: true,
    format: () => progressLine(io.chalk.cyan(label), view),
    fps: 8,
    hideCursor: false,
    linewrap: false,
    stream: io.stderr,
  })
  // Started by the first view, so that creating a bar early draws nothing until there is progress to show.
  let started = false
  let stopped = false
  const status = {clear: () => io.stderr.write('\r\u001B[2K'), stop: () => handle.stop()}
  const handle: ProgressBar = {
    stop() {
      if (stopped) return
      stopped = true
      if (!started) return
      bar.stop()
      io.setStatus(undefined)
    },
    update(next) {
      if (stopped) return
      view = next
      if (!started) {
        started = true
        io.setStatus(status)
        bar.start(0, next.done)
        return
      }
      // The value only tells cli-progress that something changed; the line comes from `format`.
      bar.update(next.done)
    },
  }
  return handle
}
