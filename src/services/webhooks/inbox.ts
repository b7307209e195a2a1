/** `webhooks events` and `webhooks replay`: the local inbox of verified deliveries that `webhooks listen` keeps. */
import {SIGNATURE_HEADER, verifySignature} from '../../domain/signature.js'
import {CliError, EXIT} from '../../errors.js'
import {ForwardError} from '../../webhooks/forward.js'
import {decodeBody, defaultInboxPath, Inbox, type InboxRecord} from '../../webhooks/inbox.js'
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
  /** A fresh signature was sent (--secret, or the secret the profile stores for the delivery's endpoint). */
  resigned: boolean
  /** Set when the recorded signature was sent as it was (no secret given or stored for it). */
  warning?: string
}

/**
 * The stored secret of the endpoint a recorded delivery came to: the one its recorded signature verifies with
 * (whatever its age). The inbox does not name the endpoint, but the signature does, as only its secret matches.
 */
export function storedSecretFor(record: InboxRecord, stored: Readonly<Record<string, string>>): string | undefined {
  const header = Object.entries(record.headers).find(([name]) => name.toLowerCase() === SIGNATURE_HEADER)?.[1]
  if (header === undefined) return undefined
  const body = decodeBody(record)
  return Object.values(stored).find((secret) => verifySignature(secret, header, body, {toleranceSeconds: Number.MAX_SAFE_INTEGER}).valid)
}

/**
 * Sends the newest recorded delivery of `id` again. Exit 4 when the inbox has none; exit 1 when the receiver
 * cannot be reached or answers other than 2xx (the error carries its status).
 */
export async function replay(
  env: NodeJS.ProcessEnv,
  input: {id: string; forwardTo: string; secret?: string; storedSecrets?: Readonly<Record<string, string>>},
): Promise<ReplayOutcome> {
  checkForwardUrl(input.forwardTo)
  const inbox = openInbox(env)
  const record = await inbox.findEvent(input.id)
  if (!record)
    throw new CliError(`No delivery of ${input.id} in the inbox (${inbox.path}).`, {
      exitCode: EXIT.notFound,
      hint: 'See the recorded deliveries with `commerce webhooks events`.',
    })
  const secret = input.secret ?? storedSecretFor(record, input.storedSecrets ?? {})
  const warning =
    secret === undefined
      ? `No signing secret stored for the endpoint of ${record.id}: sending its recorded signature, which a receiver may refuse as too old (give one with --secret-file, --secret-stdin or COMMERCE_WEBHOOK_SECRET).`
      : undefined
  let result
  try {
    result = await replayEvent({forwardTo: input.forwardTo, record, secret})
  } catch (error) {
    if (error instanceof ForwardError) throw new CliError(`Could not replay ${input.id} to ${input.forwardTo}: ${error.message}.`)
    throw error
  }
  if (result.status < 200 || result.status > 299)
    throw new CliError(`The receiver at ${input.forwardTo} answered ${result.status} to ${input.id}.`, {status: result.status})
  return {duration_ms: result.duration_ms, forward_to: input.forwardTo, id: record.id, resigned: secret !== undefined, status: result.status, type: record.type, ...(warning ? {warning} : {})}
}
