/**
 * `webhooks events` and `webhooks replay`: the local inbox of verified deliveries that `webhooks listen` keeps,
 * used as a debugger: what came, what the receiver answered, and sending again what failed.
 *
 * A sender retries, and a replay is recorded too, so one event may have several records: "an event failed" is
 * said of its latest record (inbox.ts `outcomeOf`).
 */
import {SIGNATURE_HEADER, verifySignature} from '../../domain/signature.js'
import {CliError, EXIT, UsageError} from '../../errors.js'
import {ForwardError} from '../../webhooks/forward.js'
import {
  decodeBody,
  defaultInboxPath,
  headerObject,
  Inbox,
  inboxBoundsFromEnv,
  type InboxRecord,
  outcomeOf,
  recordAnswer,
} from '../../webhooks/inbox.js'
import {replayEvent, type ReplayResult} from '../../webhooks/replay.js'
import {checkForwardUrl} from './listen.js'
import {option, phrase, type Text} from '../../domain/phrase.js'
import {readTimestamp} from '../../domain/timestamp.js'

/** An inbox record, and what it came to (the command renders both). */
export {type InboxRecord, outcomeOf} from '../../webhooks/inbox.js'

export function openInbox(env: NodeJS.ProcessEnv): Inbox {
  return new Inbox({path: defaultInboxPath(env), ...inboxBoundsFromEnv(env)})
}

export const STATUS_FILTERS = ['failed', '2xx', '3xx', '4xx', '5xx'] as const
export type StatusFilter = (typeof STATUS_FILTERS)[number]

export interface EventFilter {
  /** Event types to keep (any of them). */
  types?: readonly string[]
  /** `failed`: forwarding failed or the receiver answered other than 2xx; `2xx`…`5xx`: the receiver's status class. */
  status?: StatusFilter
  /** Records received at or after this instant (ms since the epoch). */
  since?: number
  limit?: number
}

function matchesStatus(record: InboxRecord, status: StatusFilter): boolean {
  if (status === 'failed') return outcomeOf(record) === 'failed'
  return record.forward_status !== null && Math.floor(record.forward_status / 100) === Number(status[0])
}

function matches(record: InboxRecord, filter: EventFilter): boolean {
  if (filter.types && filter.types.length > 0 && !filter.types.includes(record.type)) return false
  if (filter.since !== undefined && !((readTimestamp(record.received_at) ?? Number.NaN) >= filter.since)) return false
  if (filter.status && !matchesStatus(record, filter.status)) return false
  return true
}

/** The records that pass the filter, newest first. */
export async function listInboxEvents(
  env: NodeJS.ProcessEnv,
  filter: EventFilter = {},
): Promise<{records: InboxRecord[]; path: string; total: number}> {
  const inbox = openInbox(env)
  const records = (await inbox.listEvents()).filter((r) => matches(r, filter))
  return {path: inbox.path, records: filter.limit === undefined ? records : records.slice(0, filter.limit), total: records.length}
}

function notInInbox(ids: readonly string[], path: string): CliError {
  const list = ids.join(', ')
  return new CliError(`No delivery of ${list} in the inbox (${path}).`, {
    exitCode: EXIT.notFound,
    hint: 'See the recorded deliveries with `commerce webhooks events`.',
  })
}

