/**
 * `webhooks listen`: a local endpoint (src/webhooks/listener.ts) made reachable and registered.
 *
 * Order of work: check what can be checked without the network (exit 2), list the endpoints (which also
 * proves the credentials, exit 3, before anything is started), start the listener, start the tunnel if asked,
 * register the public URL (or reuse an endpoint for it whose secret the profile holds), report ready, then run
 * until stopped (the `stop` signal: Ctrl-C, SIGTERM), `maxEvents` verified deliveries, the timeout (exit 1 with
 * fewer than `maxEvents`; with no `maxEvents`, exit 1 only when no event came), or the tunnel's death (exit 1). The listener is always closed (in-flight deliveries finish first) and the tunnel
 * always stopped.
 */
import {isSandboxUrl} from '../../config/sandbox-state.js'
import {ensureProfile} from '../../config/store.js'
import {EVENT_TYPES} from '../../domain/schema.js'
import {CliError, UsageError} from '../../errors.js'
import {defaultInboxPath, Inbox} from '../../webhooks/inbox.js'
import {ListenError, startListener, type Listener, type ListenerEvent, type ListenerOptions, type Rejection} from '../../webhooks/listener.js'
import {probe, ProbeNonces} from '../../webhooks/probe.js'
import {startTunnel, TunnelError, TunnelNotInstalledError, type Tunnel, type TunnelProvider} from '../../webhooks/tunnel/index.js'
import {checkEndpointInput, ensureListenEndpoint, listWebhooks, type WebhookContext} from './endpoints.js'
import {option, phrase, type Text} from '../../domain/phrase.js'

/** What the listener reports (the command prints them), and the tunnels it can run. */
export type {ListenerEvent, Rejection} from '../../webhooks/listener.js'
export {TUNNEL_PROVIDERS} from '../../webhooks/tunnel/index.js'

export interface ListenReady {
  ready: true
  local_url: string
  public_url: string
  endpoint_id: string
  /** An endpoint registered earlier for this URL was reused (the service cannot delete endpoints). */
  reused: boolean
  /** The probe through the public URL came back (true), did not (false), or was not sent (--no-probe: null). */
  verified_reachable: boolean | null
  /** Why the probe did not come back, naming the hop (with verified_reachable false). */
  unreachable_reason?: string
  events: string[]
  forward_to: string | null
  /** Only with --print-secret. */
  signing_secret?: string
}

export interface ListenOptions {
  ctx: WebhookContext
  /** Event names, validated; every event the service names when omitted. */
  events?: string[]
  forwardTo?: string
  /** Seconds to wait for the receiver before answering the sender 504 (default 9, below the sender's 10). */
  forwardTimeoutSeconds?: number
  /** Forwards in flight at once (default 8); more wait in a bounded queue, then 503. */
  forwardConcurrency?: number
  port?: number
  publicUrl?: string
  tunnel?: TunnelProvider
  skipVerify?: boolean
  maxEvents?: number
  timeoutSeconds?: number
  printSecret?: boolean
  /** Aborted to stop (exit 0) once in-flight deliveries are answered. */
  stop: AbortSignal
  onReady(ready: ListenReady): void
  onEvent(event: ListenerEvent): void
  onRejected: (rejection: Rejection) => void
  onIgnored: (event: {id: string; type: string}) => void
  /** Something the user should know, for stderr (an inbox write that failed). */
  onWarning(text: Text): void
  /** Each line the tunnel binary prints (for --debug). */
  onTunnelLog?: (line: string) => void
  /** Skip the reachability probes (the ready line then says verified_reachable null). */
  noProbe?: boolean
  /** Seconds between probes once ready (default 30; 0: none). */
  heartbeatSeconds?: number
  /** A failed probe, a missed heartbeat or a tunnel that dies is exit 1, rather than a warning and a restart. */
  exitOnUnreachable?: boolean
  /** Each probe's deadline (default 10 s; COMMERCE_WEBHOOK_PROBE_TIMEOUT seconds in the environment). */
  probeTimeoutMs?: number
  /** Waits before each tunnel restart (default 1, 2, 4, 8, 16 s: five attempts, then exit 1). */
  restartDelaysMs?: readonly number[]
  /** The listener stopped being reachable (a missed heartbeat, the tunnel died), or is again. */
  onReachability?: (change: ReachabilityChange) => void
}

