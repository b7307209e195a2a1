/**
 * One run of `webhooks listen` (listen.ts): what ends it (the stop signal, `maxEvents`, the timeout, a fatal
 * error: the first wins), the sleeps that end with it, the events counted once the ready line is out, and what
 * the parts (listen-tunnel.ts, listen-reachability.ts) share: the public URL, the endpoint and its secrets.
 */
import {CliError} from '../../errors.js'
import {option, phrase} from '../../domain/phrase.js'
import {defaultInboxPath, Inbox, inboxBoundsFromEnv} from '../../webhooks/inbox.js'
import type {Listener, ListenerEvent, ListenerOptions} from '../../webhooks/listener.js'
import {probe, ProbeNonces, type ProbeResult} from '../../webhooks/probe.js'
import type {Tunnel} from '../../webhooks/tunnel/index.js'
import type {ListenEnd, ListenOptions, ReachabilityChange} from './listen.js'

export type Outcome = {end: ListenEnd} | {error: CliError}

export class ListenRun {
  /** Settled by everything that ends the run; the first one wins. */
  readonly ended: Promise<Outcome>
  settle!: (outcome: Outcome) => void
  /** Set once the run ends: heartbeats and tunnel restarts stop; their sleeps end at once. */
  stopped = false
  private readonly sleepers = new Set<() => void>()
  /** Verified events reported; those before the ready line wait in `early`. */
  count = 0
  ready = false
  private readonly early: ListenerEvent[] = []
  /**
   * Every secret of an endpoint this run registered or reused: after a re-registration, deliveries signed for
   * the earlier endpoint still verify.
   */
  readonly secrets: string[] = []
  readonly probes = new ProbeNonces()
  private readonly probeTimeoutMs?: number
  listener?: Listener
  tunnel?: Tunnel
  publicUrl = ''
  endpointId = ''
  /** Reachability once ready: one state, changed by heartbeats and by the tunnel's death and restart. */
  reachable = true
  /** A tunnel restart is under way (heartbeats wait for it). */
  restarting = false
  /** Before the ready line a tunnel that dies ends the run; after it, listen-tunnel.ts restarts it. */
  onTunnelExit: (message: string) => void
  private timer?: NodeJS.Timeout
  private readonly onStop = () => this.settle({end: 'stopped'})

  constructor(
    readonly options: ListenOptions,
    readonly events: string[],
  ) {
    this.ended = new Promise<Outcome>((resolve) => (this.settle = resolve))
    void this.ended.then(() => this.wake())
    const envTimeout = Number(options.ctx.env.COMMERCE_WEBHOOK_PROBE_TIMEOUT) * 1000
    this.probeTimeoutMs = options.probeTimeoutMs ?? (envTimeout > 0 ? envTimeout : undefined)
    this.onTunnelExit = (message) => this.settle({error: new CliError(this.tunnelStopped(message))})
    options.stop.addEventListener('abort', this.onStop, {once: true})
  }

  tunnelStopped(message: string): string {
    return `The ${this.options.tunnel} tunnel stopped, so the service can no longer reach this listener: ${message}`
  }

  /** What the listener is started with: it reports here, records in the inbox, verifies with the run's secrets. */
  listenerOptions(): ListenerOptions {
    const {options} = this
    return {
      events: this.events,
      forwardConcurrency: options.forwardConcurrency,
      forwardTo: options.forwardTo,
      ...(options.forwardTimeoutSeconds === undefined ? {} : {forwardTimeoutMs: Math.round(options.forwardTimeoutSeconds * 1000)}),
      inbox: new Inbox({path: defaultInboxPath(options.ctx.env), ...inboxBoundsFromEnv(options.ctx.env)}),
      onEvent: (event) => this.report(event),
      onIgnored: options.onIgnored,
      onInboxError: (error) => options.onWarning(`a delivery could not be recorded in the inbox: ${error.message}`),
      onRejected: options.onRejected,
      probes: this.probes,
      // Known once the endpoint is registered, which needs the port; until then nothing verifies.
      secrets: () => this.secrets,
      skipVerify: options.skipVerify,
    }
  }

  /** A probe through the public URL in effect. */
  check(): Promise<ProbeResult> {
    return probe(this.publicUrl, this.probes, {timeoutMs: this.probeTimeoutMs})
  }

  private report(event: ListenerEvent): void {
    if (!this.ready) return void this.early.push(event)
    this.count += 1
    this.options.onEvent(event)
    if (this.options.maxEvents !== undefined && this.count >= this.options.maxEvents) this.settle({end: 'max_events'})
  }

  /** After the ready line: the events that came before it, then the timeout's clock starts. */
  begin(): void {
    this.ready = true
    for (const event of this.early.splice(0)) this.report(event)
    const {maxEvents, timeoutSeconds} = this.options
    if (timeoutSeconds === undefined) return
    // With maxEvents, fewer than N is a failure; with the timeout alone, no event at all is.
    this.timer = setTimeout(() => {
      if (maxEvents === undefined && this.count > 0) return this.settle({end: 'timeout'})
      const got = maxEvents === undefined ? 'no event arrived' : `${this.count} of ${maxEvents} events arrived`
      this.settle({error: new CliError(phrase`Timed out: ${got} within ${option('timeoutSeconds')} ${timeoutSeconds} s.`)})
    }, timeoutSeconds * 1000)
  }

  /** Reports a change of reachability (exit 1 instead with exitOnUnreachable). */
  lost(why: Extract<ReachabilityChange, {event: 'unreachable'}>['reason'], message: string): void {
    if (this.options.exitOnUnreachable) return this.settle({error: new CliError(phrase`${message} (${option('exitOnUnreachable')}).`)})
    if (!this.reachable && why === 'probe_failed') return
    this.reachable = false
    this.options.onReachability?.({at: new Date().toISOString(), event: 'unreachable', message, reason: why})
  }

  recovered(change: {re_registered: boolean; verified_reachable: boolean | null}): void {
    this.reachable = true
    this.options.onReachability?.({
      at: new Date().toISOString(),
      endpoint_id: this.endpointId,
      event: 'recovered',
      public_url: this.publicUrl,
      ...change,
    })
  }

  /** Waits `ms`; resolves true when the run ended meanwhile (or had already). */
  sleepUnlessEnded(ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      if (this.stopped) return resolve(true)
      const wake = () => {
        clearTimeout(timeout)
        this.sleepers.delete(wake)
        resolve(this.stopped)
      }
      const timeout = setTimeout(wake, ms)
      this.sleepers.add(wake)
    })
  }

  private wake(): void {
    this.stopped = true
    for (const wake of this.sleepers) wake()
  }

  finish(outcome: Outcome): {end: ListenEnd; events: number} {
    if ('error' in outcome) throw outcome.error
    return {end: outcome.end, events: this.count}
  }

  /** Always, however the run ends: the listener closed (in-flight deliveries first), the tunnel stopped. */
  async close(): Promise<void> {
    this.wake()
    clearTimeout(this.timer)
    this.options.stop.removeEventListener('abort', this.onStop)
    await this.listener?.close()
    await this.tunnel?.stop()
  }
}
