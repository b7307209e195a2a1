/** Settings read from the environment that are shared by several layers. */
import {UsageError} from '../errors.js'

/**
 * The longest duration a timer can hold (setTimeout's 2^31-1 ms, about 24.8 days), in whole seconds: a longer one
 * would fire at once (Node warns and uses 1 ms), turning a deadline into an immediate failure.
 */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000)

/**
 * A duration in seconds from the environment variable `name`, in ms; undefined when it is unset or empty. A value
 * that is not a positive number, or longer than a timer holds, is exit 2 naming the variable, so that a typo never
 * turns a deadline off (nor makes every call fail at once).
 */
export function secondsFromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]
  if (raw === undefined || raw.trim() === '') return undefined
  const seconds = Number(raw)
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`${name} must be a positive number of seconds (got ${JSON.stringify(raw)}).`)
  if (seconds > MAX_TIMER_SECONDS)
    throw new UsageError(
      `${name} must be at most ${MAX_TIMER_SECONDS} seconds (about 24 days, the longest a timer holds; got ${JSON.stringify(raw)}).`,
    )
  return seconds * 1000
}
