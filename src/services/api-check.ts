/**
 * `commerce api`: a body checked against its operation before it is sent, with the rules the OpenAPI document and
 * the sandbox are made from (src/domain/validate.ts): exit 2 naming each field, nothing sent; `--no-validate` sends
 * it anyway (to see what a service answers to a bad body).
 */
import type {ApiRequest} from '../api/client.js'
import {type Operation, OPERATIONS} from '../domain/schema.js'
import {
  type FieldErrors,
  hasErrors,
  validateCustomerCreate,
  validateCustomerUpdate,
  validateOrderCreate,
  validateRefund,
  validateTokenRequest,
  validateWebhookCreate,
} from '../domain/validate.js'
import {option, phrase} from '../domain/phrase.js'
import {UsageError} from '../errors.js'

const CHECKS: Partial<Record<string, (body: unknown) => FieldErrors>> = {
  createCustomer: validateCustomerCreate,
  createOrder: validateOrderCreate,
  // Local listeners (the sandbox) take http:// to loopback; a service answers for the rest.
  createWebhook: (body) => validateWebhookCreate(body, true),
  issueToken: validateTokenRequest,
  refundOrder: validateRefund,
  updateCustomer: validateCustomerUpdate,
}

/** The operation a request is for (`/api/v2/customers/7` PATCH is updateCustomer), if any. */
export function operationOf(method: string, path: string): {op: Operation; version: string} | undefined {
  const pathname = path.split('?')[0]
  for (const op of Object.values(OPERATIONS) as Operation[])
    for (const version of op.versions) {
      const pattern = new RegExp(`^/api/${version}${op.path.replace(/\{\w+\}/g, '[^/]+')}/?$`)
      if (op.method === method && pattern.test(pathname)) return {op, version}
    }
  return undefined
}

/**
 * Exit 2 when the body breaks its operation's schema (before anything is sent). `apiPath` is the request's path as
 * the client resolves it (`customers` is `/api/v2/customers`, ApiClient.apiPath), so every form of a path is checked.
 */
export function checkRequestBody(request: ApiRequest, apiPath: string): void {
  const found = operationOf(request.method, apiPath)
  const check = found && CHECKS[found.op.id]
  if (!check) return
  const body: unknown = request.rawBody === undefined ? request.body : JSON.parse(request.rawBody)
  const errors = check(body ?? {})
  if (hasErrors(errors))
    throw new UsageError(`The body does not match ${found.op.id}${found.version.toUpperCase()} of the service's description; nothing was sent.`, {
      fieldErrors: errors,
      hint: phrase`Fix it, or send it as it is with ${option('noValidate')}.`,
    })
}
