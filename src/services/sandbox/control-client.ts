/**
 * The CLI's client of the running sandbox's control path (`/_sandbox/...`): found through the state file,
 * JSON in and out. Failures are CliErrors with the contract's exit codes.
 */
import {errorFromResponse} from '../../api/http-errors.js'
import {describeNetworkError} from '../../api/transport.js'
import {readSandboxState} from '../../config/sandbox-state.js'
import {NetworkError, UsageError} from '../../errors.js'

export const NOT_RUNNING_HINT = 'Start one with `commerce sandbox start --detach`.'

/**
 * The one failure of every command that needs the local sandbox when none runs: `sandbox_not_running`, exit 2,
 * whichever command meets it (`sandbox status` answers exit 1 instead: "not running" is its answer, not a failure).
 */
export function sandboxNotRunning(what = 'No local sandbox is running.', hint = NOT_RUNNING_HINT): UsageError {
  return new UsageError(what, {code: 'sandbox_not_running', hint})
}

/** The running sandbox's base URL; `sandboxNotRunning` when none runs. */
export function sandboxUrl(env: NodeJS.ProcessEnv): string {
  const state = readSandboxState(env)
  if (!state) throw sandboxNotRunning()
  return state.base_url.replace(/\/+$/, '')
}

export async function control<T>(
  env: NodeJS.ProcessEnv,
  method: string,
  path: string,
  options: {body?: unknown; timeoutMs?: number; signal?: AbortSignal; headers?: Record<string, string>; base?: string} = {},
): Promise<T> {
  const base = options.base ?? sandboxUrl(env)
  let response: Response
  try {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000)
    response = await fetch(`${base}/_sandbox${path}`, {
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      headers: {accept: 'application/json', ...(method === 'GET' ? {} : {'content-type': 'application/json'}), ...options.headers},
      method,
      signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout,
    })
  } catch (error) {
    if (options.signal?.aborted) throw error
    throw new NetworkError(`Cannot reach the sandbox at ${base}: ${describeNetworkError(error)}.`, {
      hint: 'Is it still running? See `commerce sandbox status`.',
    })
  }
  const text = await response.text()
  let body: unknown
  try {
    body = text === '' ? undefined : JSON.parse(text)
  } catch {
    body = text
  }
  if (!response.ok) throw errorFromResponse(response.status, body)
  return body as T
}
