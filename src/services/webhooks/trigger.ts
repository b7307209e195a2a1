/**
 * `webhooks trigger`: makes an event happen in the local sandbox through its control path
 * (`POST /_sandbox/events`, outside the API, no authentication). Never against anything else.
 */
import {errorFromResponse} from '../../api/errors.js'
import {readSandboxState} from '../../config/sandbox-state.js'
import {EVENT_TYPES} from '../../domain/schema.js'
import {checkOneOf} from '../../domain/validate.js'
import {CliError, NetworkError, UsageError} from '../../errors.js'

export const START_SANDBOX_HINT = 'Start one with `commerce sandbox start --detach`, then `commerce auth login --sandbox`.'
const CONTROL_EVENTS_PATH = '/_sandbox/events'

/** The control path's answer. */
export interface Triggered {
  event_id: string
  /** How many endpoints the sandbox is delivering the event to. */
  endpoints: number
  order: {id: number; status: string; [field: string]: unknown}
  [field: string]: unknown
}

/**
 * `baseUrl` is the one the command would use (flag, environment, profile), or undefined when none is set, in
 * which case the running sandbox is used. Exit 2 when no sandbox runs or the base URL is not the sandbox's.
 */
export async function trigger(input: {type: string; orderId?: number; baseUrl?: string; env: NodeJS.ProcessEnv; userAgent: string}): Promise<Triggered> {
  const problem = checkOneOf(input.type, EVENT_TYPES)
  if (problem) throw new UsageError(`EVENT ${problem}.`)
  const state = readSandboxState(input.env)
  if (!state) throw new UsageError('No local sandbox is running: `webhooks trigger` works only against the local sandbox.', {hint: START_SANDBOX_HINT})
  const sandboxUrl = state.base_url.replace(/\/+$/, '')
  if (input.baseUrl !== undefined && input.baseUrl.replace(/\/+$/, '') !== sandboxUrl)
    throw new UsageError(`\`webhooks trigger\` works only against the local sandbox (${sandboxUrl}), not ${input.baseUrl}.`, {
      hint: 'Use the profile logged in with `commerce auth login --sandbox`, or pass --base-url with the sandbox\'s URL.',
    })

  const url = sandboxUrl + CONTROL_EVENTS_PATH
  let response: Response
  try {
    response = await fetch(url, {
      body: JSON.stringify({type: input.type, ...(input.orderId === undefined ? {} : {order_id: input.orderId})}),
      headers: {accept: 'application/json', 'content-type': 'application/json', 'user-agent': input.userAgent},
      method: 'POST',
      signal: AbortSignal.timeout(30_000),
    })
  } catch (error) {
    const cause = (error as {cause?: {code?: string}}).cause?.code
    throw new NetworkError(`Cannot reach the sandbox at ${sandboxUrl}${cause ? ` (${cause})` : ''}.`, {hint: 'Is it still running? See `commerce sandbox status`.'})
  }
  const text = await response.text()
  let body: unknown
  try {
    body = text === '' ? undefined : JSON.parse(text)
  } catch {
    body = text
  }
  if (!response.ok) throw errorFromResponse(response.status, body)
  const answer = body as Triggered | undefined
  if (typeof answer?.event_id !== 'string') throw new CliError('Unexpected answer from the sandbox control path: no event_id.')
  return answer
}
