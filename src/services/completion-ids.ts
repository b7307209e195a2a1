/**
 * Ids for shell completion (`commerce customers get <Tab>`): the candidates of the pickers (services/pickers.ts,
 * one source for both), as `id:description` lines (zsh shows the description; bash takes the ids). An answer
 * within the deadline or none: at the deadline the client is closed, which ends its requests at once, and nothing
 * is offered. Answers are cached per profile and base URL for 60 s in `completion-ids.json` (0600), bounded.
 *
 * What the server sends reaches a shell here (docs/trust.md): only ids of the documented shape are offered (the
 * integers of customers, orders and products; `evt_`-style tokens of `[A-Za-z0-9_-]` for events), anything else is
 * dropped, and descriptions lose their control characters. The cache is checked the same way when it is read.
 */
import {mkdir} from 'node:fs/promises'

import type {ApiClient, ClientOptions} from '../api/client.js'
import {COMPLETION_IDS_FILE, configDir, configPath} from '../config/paths.js'
import {writeFileAtomic} from '../domain/files.js'
import {readOwnFileSync} from '../domain/own-file.js'
import {isObject} from '../domain/json.js'
import {withoutControls} from '../domain/text.js'
import {type Candidate, candidates, type PickKind} from './pickers.js'

export const COMPLETION_TTL_MS = 60_000
const MAX_LINES = 200
const MAX_KEYS = 20

export interface CompletionIdsOptions {
  env: NodeJS.ProcessEnv
  client: (overrides: Partial<ClientOptions>) => Promise<ApiClient>
  /** Whose ids these are: the profile and the base URL. */
  cacheKey: string
  now: () => number
  deadlineMs?: number
}

type Cache = Record<string, {at: number; lines: string[]}>

/** The shape of an id a shell may be offered: digits, or an event's token; nothing a shell would read as code. */
const ID_SHAPE = {event: /^[A-Za-z0-9_-]{1,128}$/, integer: /^[0-9]{1,19}$/}
/** A whole line of completion-ids: an id of either shape, a colon, and a description without control characters. */
const LINE_SHAPE = /^[A-Za-z0-9_-]{1,128}:[^\u0000-\u001f\u007f-\u009f]*$/

/** The id as a shell may see it, or undefined when it is not of the documented shape for `kind`. */
export function completableId(kind: PickKind, id: unknown): string | undefined {
  const text = typeof id === 'number' ? (Number.isSafeInteger(id) && id >= 0 ? String(id) : '') : typeof id === 'string' ? id : ''
  return (kind === 'event' ? ID_SHAPE.event : ID_SHAPE.integer).test(text) ? text : undefined
}

/**
 * One line per candidate: the id, then what a person recognises (control characters removed, colons kept); undefined
 * for a candidate whose id is not of the documented shape.
 */
export function completionLine(kind: PickKind, c: Candidate): string | undefined {
  const id = completableId(kind, c.id)
  if (id === undefined) return undefined
  const text = (value: unknown) => withoutControls(String(value))
  if (c.customer) return `${id}:${text(`${c.customer.name} <${c.customer.email}>`)}`
  if (c.order) return `${id}:${text(`customer ${c.order.customer_id}, ${c.order.status}, ${c.order.total} ${c.order.currency}`)}`
  if (c.product) return `${id}:${text(c.product.name)}`
  return `${id}:${text(c.event?.type ?? '')}`
}

/** A profile name a shell may be offered: the config file is the user's, but a name is still never code. */
const PROFILE_SHAPE = /^[A-Za-z0-9_.@+-]{1,64}$/

/** The profile names of the config (`--profile <TAB>`), sorted; names of another shape are not offered. */
export function profileCompletions(config: {profiles?: unknown}): string[] {
  return Object.keys(isObject(config.profiles) ? config.profiles : {})
    .filter((name) => PROFILE_SHAPE.test(name))
    .sort()
}

/** The cache holds at most MAX_KEYS lists of MAX_LINES short lines: far under this. */
const CACHE_MAX_BYTES = 1024 * 1024

async function readCache(path: string): Promise<Cache> {
  try {
    const data: unknown = JSON.parse(readOwnFileSync(path, CACHE_MAX_BYTES))
    return isObject(data) ? (data as Cache) : {}
  } catch {
    return {}
  }
}

/** The lines to offer; [] when the deadline passes or anything fails (completion never prints an error). */
export async function completionIds(kind: PickKind, o: CompletionIdsOptions): Promise<string[]> {
  const path = configPath(COMPLETION_IDS_FILE, o.env)
  const key = `${o.cacheKey} ${kind}`
  const cache = await readCache(path)
  const hit = cache[key]
  if (hit && Array.isArray(hit.lines) && o.now() - hit.at < COMPLETION_TTL_MS && o.now() >= hit.at)
    return hit.lines.filter((line): line is string => typeof line === 'string' && LINE_SHAPE.test(line))
  const deadlineMs = o.deadlineMs ?? 1000
  let expired = false
  // After the deadline every retry's backoff is skipped, so that a closed client's retries end at once.
  const sleep = (ms: number) => (expired ? Promise.resolve() : new Promise<void>((resolve) => setTimeout(resolve, ms)))
  let client: ApiClient | undefined
  let timer: NodeJS.Timeout | undefined
  const work = (async () => {
    client = kind === 'event' ? undefined : await o.client({maxWaitSeconds: 0, sleep, timeoutMs: deadlineMs})
    const found = await candidates(kind, {client: async () => client!, env: o.env}, undefined, 1)
    return found.candidates
      .map((c) => completionLine(kind, c))
      .filter((line) => line !== undefined)
      .slice(0, MAX_LINES)
  })()
  const deadline = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), deadlineMs)))
  const lines = await Promise.race([work.catch(() => undefined), deadline])
  clearTimeout(timer)
  if (lines === undefined) {
    expired = true
    await client?.close().catch(() => {})
    return []
  }
  const kept = Object.entries({...cache, [key]: {at: o.now(), lines}})
    .sort(([, a], [, b]) => b.at - a.at)
    .slice(0, MAX_KEYS)
  await mkdir(configDir(o.env), {mode: 0o700, recursive: true}).catch(() => {})
  await writeFileAtomic(path, JSON.stringify(Object.fromEntries(kept))).catch(() => {})
  return lines
}