export type ReachabilityChange =
  | {event: 'unreachable'; reason: 'probe_failed' | 'tunnel_exited' | 'tunnel_restart_failed'; message: string; at: string}
  | {event: 'recovered'; public_url: string; endpoint_id: string; re_registered: boolean; verified_reachable: boolean | null; at: string}

export const DEFAULT_HEARTBEAT_SECONDS = 30
const RESTART_DELAYS_MS = [1000, 2000, 4000, 8000, 16_000]

export type ListenEnd = 'stopped' | 'max_events' | 'timeout'

export const NEEDS_PUBLIC_URL = phrase`The service must reach this listener at a public HTTPS URL: pass ${option('publicUrl')} URL (a tunnel you already run) or ${option('tunnel')} cloudflared|ngrok. Only the local sandbox can deliver to 127.0.0.1.`

/** A http(s) URL for --forward-to (exit 2 otherwise). */
export function checkForwardUrl(value: string, name = 'forwardTo'): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(phrase`${option(name)}: ${JSON.stringify(value)} is not a valid URL.`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(phrase`${option(name)} must be an http:// or https:// URL (got ${JSON.stringify(value)}).`)
  return value
}

export async function listen(options: ListenOptions): Promise<{end: ListenEnd; events: number}> {
  const {ctx} = options
  const events = options.events ?? [...EVENT_TYPES]
  const baseUrl = await ctx.baseUrl()
  if (!options.publicUrl && !options.tunnel && !isSandboxUrl(baseUrl, ctx.env))
    throw new UsageError(`No public URL for ${baseUrl} to deliver to.`, {hint: NEEDS_PUBLIC_URL})
  if (options.publicUrl) checkEndpointInput({events, url: options.publicUrl}, baseUrl, ctx.env)
  const existing = (await listWebhooks(await ctx.client())).endpoints

  // Everything that ends the run settles `ended`; the first one wins.
  let settle!: (outcome: {end: ListenEnd} | {error: CliError}) => void
  const ended = new Promise<{end: ListenEnd} | {error: CliError}>((resolve) => (settle = resolve))
  const onStop = () => settle({end: 'stopped'})
  // Set once the run ends: heartbeats and tunnel restarts stop; their sleeps end at once.
  let stopped = false
  const sleepers = new Set<() => void>()
  const wakeSleepers = () => {
    for (const wake of sleepers) wake()
  }
  void ended.then(() => {
    stopped = true
    wakeSleepers()
  })
  /** Waits `ms`; resolves true when the run ended meanwhile (or had already). */
  const sleepUnlessEnded = (ms: number) =>
    new Promise<boolean>((resolve) => {
      if (stopped) return resolve(true)
      const wake = () => {
        clearTimeout(timeout)
        sleepers.delete(wake)
        resolve(stopped)
      }
      const timeout = setTimeout(wake, ms)
      sleepers.add(wake)
    })
  if (options.stop.aborted) return {end: 'stopped', events: 0}
  options.stop.addEventListener('abort', onStop, {once: true})

  // Every secret of an endpoint this run registered or reused: after a re-registration, deliveries signed for
  // the earlier endpoint still verify.
  const secrets: string[] = []
  const probes = new ProbeNonces()
  const envTimeout = Number(ctx.env.COMMERCE_WEBHOOK_PROBE_TIMEOUT) * 1000
  const probeTimeoutMs = options.probeTimeoutMs ?? (envTimeout > 0 ? envTimeout : undefined)
  let ready = false
  let count = 0
  const early: ListenerEvent[] = []
  const report = (event: ListenerEvent) => {
    if (!ready) return void early.push(event)
    count += 1
    options.onEvent(event)
    if (options.maxEvents !== undefined && count >= options.maxEvents) settle({end: 'max_events'})
  }

  let listener: Listener | undefined
  let tunnel: Tunnel | undefined
  let timer: NodeJS.Timeout | undefined
  try {
    const listenerOptions: ListenerOptions = {
      events,
      forwardConcurrency: options.forwardConcurrency,
      forwardTo: options.forwardTo,
      ...(options.forwardTimeoutSeconds === undefined ? {} : {forwardTimeoutMs: Math.round(options.forwardTimeoutSeconds * 1000)}),
      inbox: new Inbox({path: defaultInboxPath(ctx.env)}),
      onEvent: report,
      onIgnored: options.onIgnored,
      onInboxError: (error) => options.onWarning(`a delivery could not be recorded in the inbox: ${error.message}`),
      onRejected: options.onRejected,
      probes,
      // Known once the endpoint is registered, which needs the port; until then nothing verifies.
      secrets: () => secrets,
      skipVerify: options.skipVerify,
    }
    listener = await startListenerOnPort(ctx, listenerOptions, options.port)

    const port = listener.port
    // Before the ready line a tunnel that dies ends the run; after it, it is restarted (tunnelDied, below).
    let onTunnelExit = (message: string) =>
      settle({error: new CliError(`The ${options.tunnel} tunnel stopped, so the service can no longer reach this listener: ${message}`)})
    let publicUrl = options.publicUrl ?? `${listener.localUrl}/`
    /** Starts the tunnel; undefined when the run ended meanwhile (the tunnel is then stopped once up). */
    const openTunnel = async (): Promise<Tunnel | undefined> => {
      const starting = startTunnel(options.tunnel!, {env: ctx.env, onLog: options.onTunnelLog, port})
      const first = await Promise.race([starting, ended])
      if (!('publicUrl' in first)) {
        void starting.then(
          (t) => t.stop(),
          () => {},
        )
        return undefined
      }
      first.onExit((exit) => onTunnelExit(exit.message))
      return first
    }
    if (options.tunnel) {
      tunnel = await openTunnel()
      if (!tunnel) return finish(await ended)
      publicUrl = tunnel.publicUrl
    }

    const registered = await ensureListenEndpoint(ctx, existing, {events, url: publicUrl})
    secrets.unshift(registered.secret)
    let endpointId = registered.endpoint.id
    const where = options.tunnel ? `the ${options.tunnel} tunnel's URL ${publicUrl}` : publicUrl
    const check = () => probe(publicUrl, probes, {timeoutMs: probeTimeoutMs})
    let verified: boolean | null = null
    let reason: string | undefined
    if (!options.noProbe) {
      const result = await Promise.race([check(), ended])
      if (!('ok' in result)) return finish(result)
      verified = result.ok
      if (!result.ok) {
        reason = `A probe through ${where} did not come back: ${result.message}.`
        if (options.exitOnUnreachable) throw new CliError(phrase`${reason} The service could not deliver here (${option('exitOnUnreachable')}).`)
        options.onWarning(
          phrase`${reason} Deliveries will likely not arrive; check the tunnel, or pass ${option('exitOnUnreachable')} to fail instead.`,
        )
      }
    }
    options.onReady({
      endpoint_id: endpointId,
      events,
      forward_to: options.forwardTo ?? null,
      local_url: listener.localUrl,
      public_url: publicUrl,
      ready: true,
      reused: registered.reused,
      verified_reachable: verified,
      ...(reason ? {unreachable_reason: reason} : {}),
      ...(options.printSecret ? {signing_secret: registered.secret} : {}),
    })
    ready = true

    // Reachability from now on: one state, changed by heartbeats and by the tunnel's death and restart.
    let reachable = verified !== false
    const at = () => new Date().toISOString()
    const lost = (why: 'probe_failed' | 'tunnel_exited' | 'tunnel_restart_failed', message: string) => {
      if (options.exitOnUnreachable) return settle({error: new CliError(phrase`${message} (${option('exitOnUnreachable')}).`)})
      if (!reachable && why === 'probe_failed') return
      reachable = false
      options.onReachability?.({at: at(), event: 'unreachable', message, reason: why})
    }
    let restarting = false
    const tunnelDied = async (exitMessage: string) => {
      if (stopped) return
      const message = `The ${options.tunnel} tunnel stopped, so the service can no longer reach this listener: ${exitMessage}`
      if (options.exitOnUnreachable) return settle({error: new CliError(message)})
      lost('tunnel_exited', message)
      restarting = true
      const delays = options.restartDelaysMs ?? RESTART_DELAYS_MS
      for (const [attempt, delay] of delays.entries()) {
        if (await sleepUnlessEnded(delay)) return
        let next: Tunnel | undefined
        try {
          next = await openTunnel()
        } catch (error) {
          options.onWarning(
            `restarting the ${options.tunnel} tunnel failed (attempt ${attempt + 1} of ${delays.length}): ${(error as Error).message}`,
          )
          continue
        }
        if (!next) return
        tunnel = next
        const changed = next.publicUrl !== publicUrl
        publicUrl = next.publicUrl
        let reRegistered = false
        if (changed) {
          // The service has no operation to change an endpoint's URL: a new one, whose secret joins the others.
          try {
            const fresh = await ensureListenEndpoint(ctx, [], {events, url: publicUrl})
            secrets.unshift(fresh.secret)
            endpointId = fresh.endpoint.id
            reRegistered = !fresh.reused
          } catch (error) {
            options.onWarning(`the tunnel is back at ${publicUrl}, but registering it failed: ${(error as Error).message}`)
            continue
          }
        }
        const result = options.noProbe ? undefined : await check()
        restarting = false
        reachable = result?.ok !== false
        if (result && !result.ok) lost('probe_failed', `The restarted ${options.tunnel} tunnel does not reach this listener: ${result.message}.`)
        else
          options.onReachability?.({
            at: at(),
            endpoint_id: endpointId,
            event: 'recovered',
            public_url: publicUrl,
            re_registered: reRegistered,
            verified_reachable: result ? true : null,
          })
        return
      }
      restarting = false
      lost('tunnel_restart_failed', `The ${options.tunnel} tunnel could not be restarted after ${delays.length} attempts.`)
      settle({
        error: new CliError(
          `The ${options.tunnel} tunnel could not be restarted after ${delays.length} attempts; the service cannot reach this listener.`,
        ),
      })
    }
    onTunnelExit = (message) => void tunnelDied(message)
    const heartbeat = options.noProbe ? 0 : (options.heartbeatSeconds ?? DEFAULT_HEARTBEAT_SECONDS)
    if (heartbeat > 0) {
      void (async () => {
        while (!(await sleepUnlessEnded(heartbeat * 1000))) {
          if (restarting) continue
          const result = await check()
          if (stopped || restarting) continue
          if (!result.ok) lost('probe_failed', `A heartbeat probe through ${publicUrl} did not come back: ${result.message}.`)
          else if (!reachable) {
            reachable = true
            options.onReachability?.({
              at: at(),
              endpoint_id: endpointId,
              event: 'recovered',
              public_url: publicUrl,
              re_registered: false,
              verified_reachable: true,
            })
          }
        }
      })()
    }
    for (const event of early.splice(0)) report(event)
    if (options.timeoutSeconds !== undefined) {
      const seconds = options.timeoutSeconds
      // With --max-events, fewer than N is a failure; with --timeout alone, no event at all is.
      timer = setTimeout(() => {
        if (options.maxEvents === undefined && count > 0) return settle({end: 'timeout'})
        const got = options.maxEvents === undefined ? 'no event arrived' : `${count} of ${options.maxEvents} events arrived`
        settle({error: new CliError(phrase`Timed out: ${got} within ${option('timeoutSeconds')} ${seconds} s.`)})
      }, seconds * 1000)
    }
    return finish(await ended)
  } catch (error) {
    if (error instanceof TunnelNotInstalledError) throw new UsageError(error.message)
    if (error instanceof TunnelError) throw new CliError(error.message)
    throw error
  } finally {
    stopped = true
    wakeSleepers()
    clearTimeout(timer)
    options.stop.removeEventListener('abort', onStop)
    await listener?.close()
    await tunnel?.stop()
  }

  function finish(outcome: {end: ListenEnd} | {error: CliError}): {end: ListenEnd; events: number} {
    if ('error' in outcome) throw outcome.error
    return {end: outcome.end, events: count}
  }
}

