/**
 * The one status line of a request, for a person at a terminal (ClientOptions.onWait draws it; a command without
 * a terminal, or a bulk command with its own progress bar, draws nothing): shown once the request has taken a
 * second, naming it; at once when it is retried after a 5xx or a dropped connection, saying so; and counting down
 * a 429's wait.
 */
import {monotonicMs} from '../domain/clock.js'

export const SLOW_REQUEST_MS = 1000

export type ShowStatus = (status: () => string) => () => void

export class RequestStatus {
  private note?: () => string
  private stop?: () => void
  private readonly timer?: NodeJS.Timeout
  private readonly started = monotonicMs()

  constructor(
    private readonly show: ShowStatus | undefined,
    /** `POST /api/v2/orders`, or what the request is for (`The token request`). */
    private readonly label: string,
  ) {
    if (!show) return
    this.timer = setTimeout(() => this.open(), SLOW_REQUEST_MS)
    this.timer.unref()
  }

  /** A retry after `why` (`HTTP 503`, `network error (connection reset)`): said at once. */
  retrying(why: string, retry: number, of: number): void {
    this.note = () => `${this.label}: ${why}; retrying (retry ${retry} of ${of})`
    this.open()
  }

  /** A wait with its own words (a 429's countdown), until the returned function is called. */
  waiting(status: () => string): () => void {
    this.note = status
    this.open()
    return () => (this.note = undefined)
  }

  /** The request is over: the line goes. */
  done(): void {
    clearTimeout(this.timer)
    this.stop?.()
  }

  private open(): void {
    if (!this.show || this.stop) return
    this.stop = this.show(() => this.note?.() ?? `${this.label}… ${Math.floor((monotonicMs() - this.started) / 1000)} s`)
  }
}
