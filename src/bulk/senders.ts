/**
 * What sending one import row means, over functions the caller builds on the API client (so that this module
 * knows nothing of HTTP). They return a result for what concerns the row (created, taken, rejected with a
 * reason) and throw for what concerns the service (network, 5xx, 401...), which stops the import.
 *
 * Customers (`--on-conflict`): a taken email (a 422 whose errors name `email`, for an email that passed
 * client-side validation) is `fail` (default; the row is failed), `skip` (skipped) or `update` (PATCH of the
 * existing customer, found by its email). A row in doubt (sent by an earlier run that died before recording
 * the answer) whose email is now taken was most likely created by that run: it counts as created when the
 * existing customer was created after that earlier send (`created_at` >= its time minus `clockToleranceMs`),
 * or when the caller cannot look customers up by email; otherwise the email was taken before the import and
 * `--on-conflict` applies. So a resumed import creates each customer once and reports it once.
 *
 * Orders: the row's Idempotency-Key makes every resend safe: the service replays the original order.
 */
import type {RowOutcome} from './journal.js'
import type {CustomerCreateBody, OrderCreateBody} from './rows.js'
import type {SendContext} from './runner.js'

import type {OnConflict} from '../domain/bulk-formats.js'
import {readTimestamp} from '../domain/timestamp.js'

export type {OnConflict}

export type CreateResult = {status: 'created'; id: number} | {status: 'rejected'; reason: string}

export interface CustomerApi {
  create(body: CustomerCreateBody): Promise<CreateResult | {status: 'email_taken'}>
  /** The customer whose email is exactly this one (v2 search), or undefined. Needed for `update`. */
  findByEmail?(email: string): Promise<{id: number; created_at?: string} | undefined>
  update?(id: number, body: {name: string; metadata?: Record<string, unknown>}): Promise<{status: 'updated'} | {status: 'rejected'; reason: string}>
}

export interface CustomerSenderOptions {
  api: CustomerApi
  onConflict: OnConflict
  /** How far the service's clock may be behind ours when settling a row in doubt; default 60 s. */
  clockToleranceMs?: number
}

export function customerSender(options: CustomerSenderOptions) {
  const {api, onConflict} = options
  const tolerance = options.clockToleranceMs ?? 60_000
  if (onConflict === 'update' && !(api.findByEmail && api.update)) throw new TypeError('--on-conflict update needs findByEmail and update')

  return async function sendCustomer(row: {body: CustomerCreateBody}, context: SendContext): Promise<RowOutcome> {
    const {email} = row.body
    const created = await api.create(row.body)
    if (created.status === 'created') return {id: created.id, outcome: 'created'}
    if (created.status === 'rejected') return {outcome: 'failed', reason: created.reason}

    let existing: {id: number; created_at?: string} | undefined
    if (context.inDoubtSince !== undefined) {
      const earlier = 'created by an earlier run whose answer was lost'
      if (!api.findByEmail) return {outcome: 'created', reason: earlier}
      existing = await api.findByEmail(email)
      const createdAt = readTimestamp(existing?.created_at) ?? Number.NaN
      if (existing && (Number.isNaN(createdAt) || createdAt >= context.inDoubtSince - tolerance))
        return {id: existing.id, outcome: 'created', reason: earlier}
    }

    const taken = `email "${email}" is already taken`
    if (onConflict === 'fail') return {outcome: 'failed', reason: `${taken} (--on-conflict fail)`}
    if (onConflict === 'skip') return {...(existing ? {id: existing.id} : {}), outcome: 'skipped', reason: taken}
    existing ??= await api.findByEmail!(email)
    if (!existing) return {outcome: 'failed', reason: `${taken}, but no customer with it was found to update`}
    const patch = {name: row.body.name, ...(row.body.metadata ? {metadata: row.body.metadata} : {})}
    const updated = await api.update!(existing.id, patch)
    if (updated.status === 'rejected') return {id: existing.id, outcome: 'failed', reason: updated.reason}
    return {id: existing.id, outcome: 'updated'}
  }
}

export interface OrderApi {
  /** POST /api/v2/orders with this Idempotency-Key (a replay answers the original order). */
  create(body: OrderCreateBody, idempotencyKey: string): Promise<CreateResult>
}

export function orderSender(options: {api: OrderApi}) {
  return async function sendOrder(row: {body: OrderCreateBody; idempotencyKey: string}): Promise<RowOutcome> {
    const result = await options.api.create(row.body, row.idempotencyKey)
    return result.status === 'created' ? {id: result.id, outcome: 'created'} : {outcome: 'failed', reason: result.reason}
  }
}
