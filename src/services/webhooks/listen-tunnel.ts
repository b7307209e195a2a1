/**
 * The tunnel of a `webhooks listen` run: started before the endpoint is registered, and restarted when it dies
 * after the ready line (with backoff; a new public URL is registered as a new endpoint, the service having no
 * operation to change one's URL).
 */
import {CliError} from '../../errors.js'
import {startTunnel, type Tunnel} from '../../webhooks/tunnel/index.js'
import {ensureListenEndpoint} from './endpoints.js'
import type {ListenRun} from './listen-run.js'

const RESTART_DELAYS_MS = [1000, 2000, 4000, 8000, 16_000]

/** Starts the tunnel; undefined when the run ended meanwhile (the tunnel is then stopped once up). */
export async function openTunnel(run: ListenRun): Promise<Tunnel | undefined> {
  const {options} = run
  const starting = startTunnel(options.tunnel!, {env: options.ctx.env, onLog: options.onTunnelLog, port: run.listener!.port})
  const first = await Promise.race([starting, run.ended])
  if (!('publicUrl' in first)) {
    void starting.then(
      (t) => t.stop(),
      () => {},
    )
    return undefined
  }
  first.onExit((exit) => run.onTunnelExit(exit.message))
  return first
}

/** After the ready line: a tunnel that dies is restarted, up to the attempts of restartDelaysMs, then exit 1. */
export async function restartTunnel(run: ListenRun, exitMessage: string): Promise<void> {
  const {options} = run
  if (run.stopped) return
  const message = run.tunnelStopped(exitMessage)
  if (options.exitOnUnreachable) return run.settle({error: new CliError(message)})
  run.lost('tunnel_exited', message)
  run.restarting = true
  const delays = options.restartDelaysMs ?? RESTART_DELAYS_MS
  for (const [attempt, delay] of delays.entries()) {
    if (await run.sleepUnlessEnded(delay)) return
    let next: Tunnel | undefined
    try {
      next = await openTunnel(run)
    } catch (error) {
      options.onWarning(`restarting the ${options.tunnel} tunnel failed (attempt ${attempt + 1} of ${delays.length}): ${(error as Error).message}`)
      continue
    }
    if (!next) return
    run.tunnel = next
    const changed = next.publicUrl !== run.publicUrl
    run.publicUrl = next.publicUrl
    let reRegistered = false
    if (changed) {
      try {
        reRegistered = await register(run)
      } catch (error) {
        options.onWarning(`the tunnel is back at ${run.publicUrl}, but registering it failed: ${(error as Error).message}`)
        continue
      }
    }
    const result = options.noProbe ? undefined : await run.check()
    run.restarting = false
    if (result && !result.ok) {
      run.reachable = false
      run.lost('probe_failed', `The restarted ${options.tunnel} tunnel does not reach this listener: ${result.message}.`)
    } else run.recovered({re_registered: reRegistered, verified_reachable: result ? true : null})
    return
  }
  run.restarting = false
  run.lost('tunnel_restart_failed', `The ${options.tunnel} tunnel could not be restarted after ${delays.length} attempts.`)
  run.settle({
    error: new CliError(
      `The ${options.tunnel} tunnel could not be restarted after ${delays.length} attempts; the service cannot reach this listener.`,
    ),
  })
}

/** The new public URL as an endpoint, whose secret joins the others; true when one was created. */
async function register(run: ListenRun): Promise<boolean> {
  const fresh = await ensureListenEndpoint(run.options.ctx, [], {events: run.events, url: run.publicUrl})
  run.secrets.unshift(fresh.secret)
  run.endpointId = fresh.endpoint.id
  return !fresh.reused
}
