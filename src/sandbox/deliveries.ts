/**
 * Webhook deliveries: one job per (event, endpoint), attempted at once and retried after each failure per
 * the schedule, in the background (request handling never waits for a receiver). Every attempt is logged.
 * `close()` drops scheduled retries and aborts attempts in flight, logging them as `abandoned`.
 */
import http from 'node:http'
import https from 'node:https'

import {signPayload, type WebhookEvent} from '../domain/signature.js'
import type {WebhookRecord} from './record-store.js'
import {monotonicMs} from '../domain/clock.js'

export type DeliveryOutcome = 'abandoned' | 'delivered' | 'failed' | 'retrying'

export interface DeliveryAttempt {
  event_id: string
  event_type: string
  endpoint_id: string
  url: string
  attempt: number
  /** The receiver's HTTP status, or null when there was none (network error, timeout, abandoned). */
  status: number | null
  error: string | null
  outcome: DeliveryOutcome
  /** When the attempt started (injected clock). */
  at: string
  duration_ms: number
  /** Delay before the next attempt when `outcome` is `retrying`. */
  next_attempt_in_ms: number | null
}

export interface DeliveryOptions {
  now: () => number
  retryDelaysMs: readonly number[]
  timeoutMs: number
  logLimit: number
  userAgent: string
  /** An endpoint refusing connections this long (injected clock) gets no more retries: its deliveries are abandoned. */
  abandonRefusedMs: number
}

interface Job {
  event: WebhookEvent
  body: string
  endpoint: WebhookRecord
  attempt: number
  timer?: NodeJS.Timeout
  abort?: AbortController
}

export class Deliveries {
  private readonly jobs = new Set<Job>()
  private readonly log: DeliveryAttempt[] = []
  private waiters: Array<() => void> = []
  private closed = false
  /** Endpoint id -> when its current run of refused connections began. */
  private readonly refusedSince = new Map<string, number>()

  constructor(private readonly opts: DeliveryOptions) {}

  /** Starts delivering `event` to each endpoint; returns at once. */
  send(event: WebhookEvent, endpoints: readonly WebhookRecord[]): void {
    if (this.closed) return
    const body = JSON.stringify(event)
    for (const endpoint of endpoints) {
      const job: Job = {attempt: 0, body, endpoint, event}
      this.jobs.add(job)
      this.schedule(job, 0)
    }
  }

  /** Attempts so far, oldest first (at most `logLimit`). */
  entries(): DeliveryAttempt[] {
    return [...this.log]
  }

  get pending(): number {
    return this.jobs.size
  }

  /** Resolves when no delivery is in flight or waiting for a retry. */
  settled(): Promise<void> {
    if (this.jobs.size === 0) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  close(): void {
    this.closed = true
    this.abandonAll('sandbox stopped')
  }

  /**
   * Drops every delivery waiting for a retry or in flight, logged as `abandoned` with `why`: the state they were
   * sent for was replaced (a reset, a snapshot restored), and its events must not reach a receiver afterwards.
   */
  abandonAll(why: string): void {
    for (const job of this.jobs) {
      clearTimeout(job.timer)
      job.abort?.abort()
      this.record(job, {duration_ms: 0, error: why, outcome: 'abandoned', status: null}, this.opts.now())
    }
    this.jobs.clear()
    this.wake()
  }

  private schedule(job: Job, delayMs: number): void {
    job.timer = setTimeout(() => this.attempt(job), delayMs)
    job.timer.unref()
  }

  private attempt(job: Job): void {
    job.attempt++
    const startedAt = this.opts.now()
    const started = monotonicMs()
    const url = new URL(job.endpoint.url)
    const abort = new AbortController()
    job.abort = abort
    let done = false
    const finish = (status: number | null, error: string | null, refused = false) => {
      if (done || !this.jobs.has(job)) return
      done = true
      job.abort = undefined
      const durationMs = Math.round(monotonicMs() - started)
      const ok = status !== null && status >= 200 && status < 300
      const gone = this.refusing(job.endpoint.id, refused, startedAt)
      const delay = ok || gone ? undefined : this.opts.retryDelaysMs[job.attempt - 1]
      const outcome: DeliveryOutcome = ok ? 'delivered' : gone ? 'abandoned' : delay === undefined ? 'failed' : 'retrying'
      const said = gone ? `${error}; refused for ${Math.round(this.opts.abandonRefusedMs / 60_000)} minutes: not retried` : error
      this.record(job, {duration_ms: durationMs, error: said, next_attempt_in_ms: delay ?? null, outcome, status}, startedAt)
      if (delay === undefined) {
        this.jobs.delete(job)
        this.wake()
      } else {
        this.schedule(job, delay)
      }
    }
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      agent: false,
      headers: {
        'content-length': Buffer.byteLength(job.body),
        'content-type': 'application/json',
        'user-agent': this.opts.userAgent,
        'x-service-event-id': job.event.id,
        'x-service-signature': signPayload(job.endpoint.signing_secret, job.body, Math.floor(startedAt / 1000)),
      },
      method: 'POST',
      signal: abort.signal,
      timeout: this.opts.timeoutMs,
    })
    request.on('response', (res) => {
      res.resume()
      finish(res.statusCode ?? null, res.statusCode && res.statusCode < 300 ? null : `HTTP ${res.statusCode}`)
    })
    request.on('timeout', () => request.destroy(new Error(`no response within ${this.opts.timeoutMs} ms`)))
    request.on('error', (err: NodeJS.ErrnoException) => finish(null, err.message, err.code === 'ECONNREFUSED'))
    request.end(job.body)
  }

  /**
   * Notes an attempt's refusal (or its end); true when the endpoint has refused every connection for
   * abandonRefusedMs: a listener that is gone, whose endpoint the service cannot delete.
   */
  private refusing(endpointId: string, refused: boolean, at: number): boolean {
    if (!refused) {
      this.refusedSince.delete(endpointId)
      return false
    }
    const since = this.refusedSince.get(endpointId) ?? at
    this.refusedSince.set(endpointId, since)
    return at - since >= this.opts.abandonRefusedMs
  }

  private record(
    job: Job,
    result: Pick<DeliveryAttempt, 'duration_ms' | 'error' | 'outcome' | 'status'> & {next_attempt_in_ms?: number | null},
    at: number,
  ): void {
    this.log.push({
      event_id: job.event.id,
      event_type: job.event.type,
      endpoint_id: job.endpoint.id,
      url: job.endpoint.url,
      attempt: job.attempt,
      at: new Date(at).toISOString(),
      ...result,
      next_attempt_in_ms: result.next_attempt_in_ms ?? null,
    })
    if (this.log.length > this.opts.logLimit) this.log.splice(0, this.log.length - this.opts.logLimit)
  }

  private wake(): void {
    if (this.jobs.size > 0) return
    const waiters = this.waiters
    this.waiters = []
    for (const w of waiters) w()
  }
}
