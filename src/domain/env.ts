/** Settings read from the environment that are shared by several layers. */
import {UsageError} from '../errors.js'

/**
 * A duration in seconds from the environment variable `name`, in ms; undefined when it is unset or empty. A value
 * that is not a positive number is exit 2 naming the variable, so that a typo never turns a deadline off.
 */
export function secondsFromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]
  if (raw === undefined || raw.trim() === '') return undefined
  const seconds = Number(raw)
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`${name} must be a positive number of seconds (got ${JSON.stringify(raw)}).`)
  return seconds * 1000
}
