/**
 * `commerce history` and its undo: the entries of the history (config/history.ts) listed and found, and an undo that
 * checks first. What the service lets take back is taken back only while the record is still as the change left it
 * (read and compared first; otherwise `conflict`, naming what changed, and nothing sent): an update by patching back
 * the fields it changed, a customer made by deleting it (the service may refuse one with orders: said, not forced), a
 * run in reverse order. What it cannot take back is said and never approximated: an order (refunding it is the user's
 * choice, named, never run), a refund, a webhook endpoint, a deleted customer (shown, to recreate by hand).
 */
import {isDeepStrictEqual} from 'node:util'

import type {ApiClient} from '../api/client.js'
import {checked} from '../api/dry-run.js'
import {type HistoryEntry, historyScope, readEntries, type Surface} from '../config/history.js'

export {HISTORY_FIELDS, SURFACES} from '../config/history.js'
import {option, phrase} from '../domain/phrase.js'
import {readTimestamp} from '../domain/timestamp.js'
import {CliError} from '../errors.js'

export interface HistoryFilter {
  /** Only entries at or after this time (ms). */
  since?: number
  surface?: Surface
  /** Only this profile's; undefined: every profile's. */
  profile?: string
  /** Only entries that name this record id. */
  record?: string
}

export async function listHistory(env: NodeJS.ProcessEnv, now: number, filter: HistoryFilter): Promise<HistoryEntry[]> {
  return (await readEntries(env, now)).filter(
    (e) =>
      (filter.since === undefined || (readTimestamp(e.time) ?? 0) >= filter.since) &&
      (filter.surface === undefined || e.surface === filter.surface) &&
      (filter.profile === undefined || e.profile === filter.profile) &&
      (filter.record === undefined || String(e.record_id) === filter.record),
  )
}

/** An entry by its reference, or every entry of a run (newest first); none is `not_found` (exit 4). */
export async function findInHistory(env: NodeJS.ProcessEnv, now: number, ref: string): Promise<{run: boolean; entries: HistoryEntry[]}> {
  const all = await readEntries(env, now)
  const entry = all.find((e) => e.entry === ref)
  if (entry) return {entries: [entry], run: false}
  const run = all.filter((e) => e.run === ref)
  if (run.length > 0) return {entries: run, run: true}
  throw new CliError(`No entry or run ${JSON.stringify(ref)} in the history.`, {
    code: 'not_found',
    hint: 'See `commerce history` for the entries and runs it keeps.',
  })
}

/** What undoing one entry takes: a request, after a check, or why it cannot be done. */
export interface UndoStep {
  entry: string
  /** The change: `PATCH /api/v2/customers/42`. */
  change: string
  can: boolean
  why: string
  /** What undoing sends. */
  request?: {method: 'PATCH' | 'DELETE'; path: string; body?: Record<string, unknown>}
  /** The fields that must still be as the change left them. */
  expect?: Record<string, unknown>
  /** The user's choice instead (a command to run, the record to recreate by hand). */
  instead?: string
  /** The entry that undid it already (a conflict). */
  undone_by?: string
  /** What a field has become since the change (a conflict). */
  changed_since?: Record<string, {now: unknown; change_left: unknown}>
}

const CUSTOMER = /^\/api\/v\d+\/customers\/(\d+)$/
const CUSTOMERS = /^\/api\/v\d+\/customers$/
const ORDERS = /^\/api\/v\d+\/orders$/
const REFUNDS = /^\/api\/v\d+\/orders\/(\d+)\/refunds$/
const WEBHOOKS = /^\/api\/v\d+\/webhooks$/
const TOKEN = /^\/api\/v\d+\/auth\/tokens\/current$/
/** The fields of a customer an update may change, and an undo patches back. */
const FIELDS = ['email', 'name', 'status'] as const

type Rec = Record<string, unknown>
const asRecord = (value: unknown): Rec => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Rec) : {})

