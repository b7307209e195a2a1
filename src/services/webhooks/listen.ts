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
import {SANDBOX_EVENTS} from '../../sandbox/decisions.js'
import {isSandboxUrl} from '../../config/sandbox-state.js'
import {ensureProfile} from '../../config/config-store.js'
import {EVENT_TYPES} from '../../domain/schema.js'
import {CliError, UsageError} from '../../errors.js'
import {ListenError, startListener, type Listener, type ListenerEvent, type ListenerOptions, type Rejection} from '../../webhooks/listener.js'
import {TunnelError, TunnelNotInstalledError, type TunnelProvider} from '../../webhooks/tunnel/index.js'
import {firstProbe, startHeartbeat} from './listen-reachability.js'
import {ListenRun} from './listen-run.js'
import {openTunnel, restartTunnel} from './listen-tunnel.js'
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
  /** The signing secret's last 4 characters: what a person is shown of it, never the JSON line. */
  signing_secret_tail: string
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

/**
 * What a listener subscribes to when no event is named: every event the service sends. The local sandbox's are
 * known (src/sandbox/decisions.ts); of another service, the ones its specification names.
 */
export function defaultEvents(baseUrl: string, env: NodeJS.ProcessEnv): string[] {
  return isSandboxUrl(baseUrl, env) ? [...SANDBOX_EVENTS] : [...EVENT_TYPES]
}

export async function listen(options: ListenOptions): Promise<{end: ListenEnd; events: number}> {
  const {ctx} = options
  const baseUrl = await ctx.baseUrl()
  const events = options.events ?? defaultEvents(baseUrl, ctx.env)
  if (!options.publicUrl && !options.tunnel && !isSandboxUrl(baseUrl, ctx.env))
    throw new UsageError(`No public URL for ${baseUrl} to deliver to.`, {hint: NEEDS_PUBLIC_URL})
  if (options.publicUrl) checkEndpointInput({events, url: options.publicUrl}, baseUrl, ctx.env)
  const existing = (await listWebhooks(await ctx.client())).endpoints
  if (options.stop.aborted) return {end: 'stopped', events: 0}

  const run = new ListenRun(options, events)
  try {
    const listener = (run.listener = await startListenerOnPort(ctx, run.listenerOptions(), options.port))
    run.publicUrl = options.publicUrl ?? `${listener.localUrl}/`
    if (options.tunnel) {
      run.tunnel = await openTunnel(run)
      if (!run.tunnel) return run.finish(await run.ended)
      run.publicUrl = run.tunnel.publicUrl
    }
    const registered = await ensureListenEndpoint(ctx, existing, {events, url: run.publicUrl})
    run.secrets.unshift(registered.secret, ...registered.otherSecrets)
    run.endpointId = registered.endpoint.id
    const probed = await firstProbe(run)
    if (!('verified' in probed)) return run.finish(probed)
    options.onReady({
      endpoint_id: run.endpointId,
      events,
      forward_to: options.forwardTo ?? null,
      local_url: listener.localUrl,
      public_url: run.publicUrl,
      ready: true,
      reused: registered.reused,
      verified_reachable: probed.verified,
      ...(probed.reason ? {unreachable_reason: probed.reason} : {}),
      ...(options.printSecret ? {signing_secret: registered.secret} : {}),
      signing_secret_tail: registered.secret.slice(-4),
    })
    run.reachable = probed.verified !== false
    run.onTunnelExit = (message) => void restartTunnel(run, message)
    startHeartbeat(run)
    run.begin()
    return run.finish(await run.ended)
  } catch (error) {
    if (error instanceof TunnelNotInstalledError) throw new UsageError(error.message)
    if (error instanceof TunnelError) throw new CliError(error.message)
    throw error
  } finally {
    await run.close()
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
