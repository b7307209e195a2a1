/**
 * The client's failures in words a user can act on: a request that never got an answer (was it sent? may it be
 * retried?), an error status (with the login hint for a 401, and "outcome unknown" for an unretried 5xx), and a
 * response over the size bound.
 */
import {capitalize, formatBytes} from '../domain/text.js'
import {ApiError, CliError, NetworkError} from '../errors.js'
import type {ApiRequest} from './request.js'
import {errorFromResponse} from './http-errors.js'
import {mayHaveBeenSent} from './policy.js'
import {classifyFailure, describeNetworkError} from './transport.js'

/** A loopback host that refuses connections: most likely the local sandbox, not started. */
const SANDBOX_HINT = 'Nothing is listening there. If it is the local sandbox, start it with `commerce sandbox start --detach`.'
const CHECK_NETWORK = 'Check the base URL and your network, then try again.'

export function networkError(
  error: unknown,
  at: {baseUrl: string; idempotent: boolean; loopback: boolean; req: ApiRequest; earlierMaybeSent?: boolean},
): NetworkError {
  const {req} = at
  const what = describeNetworkError(error)
  const where = new URL(at.baseUrl).host
  const attempt = classifyFailure(error)
  if (attempt && !mayHaveBeenSent(attempt) && !at.earlierMaybeSent)
    return new NetworkError(`Could not connect to ${where} (${what}; nothing was sent).`, {
      cause: error,
      hint: at.loopback ? SANDBOX_HINT : CHECK_NETWORK,
      nothingSent: true,
    })
  if (req.purpose) return new NetworkError(`${capitalize(req.purpose)} to ${where} failed: ${what}.`, {cause: error, hint: CHECK_NETWORK})
  if (at.idempotent) return new NetworkError(`Could not reach the service at ${where}: ${what}.`, {cause: error, hint: CHECK_NETWORK})
  return new NetworkError(`The ${req.method} request to ${where} failed: ${what}. Its outcome is unknown, so it was not retried.`, {
    cause: error,
    hint: 'Check whether it took effect (for example with a list command) before running it again.',
  })
}

export function httpError(status: number, body: unknown, req: ApiRequest, loginHint: string | undefined): ApiError {
  // A request of the CLI's own (the token's) is named by its purpose; any other by its method and path.
  const error = errorFromResponse(status, body, req.purpose ? undefined : `${req.method} ${req.path.split('?')[0]}`)
  if (status === 401 && loginHint)
    return new ApiError(status, error.message, {
      body,
      fieldErrors: error.fieldErrors,
      hint: `The token was rejected (expired, revoked or invalid). ${loginHint}`,
      serviceMessage: error.serviceMessage,
    })
  if (req.purpose && status >= 500)
    return new ApiError(status, `${capitalize(req.purpose)} failed: ${error.message}`, {
      body,
      fieldErrors: error.fieldErrors,
      serviceMessage: error.serviceMessage,
    })
  if (status >= 500 && !(req.idempotent ?? (req.method === 'GET' || req.method === 'DELETE')))
    return new ApiError(status, `${error.message} The outcome of this ${req.method} is unknown, so it was not retried.`, {
      body,
      fieldErrors: error.fieldErrors,
      hint: 'Check whether it took effect before running it again.',
      serviceMessage: error.serviceMessage,
    })
  return error
}

/** A response over `limit` bytes, refused unread: `what` says how it was found out. */
export function responseTooLarge(baseUrl: string, status: number, what: string, limit: number): CliError {
  return new CliError(
    `The response from ${new URL(baseUrl).host} (HTTP ${status}) ${what}, more than the client accepts (${formatBytes(limit)}); it was not read.`,
    {
      code: 'unexpected_response',
      hint: 'If this response is expected, raise the bound with COMMERCE_HTTP_MAX_BYTES (bytes, or e.g. 64MiB); else check the base URL.',
    },
  )
}
