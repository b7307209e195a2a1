/** `webhooks events` and `webhooks replay`: the local inbox of verified deliveries that `webhooks listen` keeps. */
import {CliError, EXIT} from '../../errors.js'
import {ForwardError} from '../../webhooks/forward.js'
import {defaultInboxPath, Inbox, type InboxRecord} from '../../webhooks/inbox.js'
import {replayEvent} from '../../webhooks/replay.js'
import {checkForwardUrl} from './listen.js'

export function openInbox(env: NodeJS.ProcessEnv): Inbox {
  return new Inbox({path: defaultInboxPath(env)})
}

/** Newest first. */
export async function listInboxEvents(env: NodeJS.ProcessEnv, limit?: number): Promise<{records: InboxRecord[]; path: string}> {
  const inbox = openInbox(env)
  return {path: inbox.path, records: await inbox.listEvents({limit})}
}

export interface ReplayOutcome {
  id: string
  type: string
  forward_to: string
  status: number
  duration_ms: number
  /** A fresh signature was sent (--secret). */
  resigned: boolean
}

/**
 * Sends the newest recorded delivery of `id` again. Exit 4 when the inbox has none; exit 1 when the receiver
 * cannot be reached or answers other than 2xx (the error carries its status).
 */
export async function replay(env: NodeJS.ProcessEnv, input: {id: string; forwardTo: string; secret?: string}): Promise<ReplayOutcome> {
  checkForwardUrl(input.forwardTo)
  const inbox = openInbox(env)
  const record = await inbox.findEvent(input.id)
  if (!record)
    throw new CliError(`No delivery of ${input.id} in the inbox (${inbox.path}).`, {
      exitCode: EXIT.notFound,
      hint: 'See the recorded deliveries with `commerce webhooks events`.',
    })
  let result
  try {
    result = await replayEvent({forwardTo: input.forwardTo, record, secret: input.secret})
  } catch (error) {
    if (error instanceof ForwardError) throw new CliError(`Could not replay ${input.id} to ${input.forwardTo}: ${error.message}.`)
    throw error
  }
  if (result.status < 200 || result.status > 299)
    throw new CliError(`The receiver at ${input.forwardTo} answered ${result.status} to ${input.id}.`, {status: result.status})
  return {duration_ms: result.duration_ms, forward_to: input.forwardTo, id: record.id, resigned: input.secret !== undefined, status: result.status, type: record.type}
}
