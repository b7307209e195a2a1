/** `sandbox logs`: the running sandbox's request log, filtered, once or followed. */
import {UsageError} from '../../errors.js'
import {control} from './control-client.js'
import type {LogEntry} from '../../domain/sandbox-control.js'
import {option, phrase} from '../../domain/phrase.js'

export type {LogEntry}

export interface LogFilter {
  /** e.g. `4xx`, `429`, `2xx,5xx`. */
  status?: string
  /** A glob on the path: `*` any run of characters, `?` one. */
  path?: string
}

/** A predicate for the filter; exit 2 on a malformed one. */
export function logMatcher(filter: LogFilter): (e: LogEntry) => boolean {
  const statuses = filter.status?.split(',').map((s) => s.trim().toLowerCase())
  for (const s of statuses ?? [])
    if (!/^[1-5](?:xx|\d\d)$/.test(s))
      throw new UsageError(phrase`${option('status')} ${JSON.stringify(s)} must be a status (429) or a class (4xx), comma-separated.`)
  const glob =
    filter.path === undefined
      ? undefined
      : new RegExp(
          `^${filter.path
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '.*')
            .replace(/\?/g, '.')}$`,
        )
  return (e) =>
    (statuses === undefined || statuses.some((s) => (s.endsWith('xx') ? String(e.status)[0] === s[0] : String(e.status) === s))) &&
    (glob === undefined || glob.test(e.path))
}

/** Entries after `after`, waiting up to `waitSeconds` for one; of the sandbox at `base` (default: the running one). */
export async function fetchLogs(env: NodeJS.ProcessEnv, after = 0, waitSeconds = 0, signal?: AbortSignal, base?: string): Promise<LogEntry[]> {
  const answer = await control<{data: LogEntry[]}>(env, 'GET', `/logs?after=${after}&wait=${waitSeconds}`, {
    base,
    signal,
    timeoutMs: (waitSeconds + 10) * 1000,
  })
  return answer.data
}
