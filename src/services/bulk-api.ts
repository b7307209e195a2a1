/**
 * The row senders' view of the service (src/bulk/senders.ts): customer and order creation over a paced client,
 * with the answers about one row (bad input, a conflict, a body too large) turned into row outcomes and
 * everything else (network, 5xx, 401, 429 past the retries) thrown, to stop the import.
 */
import {records} from '../api/paginate.js'
import type {PacedClient} from '../bulk/paced.js'
import type {CustomerApi, OrderApi} from '../bulk/senders.js'
import {EXPORT_PER_PAGE} from '../domain/bulk-formats.js'
import {type ApiVersion, type Customer, LIMITS} from '../domain/schema.js'
import {characters} from '../domain/validate.js'
import {ApiError} from '../errors.js'
import {createCustomer, listCustomersRequest, updateCustomer} from './customers.js'
import {createOrder} from './orders.js'

/** A service answer about the row itself (bad or conflicting input), as a reason; undefined for anything else. */
function rowRejection(error: unknown, statuses: readonly number[]): string | undefined {
  if (!(error instanceof ApiError) || error.status === null || !statuses.includes(error.status)) return undefined
  const fields = Object.entries(error.fieldErrors ?? {}).flatMap(([field, messages]) => messages.map((m) => `${field} ${m}`))
  return fields.length > 0 ? fields.join('; ') : (error.serviceMessage ?? error.message)
}

/** Answers about one row: bad input (400, 422), a conflict (409), a body too large for the service (413). */
const ROW_STATUSES = [400, 409, 413, 422] as const

/** Customer creation over the client. v2 also finds customers by email (search) and updates them. */
export function customerApi(paced: PacedClient, version: ApiVersion): CustomerApi {
  const {client} = paced
  const api: CustomerApi = {
    async create(body) {
      await paced.ready()
      try {
        const customer = await createCustomer(client, body, version)
        return {id: customer.id, status: 'created'}
      } catch (error) {
        const reason = rowRejection(error, ROW_STATUSES)
        if (reason === undefined) throw error
        // The email passed client-side validation, so a complaint about it (or a 409) means it is taken.
        const e = error as ApiError
        if (e.status === 409 || e.fieldErrors?.email) return {status: 'email_taken'}
        return {reason, status: 'rejected'}
      }
    },
  }
  if (version !== 'v2') return api
  api.findByEmail = async (email) => {
    if (characters(email) > LIMITS.searchMaxLength) return undefined
    const wanted = email.toLowerCase()
    // The search matches substrings of names and emails too: page through its results for the exact email.
    for await (const c of records<Customer>(client, listCustomersRequest({search: email, version: 'v2'}), {all: true, perPage: EXPORT_PER_PAGE}))
      if (c.email.toLowerCase() === wanted) return {created_at: c.created_at, id: c.id}
    return undefined
  }
  api.update = async (id, body) => {
    try {
      await updateCustomer(client, id, body)
      return {status: 'updated'}
    } catch (error) {
      const reason = rowRejection(error, [...ROW_STATUSES, 404])
      if (reason === undefined) throw error
      return {reason, status: 'rejected'}
    }
  }
  return api
}

/** Order creation in v2, each with its row's Idempotency-Key (a resend replays the original order). */
export function orderApi(paced: PacedClient): OrderApi {
  return {
    async create(body, idempotencyKey) {
      await paced.ready()
      try {
        const {order} = await createOrder(paced.client, body, {idempotencyKey, version: 'v2'})
        return {id: order.id, status: 'created'}
      } catch (error) {
        const reason = rowRejection(error, ROW_STATUSES)
        if (reason === undefined) throw error
        return {reason, status: 'rejected'}
      }
    },
  }
}