/** The plan for one entry, from the history alone (`undone`: the entry that already undid it, if any). */
function stepFor(e: HistoryEntry, undone: HistoryEntry | undefined): UndoStep {
  const step = (can: boolean, why: string, more: Partial<UndoStep> = {}): UndoStep => ({
    can,
    change: `${e.method} ${e.path}`,
    entry: e.entry,
    why,
    ...more,
  })
  if (undone) return step(false, `Already undone, by entry ${undone.entry}.`, {undone_by: undone.entry})
  if (e.journal !== undefined)
    return step(
      false,
      `A ${e.surface} run of ${
        e.counts
          ? Object.entries(e.counts)
              .map(([k, n]) => `${n} ${k}`)
              .join(', ')
          : 'records'
      }: its ${e.surface === 'fixtures' ? 'ledger' : 'journal'} names them.`,
      {
        instead: e.surface === 'fixtures' ? `commerce fixtures clean ${e.journal}` : undefined,
      },
    )
  if (e.status === 'unknown') return step(false, 'Its outcome is unknown (it was sent and no answer came): read the record to see what it did.')
  if (e.status >= 300) return step(false, `The service refused it (HTTP ${e.status}): it changed nothing.`)
  const after = asRecord(e.after)
  const before = asRecord(e.before)
  if (e.method === 'PATCH' && CUSTOMER.test(e.path)) {
    const body: Rec = {}
    const expect: Rec = {}
    for (const field of FIELDS)
      if (!isDeepStrictEqual(before[field], after[field]) && before[field] !== undefined && after[field] !== undefined)
        [body[field], expect[field]] = [before[field], after[field]]
    const [was, now] = [asRecord(before.metadata), asRecord(after.metadata)]
    const metadata: Rec = {}
    const added: string[] = []
    for (const key of new Set([...Object.keys(was), ...Object.keys(now)]))
      if (!isDeepStrictEqual(was[key], now[key])) {
        if (key in was) metadata[key] = was[key]
        else added.push(key)
      }
    if (Object.keys(metadata).length > 0)
      [body.metadata, expect.metadata] = [metadata, Object.fromEntries(Object.keys(metadata).map((k) => [k, now[k]]))]
    const left = added.length > 0 ? ` The metadata keys it added (${added.join(', ')}) stay: how the service removes one is not shown.` : ''
    if (Object.keys(body).length === 0) return step(false, `It changed none of the fields an update can set back.${left}`)
    return step(true, `Patches back the fields it changed (${Object.keys(body).join(', ')}), while they are still as it left them.${left}`, {
      expect,
      request: {body, method: 'PATCH', path: e.path},
    })
  }
  if (e.method === 'POST' && CUSTOMERS.test(e.path) && e.record_id !== null) {
    const expect = Object.fromEntries([...FIELDS, 'metadata'].filter((f) => after[f] !== undefined).map((f) => [f, after[f]]))
    return step(true, 'Deletes the customer it made, while it is still as made (the service may refuse one that has orders).', {
      expect,
      request: {method: 'DELETE', path: `${e.path}/${e.record_id}`},
    })
  }
  if (e.method === 'DELETE' && CUSTOMER.test(e.path))
    return step(false, 'A deleted customer cannot come back with its id: recreate it by hand from the record it was (a new id).', {
      instead: `commerce customers create, with the email (${typeof before.email === 'string' ? before.email : 'unknown'}) and name of the record it was (history show)`,
    })
  if (e.method === 'POST' && ORDERS.test(e.path))
    return step(false, 'An order cannot be deleted. Refunding it is your choice, never made by undo.', {
      instead: `commerce orders refund ${String(e.record_id)}`,
    })
  if (e.method === 'POST' && REFUNDS.test(e.path)) return step(false, 'A refund cannot be reversed.')
  if (e.method === 'POST' && WEBHOOKS.test(e.path)) return step(false, 'A webhook endpoint cannot be deleted through the API.')
  if (e.method === 'DELETE' && TOKEN.test(e.path))
    return step(false, 'A revoked token stays revoked: log in again for a new one.', {instead: 'commerce auth login'})
  return step(false, 'No undo is known for this request.')
}

