/**
 * The 24 operations of the service, routed from `OPERATIONS` in src/domain/schema.ts so that none is
 * missed: authentication (401), scopes (403), rate limits (429) and validation (422) happen here.
 */
import type {IncomingMessage} from 'node:http'
import type {ApiVersion, OperationId, Scope} from '../domain/schema.js'
import {SCOPES, servedOperations} from '../domain/schema.js'
import {hasErrors, validateTokenRequest} from '../domain/validate.js'
import {type Core} from './core.js'
import {OPERATION_SCOPES} from './decisions.js'
import {HttpError, type Reply, type Request, type Router} from './http.js'
import {findKeyPair, type TokenRecord} from './tokens.js'
import {productHandlers, webhookHandlers} from './api-catalogue.js'
import {customerHandlers, orderHandlers} from './api-records.js'

export interface Call {
  request: Request
  version: ApiVersion
  /** Present for authenticated operations. */
  token?: TokenRecord
}

export type OpHandler = (call: Call) => Promise<Reply> | Reply

export function apiRoutes(router: Router, core: Core): void {
  const handlers = operationHandlers(core)
  for (const {op, version} of servedOperations()) {
    const handler = handlers[op.id as OperationId]
    const pattern = `/api/${version}${op.path.replace(/\{(\w+)\}/g, ':$1')}`
    router.add(op.method, pattern, async (request) => {
      let token: TokenRecord | undefined
      // Revocation authenticates itself: an already revoked token may revoke again (204).
      if (op.auth && op.id !== 'revokeToken') {
        token = authenticate(core, request.req)
        const scope = OPERATION_SCOPES[op.id]
        if (scope && !token.scopes.includes(scope))
          throw new HttpError(403, `This operation requires the ${scope} scope; the token has: ${token.scopes.join(', ') || 'none'}`)
      }
      return handler({request, token, version})
    })
  }
}

const UNAUTHORIZED = {'www-authenticate': 'Bearer realm="commerce-sandbox"'}

function bearer(req: IncomingMessage): string {
  const header = req.headers.authorization
  if (!header) throw new HttpError(401, 'Missing bearer token: send "Authorization: Bearer <access token>"', undefined, UNAUTHORIZED)
  const m = /^Bearer +(\S+) *$/i.exec(header)
  if (!m) throw new HttpError(401, 'Malformed Authorization header: expected "Bearer <access token>"', undefined, UNAUTHORIZED)
  return m[1]
}

function authenticate(core: Core, req: IncomingMessage): TokenRecord {
  const found = core.tokens.lookup(bearer(req))
  if (found.state === 'valid') return found.token
  throw rejected(found.state)
}

function rejected(state: 'expired' | 'revoked' | 'unknown'): HttpError {
  const why = {expired: 'has expired; issue a new one', revoked: 'has been revoked', unknown: 'is not valid'}[state]
  return new HttpError(401, `The access token ${why}`, undefined, UNAUTHORIZED)
}

function authHandlers(core: Core): Pick<Record<OperationId, OpHandler>, 'issueToken' | 'revokeToken'> {
  const {store} = core
  return {
    issueToken: async ({request}) => {
      const body = await request.body()
      const errors = validateTokenRequest(body)
      if (hasErrors(errors)) {
        const [field, messages] = Object.entries(errors)[0]
        throw new HttpError(422, `Invalid token request: ${field} ${messages[0]}`)
      }
      const {key_id, key_secret, scopes} = body as {key_id: string; key_secret: string; scopes?: Scope[]}
      const key = findKeyPair(store.keys, key_id, key_secret)
      if (!key) {
        // Guessing a secret is throttled: past too many rejected pairs for a key id, its wrong pairs are 429 for a
        // while. What fails is throttled, never the pair that is right (decisions.ts says why).
        const wait = core.limits.tokenFailures.blockedFor(key_id)
        if (wait !== undefined)
          throw new HttpError(429, `Too many rejected key pairs for ${key_id}; retry in ${wait} s`, undefined, {'retry-after': String(wait)})
        core.limits.tokenFailures.take(key_id)
        throw new HttpError(422, 'The key pair was rejected')
      }
      const granted = scopes === undefined ? key.scopes : SCOPES.filter((s) => scopes.includes(s))
      if (granted.length === 0) throw new HttpError(422, 'scopes must name at least one scope')
      const refused = granted.filter((s) => !key.scopes.includes(s))
      if (refused.length > 0) throw new HttpError(422, `The key is not entitled to: ${refused.join(', ')}`)
      return {
        body: {access_token: core.tokens.issue(key, granted), token_type: 'Bearer', expires_in: core.tokens.ttl, scopes: granted},
        headers: {'cache-control': 'no-store'},
        status: 201,
      }
    },

    revokeToken: ({request}) => {
      const found = core.tokens.lookup(bearer(request.req))
      if (found.state === 'expired' || found.state === 'unknown') throw rejected(found.state)
      found.token.revoked = true
      return {status: 204}
    },
  }
}

function operationHandlers(core: Core): Record<OperationId, OpHandler> {
  return {...authHandlers(core), ...customerHandlers(core), ...orderHandlers(core), ...productHandlers(core), ...webhookHandlers(core)}
}
