/**
 * Whether the service can reach a `webhooks listen` run: a probe through the public URL before the ready line,
 * then a heartbeat probe every heartbeatSeconds; a failure is reported once, a later success as recovered.
 */
import {CliError} from '../../errors.js'
import {option, phrase} from '../../domain/phrase.js'
import type {ListenRun, Outcome} from './listen-run.js'

export const DEFAULT_HEARTBEAT_SECONDS = 30

/** The first probe: verified (or null without probes) and, when it failed, why; or how the run ended meanwhile. */
export async function firstProbe(run: ListenRun): Promise<{verified: boolean | null; reason?: string} | Outcome> {
  const {options} = run
  if (options.noProbe) return {verified: null}
  const result = await Promise.race([run.check(), run.ended])
  if (!('ok' in result)) return result
  if (result.ok) return {verified: true}
  const where = options.tunnel ? `the ${options.tunnel} tunnel's URL ${run.publicUrl}` : run.publicUrl
  const reason = `A probe through ${where} did not come back: ${result.message}.`
  if (options.exitOnUnreachable) throw new CliError(phrase`${reason} The service could not deliver here (${option('exitOnUnreachable')}).`)
  options.onWarning(phrase`${reason} Deliveries will likely not arrive; check the tunnel, or pass ${option('exitOnUnreachable')} to fail instead.`)
  return {reason, verified: false}
}

/** Probes every heartbeatSeconds until the run ends (none with noProbe or 0), pausing while the tunnel restarts. */
export function startHeartbeat(run: ListenRun): void {
  const {options} = run
  const seconds = options.noProbe ? 0 : (options.heartbeatSeconds ?? DEFAULT_HEARTBEAT_SECONDS)
  if (seconds <= 0) return
  void (async () => {
    while (!(await run.sleepUnlessEnded(seconds * 1000))) {
      if (run.restarting) continue
      const result = await run.check()
      if (run.stopped || run.restarting) continue
      if (!result.ok) run.lost('probe_failed', `A heartbeat probe through ${run.publicUrl} did not come back: ${result.message}.`)
      else if (!run.reachable) run.recovered({re_registered: false, verified_reachable: true})
    }
  })()
}