/** The plan for an entry or a run: newest first (a run is undone in reverse order). */
export function planUndo(target: HistoryEntry[], all: HistoryEntry[]): UndoStep[] {
  return target.map((e) =>
    stepFor(
      e,
      all.find((u) => u.undoes === e.entry && u.status !== 'unknown' && u.status < 300),
    ),
  )
}

/** The record a step acts on, read now, and each expected field compared: a step whose record changed since is a conflict. */
export async function checkUndo(steps: UndoStep[], client: ApiClient): Promise<UndoStep[]> {
  for (const step of steps) {
    if (!step.can || !step.request || !step.expect) continue
    let current: Rec
    try {
      current = asRecord((await client.request({auth: true, method: 'GET', path: step.request.path})).body)
    } catch (error) {
      if (error instanceof CliError && error.code === 'not_found') {
        Object.assign(step, {can: false, why: 'The record no longer exists.'})
        continue
      }
      throw error
    }
    const changed: UndoStep['changed_since'] = {}
    for (const [field, left] of Object.entries(step.expect)) {
      const now =
        field === 'metadata' ? Object.fromEntries(Object.keys(asRecord(left)).map((k) => [k, asRecord(current.metadata)[k]])) : current[field]
      if (!isDeepStrictEqual(now, left)) changed[field] = {change_left: left, now}
    }
    if (Object.keys(changed).length > 0)
      Object.assign(step, {can: false, changed_since: changed, why: `Changed since: ${Object.keys(changed).join(', ')}.`})
  }
  return steps
}

/**
 * The plan for undoing an entry or a run, checked against the records as they are now; nothing is sent unless every
 * part that can be undone still can. A change made with another profile or at another service is refused (its undo
 * is sent nowhere else); a conflict (a record changed since, a change undone already) is `conflict`, a change the
 * service cannot take back `not_undoable`, each with the reason of every part and what to do instead.
 */
export async function prepareUndo(env: NodeJS.ProcessEnv, now: number, ref: string, o: {client: ApiClient; profile: string}): Promise<UndoStep[]> {
  const {entries} = await findInHistory(env, now, ref)
  const origin = new URL(o.client.baseUrl).origin
  const elsewhere = entries.find((e) => e.profile !== o.profile || e.origin !== origin)
  if (elsewhere)
    throw new CliError(
      `Entry ${elsewhere.entry} was made with profile ${elsewhere.profile} at ${elsewhere.origin}; this runs with profile ${o.profile} at ${origin}.`,
      {code: 'usage', hint: phrase`Run it with ${option('profile')} ${elsewhere.profile} (and the same base URL).`},
    )
  const steps = await checkUndo(planUndo(entries, await readEntries(env, now)), o.client)
  const reasons = Object.fromEntries(steps.filter((s) => !s.can).map((s) => [s.entry, [s.why, ...(s.instead ? [`Instead: ${s.instead}`] : [])]]))
  const conflict = steps.find((s) => s.changed_since !== undefined || s.undone_by !== undefined)
  if (conflict)
    throw new CliError(`Nothing was undone: entry ${conflict.entry}: ${conflict.why}`, {
      code: 'conflict',
      fieldErrors: reasons,
      hint: 'See what changed with `commerce history show`, and change the record by hand if it should go back.',
    })
  if (!steps.some((s) => s.can)) {
    const instead = steps.find((s) => s.instead)?.instead
    throw new CliError(`Nothing was undone: ${steps.map((s) => `entry ${s.entry}: ${s.why}`).join(' ')}`, {
      code: 'not_undoable',
      fieldErrors: reasons,
      hint: instead ? `Instead: ${instead}` : undefined,
    })
  }
  return steps
}

/** Sends each step that can be done, in order; each request is recorded as undoing its entry. */
export async function runUndo(steps: UndoStep[], client: ApiClient): Promise<Array<{entry: string; status: number}>> {
  const done: Array<{entry: string; status: number}> = []
  for (const step of steps.filter((s) => s.can && s.request)) {
    const {method, path, body} = step.request!
    const res = await historyScope.run({...historyScope.getStore(), undoes: step.entry}, () =>
      checked({plan: steps}, () => client.request({auth: true, body, method, path})),
    )
    done.push({entry: step.entry, status: res.status})
  }
  return done
}
