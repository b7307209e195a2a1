/** Customers: list, get, create, update (v2), delete (v2). */
import type {ApiClient} from '../api/client.js'
import {isResource, resourceOf, unexpectedResponse} from '../api/http-errors.js'
import type {PageOptions} from '../api/paginate.js'
import {type ApiVersion, CUSTOMER_STATUSES, type Customer, type CustomerInclude, type CustomerStatus} from '../domain/schema.js'
import {checkOneOf, checkSearch, validateCustomerCreate, validateCustomerUpdate} from '../domain/validate.js'
import {type Listing, listing, requireV2} from './listing.js'
import {assertValid} from './validation.js'
import {option} from '../domain/phrase.js'

export interface ListCustomersOptions extends PageOptions {
  status?: CustomerStatus
  search?: string
  version: ApiVersion
}

export function listCustomersRequest(options: {status?: string; search?: string; version: ApiVersion}) {
  if (options.search !== undefined) requireV2(options.version, option('search'))
  const errors: Record<string, string[]> = {}
  if (options.status !== undefined) {
    const p = checkOneOf(options.status, CUSTOMER_STATUSES)
    if (p) errors.status = [p]
  }
  if (options.search !== undefined) {
    const p = checkSearch(options.search)
    if (p) errors.q = [p]
  }
  assertValid('list filter', errors)
  return {auth: true, method: 'GET', path: '/customers', query: {q: options.search, status: options.status}, version: options.version} as const
}

export function listCustomers(client: ApiClient, options: ListCustomersOptions): Listing<Customer> {
  return listing<Customer>(client, listCustomersRequest(options), options)
}

export async function getCustomer(client: ApiClient, id: number, options: {include?: CustomerInclude; version: ApiVersion}): Promise<Customer> {
  return resourceOf<Customer>(
    await client.request({auth: true, method: 'GET', path: `/customers/${id}`, query: {include: options.include}, version: options.version}),
    'a customer',
  )
}

export interface CustomerInput {
  email?: string
  name?: string
  send_invite?: boolean
  status?: CustomerStatus
  plan?: string
  metadata?: Array<{key: string; value: string}> | Record<string, unknown>
}

/** The service body for create/update: `plan` and `--metadata` pairs go into `metadata`. */
export function customerBody(input: CustomerInput): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const k of ['email', 'name', 'send_invite', 'status'] as const) if (input[k] !== undefined) body[k] = input[k]
  const metadata: Record<string, unknown> = Array.isArray(input.metadata)
    ? Object.fromEntries(input.metadata.map((e) => [e.key, e.value]))
    : {...input.metadata}
  if (input.plan !== undefined) metadata.plan = input.plan
  if (Object.keys(metadata).length > 0) body.metadata = metadata
  return body
}

export async function createCustomer(client: ApiClient, input: CustomerInput, version: ApiVersion): Promise<Customer> {
  const body = customerBody(input)
  assertValid('customer', validateCustomerCreate(body))
  const res = await client.request({auth: true, body, method: 'POST', path: '/customers', version})
  return resourceOf<Customer>(
    res,
    'the new customer',
    'The customer may have been created: check with `commerce customers list` before running this again.',
  )
}

/** What a delete checks first, as its dry run and its result say it: the customer it would delete. */
export function deleteFacts(customer: Customer): Record<string, unknown> {
  return {customer: {email: customer.email, id: customer.id, name: customer.name}}
}

/** v2 only: operations that exist only in v2 always use it, whatever the profile's version. */
export async function updateCustomer(client: ApiClient, id: number, input: CustomerInput): Promise<Customer> {
  const body = customerBody(input)
  assertValid('update', validateCustomerUpdate(body))
  const res = await client.request({auth: true, body, method: 'PATCH', path: `/customers/${id}`, version: 'v2'})
  if (isResource(res.body)) return res.body as Customer
  // The service documents no response for PATCH: an empty success (204) means done; show the customer as it is now.
  if (res.body === undefined) return getCustomer(client, id, {version: 'v2'})
  throw unexpectedResponse(res.status, res.body, 'the customer', `The update may have been applied: check with \`commerce customers get ${id}\`.`)
}

export async function deleteCustomer(client: ApiClient, id: number): Promise<{id: number; deleted: true}> {
  await client.request({auth: true, method: 'DELETE', path: `/customers/${id}`, version: 'v2'})
  return {deleted: true, id}
}
