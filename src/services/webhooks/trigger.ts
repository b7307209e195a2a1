/**
 * `webhooks trigger`: makes an event happen in the local sandbox through its control path
 * (`POST /_sandbox/events`, outside the API, no authentication). Never against anything else.
 */
import {readSandboxState} from '../../config/sandbox-state.js'
import {CliError, UsageError} from '../../errors.js'
import {control, sandboxNotRunning} from '../sandbox/control-client.js'
import {counted} from '../../domain/text.js'
import {option, phrase} from '../../domain/phrase.js'

export const START_SANDBOX_HINT = 'Start one with `commerce sandbox start --detach`, then `commerce auth login --sandbox`.'

/** The control path's answer. */
export interface Triggered {
  type: string
  event_id: string
  /** How many endpoints the sandbox is delivering the event to. */
  endpoints: number
  /** For order events: the order after the change. */
  order?: {id: number; status: string; [field: string]: unknown}
  /** The customer concerned (for order events, the order's customer). */
  customer?: {id: number; email: string; [field: string]: unknown}
  /** What the sandbox created to make the event happen. */
  created?: {customer?: number; order?: number}
  [field: string]: unknown
}

/** `--set data.FIELD=VALUE` -> `{"data.FIELD": VALUE}`; VALUE is JSON when it parses as JSON, else a string. */
export function parseOverrides(sets: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const set of sets) {
    const eq = set.indexOf('=')
    const path = eq < 0 ? set : set.slice(0, eq)
    if (eq < 0 || !/^data\.[^.=\s]+(\.[^.=\s]+)*$/.test(path))
      throw new UsageError(phrase`${option('set')} ${JSON.stringify(set)} must look like data.FIELD=VALUE (e.g. ${option('set')} data.total=1).`)
    const raw = set.slice(eq + 1)
    let value: unknown = raw
    try {
      value = JSON.parse(raw)
    } catch {}
    out[path] = value
  }
  return out
}

/** One line for a person: what happened, to what, what was created for it, and where it goes. */
export function describeTriggered(answer: Triggered): string {
  const what: string[] = []
  // The customer the event is about, made for it (customer.created): said once, as made.
  if (!answer.order && answer.customer && answer.created?.customer === answer.customer.id && answer.created.order === undefined)
    return `${answer.type}: created customer ${answer.customer.id} (${answer.customer.email}) in the sandbox; event ${answer.event_id} is being delivered to ${counted(answer.endpoints, 'endpoint')}.`
  if (answer.order) what.push(`order ${answer.order.id} is ${answer.order.status}`)
  else if (answer.customer) what.push(`customer ${answer.customer.id} (${answer.customer.email})`)
  const created = [
    answer.created?.customer === undefined
      ? undefined
      : `customer ${answer.created.customer}${answer.customer?.id === answer.created.customer ? ` (${answer.customer.email})` : ''}`,
    answer.created?.order === undefined ? undefined : `order ${answer.created.order}`,
  ].filter((x) => x !== undefined)
  const reused = answer.order && answer.created?.order !== undefined && answer.created.customer === undefined && answer.customer
  const origin =
    created.length > 0
      ? `; created ${created.join(' and ')}${reused ? ` for sandbox customer ${answer.customer!.id} (${answer.customer!.email})` : ''} in the sandbox`
      : ''
  return `${answer.type}: ${what.join('')}${origin}; event ${answer.event_id} is being delivered to ${counted(answer.endpoints, 'endpoint')}.`
}

/**
 * `baseUrl` is the one the command would use (flag, environment, profile), or undefined when none is set, in
 * which case the running sandbox is used. Exit 2 when no sandbox runs or the base URL is not the sandbox's.
 */
export async function trigger(input: {
  type: string
  orderId?: number
  customerId?: number
  /** Payload overrides, `{"data.FIELD": value}` (see parseOverrides); the sandbox refuses unknown fields (422). */
  set?: Record<string, unknown>
  baseUrl?: string
  env: NodeJS.ProcessEnv
  userAgent: string
}): Promise<Triggered> {
  if (input.type.trim() === '') throw new UsageError('EVENT must not be empty.')
  const state = readSandboxState(input.env)
  if (!state) throw sandboxNotRunning('No local sandbox is running: `webhooks trigger` works only against the local sandbox.', START_SANDBOX_HINT)
  const sandboxUrl = state.base_url.replace(/\/+$/, '')
  if (input.baseUrl !== undefined && input.baseUrl.replace(/\/+$/, '') !== sandboxUrl)
    throw new UsageError(`\`webhooks trigger\` works only against the local sandbox (${sandboxUrl}), not ${input.baseUrl}.`, {
      hint: phrase`Use the profile logged in with \`commerce auth login --sandbox\`, or pass ${option('baseUrl')} with the sandbox's URL.`,
    })

  const answer = await control<Triggered | undefined>(input.env, 'POST', '/events', {
    base: sandboxUrl,
    body: {
      type: input.type,
      ...(input.orderId === undefined ? {} : {order_id: input.orderId}),
      ...(input.customerId === undefined ? {} : {customer_id: input.customerId}),
      ...(input.set && Object.keys(input.set).length > 0 ? {set: input.set} : {}),
    },
    headers: {'user-agent': input.userAgent},
  })
  if (typeof answer?.event_id !== 'string') throw new CliError('Unexpected answer from the sandbox control path: no event_id.')
  return answer
}
