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
import {EVENT_TYPES} from '../../domain/schema.js'
import {CliError, UsageError} from '../../errors.js'
import {defaultInboxPath, Inbox} from '../../webhooks/inbox.js'
import {ListenError, startListener, type Listener, type ListenerEvent, type Rejection} from '../../webhooks/listener.js'
import {startTunnel, TunnelError, TunnelNotInstalledError, type Tunnel, type TunnelProvider} from '../../webhooks/tunnel/index.js'
import {checkEndpointInput, ensureListenEndpoint, listWebhooks, type WebhookContext} from './endpoints.js'

export interface ListenReady {
  ready: true
  local_url: string
  public_url: string
  endpoint_id: string
  /** An endpoint registered earlier for this URL was reused (the service cannot delete endpoints). */
  reused: boolean
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
  onRejected(rejection: Rejection): void
  onIgnored(event: {id: string; type: string}): void
  /** Something the user should know, for stderr (an inbox write that failed). */
  onWarning(text: string): void
  /** Each line the tunnel binary prints (for --debug). */
  onTunnelLog?: (line: string) => void
}

export type ListenEnd = 'stopped' | 'max_events' | 'timeout'

export const NEEDS_PUBLIC_URL =
  'The service must reach this listener at a public HTTPS URL: pass --public-url URL (a tunnel you already run) or --tunnel cloudflared|ngrok. Only the local sandbox can deliver to 127.0.0.1.'

/** A http(s) URL for --forward-to (exit 2 otherwise). */
export function checkForwardUrl(value: string, flag = '--forward-to'): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(`${flag}: ${JSON.stringify(value)} is not a valid URL.`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${flag} must be an http:// or https:// URL (got ${JSON.stringify(value)}).`)
  return value
}

export async function listen(options: ListenOptions): Promise<{end: ListenEnd; events: number}> {
  const {ctx} = options
  const events = options.events ?? [...EVENT_TYPES]
  const baseUrl = await ctx.baseUrl()
  if (!options.publicUrl && !options.tunnel && !isSandboxUrl(baseUrl, ctx.env)) throw new UsageError(`No public URL for ${baseUrl} to deliver to.`, {hint: NEEDS_PUBLIC_URL})
  if (options.publicUrl) checkEndpointInput({events, url: options.publicUrl}, baseUrl, ctx.env)
  const existing = (await listWebhooks(await ctx.client())).endpoints

  // Everything that ends the run settles `ended`; the first one wins.
  let settle!: (outcome: {end: ListenEnd} | {error: CliError}) => void
  const ended = new Promise<{end: ListenEnd} | {error: CliError}>((resolve) => (settle = resolve))
  const onStop = () => settle({end: 'stopped'})
  if (options.stop.aborted) return {end: 'stopped', events: 0}
  options.stop.addEventListener('abort', onStop, {once: true})

  let secret: string | undefined
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
    listener = await startListener({
      events,
      forwardConcurrency: options.forwardConcurrency,
      forwardTo: options.forwardTo,
      ...(options.forwardTimeoutSeconds === undefined ? {} : {forwardTimeoutMs: Math.round(options.forwardTimeoutSeconds * 1000)}),
      inbox: new Inbox({path: defaultInboxPath(ctx.env)}),
      onEvent: report,
      onIgnored: options.onIgnored,
      onInboxError: (error) => options.onWarning(`a delivery could not be recorded in the inbox: ${error.message}`),
      onRejected: options.onRejected,
      port: options.port,
      // Known once the endpoint is registered, which needs the port; until then nothing verifies.
      secrets: () => (secret === undefined ? [] : [secret]),
      skipVerify: options.skipVerify,
    }).catch((error: unknown) => {
      if (error instanceof ListenError)
        throw error.code === 'EADDRINUSE' ? new UsageError(`${error.message}.`, {hint: 'Choose another --port, or leave it out to use a free one.'}) : new CliError(error.message)
      throw error
    })

    let publicUrl = options.publicUrl ?? `${listener.localUrl}/`
    if (options.tunnel) {
      const starting = startTunnel(options.tunnel, {env: ctx.env, onLog: options.onTunnelLog, port: listener.port})
      const first = await Promise.race([starting, ended])
      if (!('publicUrl' in first)) {
        // Stopped (or failed) while the tunnel was starting: stop it as soon as it is up.
        void starting.then((t) => t.stop(), () => {})
        return finish(first)
      }
      tunnel = first
      tunnel.onExit((exit) =>
        settle({error: new CliError(`The ${options.tunnel} tunnel stopped, so the service can no longer reach this listener: ${exit.message}`)}),
      )
      publicUrl = tunnel.publicUrl
    }

    const registered = await ensureListenEndpoint(ctx, existing, {events, url: publicUrl})
    secret = registered.secret
    options.onReady({
      endpoint_id: registered.endpoint.id,
      events,
      forward_to: options.forwardTo ?? null,
      local_url: listener.localUrl,
      public_url: publicUrl,
      ready: true,
      reused: registered.reused,
      ...(options.printSecret ? {signing_secret: secret} : {}),
    })
    ready = true
    for (const event of early.splice(0)) report(event)
    if (options.timeoutSeconds !== undefined) {
      const seconds = options.timeoutSeconds
      // With --max-events, fewer than N is a failure; with --timeout alone, no event at all is.
      timer = setTimeout(() => {
        if (options.maxEvents === undefined && count > 0) return settle({end: 'timeout'})
        const got = options.maxEvents === undefined ? 'no event arrived' : `${count} of ${options.maxEvents} events arrived`
        settle({error: new CliError(`Timed out: ${got} within --timeout ${seconds} s.`)})
      }, seconds * 1000)
    }
    return finish(await ended)
  } catch (error) {
    if (error instanceof TunnelNotInstalledError) throw new UsageError(error.message)
    if (error instanceof TunnelError) throw new CliError(error.message)
    throw error
  } finally {
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