/**
 * Starts the listener on `port`, or without one on the port this profile's previous listen used, when it is free
 * (so that the loopback URL, and so the endpoint registered for it, stay the same run after run instead of one
 * more endpoint each time), else on a free one. The port used is remembered in the profile.
 */
async function startListenerOnPort(ctx: WebhookContext, options: ListenerOptions, port: number | undefined): Promise<Listener> {
  const refused = (error: unknown): never => {
    if (error instanceof ListenError)
      throw error.code === 'EADDRINUSE'
        ? new UsageError(`${error.message}.`, {hint: phrase`Choose another ${option('port')}, or leave it out to use a free one.`})
        : new CliError(error.message)
    throw error
  }
  if (port !== undefined) return startListener({...options, port}).catch(refused)
  const previous = Number((await ctx.profile())?.listen_port)
  let listener: Listener | undefined
  if (Number.isInteger(previous) && previous > 0 && previous < 65_536)
    listener = await startListener({...options, port: previous}).catch(() => undefined)
  listener ??= await startListener({...options, port: 0}).catch(refused)
  if (String(listener.port) !== String(previous)) {
    const name = await ctx.profileName()
    // Only a convenience: a config directory that cannot be written changes nothing else.
    await ctx.store.update((data) => void (ensureProfile(data, name).listen_port = String(listener.port))).catch(() => {})
  }
  return listener
}
