/**
 * How long and how much a local record of ours keeps (the webhook inbox, the history): an age (`12h`, `7d`, `4w`) and
 * a size (`64MB`, `1GB`, bytes; at least 1 MB), each from an environment variable, the defaults when unset. A value
 * of another form is exit 2 naming the variable.
 */
import {UsageError} from '../errors.js'
import {durationMs} from './window-grammar.js'

export interface Bounds {
  maxAgeMs: number
  maxBytes: number
}

const SIZE_UNITS: Record<string, number> = {'': 1, gb: 1024 ** 3, kb: 1024, mb: 1024 ** 2}

export function boundsFromEnv(env: NodeJS.ProcessEnv, variables: {age: string; size: string}, defaults: Bounds): Bounds {
  const [age, size] = [env[variables.age]?.trim(), env[variables.size]?.trim()]
  let {maxAgeMs, maxBytes} = defaults
  if (age) {
    const ms = durationMs(age)
    if (ms === undefined) throw new UsageError(`${variables.age} must be a duration such as 12h, 7d or 4w (got ${JSON.stringify(age)}).`)
    maxAgeMs = ms
  }
  if (size) {
    const m = /^(\d+)\s*(|kb|mb|gb)$/i.exec(size)
    if (!m || Number(m[1]) * SIZE_UNITS[m[2].toLowerCase()] < 1024 ** 2)
      throw new UsageError(`${variables.size} must be a size of at least 1MB, such as 64MB or 1GB (got ${JSON.stringify(size)}).`)
    maxBytes = Number(m[1]) * SIZE_UNITS[m[2].toLowerCase()]
  }
  return {maxAgeMs, maxBytes}
}