/** Every record of one event, oldest first (the latest last); exit 4 when the inbox has none. */
export async function getInboxEvent(env: NodeJS.ProcessEnv, id: string): Promise<{id: string; type: string; records: InboxRecord[]}> {
  const inbox = openInbox(env)
  const records = (await inbox.listEvents()).filter((r) => r.id === id).reverse()
  if (records.length === 0) throw notInInbox([id], inbox.path)
  return {id, records, type: records.at(-1)!.type}
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
  warning?: Text
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

interface ReplayInput {
  /** The receiver; when absent, each event's recorded one (`targetsOf`). */
  forwardTo?: string
  secret?: string
  storedSecrets?: Readonly<Record<string, string>>
  now?: () => number
}

/**
 * Where a replay of `record` goes: the receiver given, else the one the event was recorded with (checked again: the
 * inbox is a file). A usage error naming the events when neither says.
 */
function targetsOf(records: readonly InboxRecord[], forwardTo: string | undefined): string[] {
  if (forwardTo !== undefined) return records.map(() => checkForwardUrl(forwardTo))
  const without = records.filter((r) => typeof r.forward_to !== 'string')
  if (without.length > 0)
    throw new UsageError(
      phrase`${without.map((r) => r.id).join(', ')} ${without.length === 1 ? 'was' : 'were'} received with no receiver to forward to: give ${option('forwardTo')} URL.`,
    )
  return records.map((r) => checkForwardUrl(r.forward_to!))
}

/** One replay: sent, then recorded in the inbox with the receiver's answer (or the error), so `events` shows it. */
async function replayRecord(
  inbox: Inbox,
  record: InboxRecord,
  input: ReplayInput & {forwardTo: string},
): Promise<{result?: ReplayResult; error?: ForwardError; resigned: boolean; warning?: Text}> {
  const secret = input.secret ?? storedSecretFor(record, input.storedSecrets ?? {})
  const warning =
    secret === undefined
      ? phrase`No signing secret stored for the endpoint of ${record.id}: sending its recorded signature, which a receiver may refuse as too old (give one with ${option('secretFile')}, ${option('secretStdin')} or COMMERCE_WEBHOOK_SECRET).`
      : undefined
  const now = input.now ?? Date.now
  const receivedAt = new Date(now()).toISOString()
  let result: ReplayResult | undefined
  let error: ForwardError | undefined
  try {
    result = await replayEvent({forwardTo: input.forwardTo, now, record, secret})
  } catch (caught) {
    if (!(caught instanceof ForwardError)) throw caught
    error = caught
  }
  const {body, body_encoding, created_at, id, type} = record
  await inbox
    .append({
      body,
      body_encoding,
      created_at,
      duration_ms: result?.duration_ms ?? 0,
      forward_status: result?.status ?? null,
      ...(error ? {forward_error: error.message} : {}),
      forward_to: input.forwardTo,
      headers: result ? headerObject(result.sent) : record.headers,
      id,
      received_at: receivedAt,
      replayed: true,
      ...(result ? {response: recordAnswer(result)} : {}),
      type,
    })
    .catch(() => {}) // the replay happened; a record that cannot be written does not undo it
  return {error, resigned: secret !== undefined, result, ...(warning ? {warning} : {})}
}

/**
 * Sends the newest recorded delivery of `id` again. Exit 4 when the inbox has none; exit 1 when the receiver
 * cannot be reached or answers other than 2xx (the error carries its status).
 */
export async function replay(env: NodeJS.ProcessEnv, input: ReplayInput & {id: string}): Promise<ReplayOutcome> {
  if (input.forwardTo !== undefined) checkForwardUrl(input.forwardTo)
  const inbox = openInbox(env)
  const record = await inbox.findEvent(input.id)
  if (!record) throw notInInbox([input.id], inbox.path)
  const [forwardTo] = targetsOf([record], input.forwardTo)
  const {error, resigned, result, warning} = await replayRecord(inbox, record, {...input, forwardTo})
  if (error) throw new CliError(`Could not replay ${input.id} to ${forwardTo}: ${error.message}.`)
  if (result!.status < 200 || result!.status > 299)
    throw new CliError(`The receiver at ${forwardTo} answered ${result!.status} to ${input.id}.`, {status: result!.status})
  return {
    duration_ms: result!.duration_ms,
    forward_to: forwardTo,
    id: record.id,
    resigned,
    status: result!.status,
    type: record.type,
    ...(warning ? {warning} : {}),
  }
}

export interface BatchItem {
  id: string
  type: string
  forward_to: string
  /** The receiver's status, or null when it could not be reached. */
  status: number | null
  error: string | null
  duration_ms: number
  ok: boolean
  resigned: boolean
}

export interface BatchSummary {
  /** The receiver of every replay: the one given, or the one the events share (null when they differ, or none ran). */
  forward_to: string | null
  replayed: number
  succeeded: number
  failed: number
  results: BatchItem[]
}

/**
 * `replay ID...` or `replay --failed`: the events chosen, each once (by its latest record), replayed one after the
 * other in the order they were received, each reported as it finishes. With ids, every id must be in the inbox
 * (exit 4 naming the missing ones, before anything is sent).
 */
export async function replayMany(
  env: NodeJS.ProcessEnv,
  input: ReplayInput & {
    ids?: readonly string[]
    failed?: {types?: readonly string[]; since?: number}
    onResult?: (item: BatchItem, warning?: Text) => void
  },
): Promise<BatchSummary> {
  if (input.forwardTo !== undefined) checkForwardUrl(input.forwardTo)
  const inbox = openInbox(env)
  const newestFirst = await inbox.listEvents()
  // The latest record of each event, and the position of its first record (the replay order: as received).
  const latest = new Map<string, InboxRecord>()
  const firstSeen = new Map<string, number>()
  newestFirst.forEach((record, i) => {
    if (!latest.has(record.id)) latest.set(record.id, record)
    firstSeen.set(record.id, newestFirst.length - i) // the oldest record, seen last, wins
  })
  let chosen: InboxRecord[]
  if (input.ids) {
    const ids = [...new Set(input.ids)]
    const missing = ids.filter((id) => !latest.has(id))
    if (missing.length > 0) throw notInInbox(missing, inbox.path)
    chosen = ids.map((id) => latest.get(id)!)
  } else {
    const filter = input.failed ?? {}
    chosen = [...latest.values()].filter((r) => outcomeOf(r) === 'failed' && matches(r, {since: filter.since, types: filter.types}))
  }
  chosen.sort((a, b) => firstSeen.get(a.id)! - firstSeen.get(b.id)!)
  // Every receiver known before the first is sent to.
  const targets = targetsOf(chosen, input.forwardTo)
  const results: BatchItem[] = []
  for (const [i, record] of chosen.entries()) {
    const forwardTo = targets[i]
    const {error, resigned, result, warning} = await replayRecord(inbox, record, {...input, forwardTo})
    const status = result?.status ?? null
    const item: BatchItem = {
      duration_ms: result?.duration_ms ?? 0,
      error: error ? error.message : null,
      forward_to: forwardTo,
      id: record.id,
      ok: status !== null && status >= 200 && status <= 299,
      resigned,
      status,
      type: record.type,
    }
    results.push(item)
    input.onResult?.(item, warning)
  }
  const succeeded = results.filter((r) => r.ok).length
  const shared = new Set(targets).size === 1 ? targets[0] : null
  return {failed: results.length - succeeded, forward_to: input.forwardTo ?? shared, replayed: results.length, results, succeeded}
}
