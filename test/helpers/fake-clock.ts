/**
 * A clock for tests that never sleeps: `sleep` registers a timer, and `run(work)` advances time to the next
 * timer whenever every promise chain has settled and `work` is still waiting.
 */
import type {Clock} from '../../src/bulk/pacer.js'

interface Timer {
  at: number
  seq: number
  resolve: () => void
}

export class FakeClock implements Clock {
  private t: number
  private seq = 0
  private timers: Timer[] = []

  constructor(start = 0) {
    this.t = start
  }

  now = (): number => this.t

  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve()
      const timer: Timer = {at: this.t + Math.max(0, ms), resolve, seq: this.seq++}
      this.timers.push(timer)
      signal?.addEventListener(
        'abort',
        () => {
          this.timers = this.timers.filter((x) => x !== timer)
          resolve()
        },
        {once: true},
      )
    })

  async run<T>(work: Promise<T>): Promise<T> {
    let settled: {value: T} | {error: unknown} | undefined
    work.then(
      (value) => (settled = {value}),
      (error: unknown) => (settled = {error}),
    )
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve))
      if (settled) {
        if ('error' in settled) throw settled.error
        return settled.value
      }
      if (this.timers.length === 0) throw new Error('deadlock: the work waits and no timer is set')
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq)
      const next = this.timers.shift()!
      this.t = Math.max(this.t, next.at)
      next.resolve()
    }
  }
}
