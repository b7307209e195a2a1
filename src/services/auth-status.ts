/**
 * `auth status` and `auth token`: whether the service accepts the credentials in effect, asked of the service
 * itself (a cache can be stale: a sandbox restarted, a token revoked elsewhere), and a token it accepts.
 */
import type {ApiClient} from '../api/client.js'
import type {TokenSource} from '../api/request.js'
import {type KeyPairTokens, loginHint} from '../api/auth.js'
import type {Storage} from '../config/keyring.js'
import {ApiError, AuthError} from '../errors.js'
import {sentences} from '../domain/text.js'
import type {AuthContext} from './credentials.js'

export interface AuthStatus {
  profile: string
  base_url: string | null
  key_id: string | null
  source: string
  /** Where the key secret is read from (a profile's key pair); null for credentials from the environment. */
  storage: Storage | null
  logged_in: boolean
  expires_at: string | null
  scopes: string[] | null
  /** Why not logged in (not part of the JSON contract's required fields). */
  reason?: string
}

/**
 * Whether the credentials work, checked with the service (as gh does): the cached token in one authenticated read
 * (a 401 on it makes the client issue a new token with the key pair and read again once; a 403 is a token the
 * service accepts that lacks that read's scope). Without a cached token, a token is issued now. `offline`: from
 * the cache alone, nothing sent. A service that cannot be reached is the client's error (exit 1, saying so).
 * Never shows a secret. `raise`: credentials that do not work are the AuthError they end with, not a reason.
 */
export async function status(ctx: AuthContext, options: {offline?: boolean; raise?: boolean} = {}): Promise<AuthStatus> {
  const profile = await ctx.profileName()
  const creds = await ctx.credentials()
  let baseUrl: string | null = null
  try {
    baseUrl = await ctx.baseUrl()
  } catch (error) {
    // Without a base URL, only a key pair cannot be checked; a given token is reported as is (no request).
    if (creds.source !== 'none' && creds.source !== 'COMMERCE_ACCESS_TOKEN') throw error
  }
  const base: AuthStatus = {
    base_url: baseUrl,
    expires_at: null,
    key_id: creds.keyId ?? null,
    logged_in: false,
    profile,
    scopes: null,
    source: creds.source,
    storage: creds.storage ?? null,
  }
  if (creds.source === 'none') {
    // The error a request would end with, when the caller wants it whole (code, message, hint).
    if (options.raise) await creds.tokens.getToken(await ctx.client())
    return {...base, reason: loginHint(ctx.userFlags())}
  }
  if (creds.source === 'COMMERCE_ACCESS_TOKEN') return {...base, logged_in: true}
  const tokens = creds.tokens as KeyPairTokens
  const client = await ctx.client()
  try {
    if (options.offline) {
      const cached = await tokens.cached(client.baseUrl)
      if (!cached) return {...base, reason: 'No cached token, and nothing is sent offline: check with the service without it.'}
      return {...base, expires_at: cached.expires_at, logged_in: true, scopes: cached.scopes}
    }
    await checkWithService(client, tokens)
    const cached = await tokens.cached(client.baseUrl)
    return {...base, expires_at: cached?.expires_at ?? null, logged_in: true, scopes: cached?.scopes ?? null}
  } catch (error) {
    if (error instanceof AuthError && !options.raise) return {...base, reason: error.hint ? sentences(error.message, error.hint) : error.message}
    throw error
  }
}

/**
 * One authenticated read that the cached token's scopes allow (the customers list, else the orders list), a
 * record at most. The spec does not say which scope each operation needs: a 403 still proves the token accepted.
 */
async function checkWithService(
  client: ApiClient,
  tokens: TokenSource & {cached?(baseUrl: string): Promise<{scopes: string[]} | undefined>},
): Promise<void> {
  const scopes = (await tokens.cached?.(client.baseUrl))?.scopes ?? []
  const path = scopes.includes('orders:read') && !scopes.includes('customers:read') ? '/orders' : '/customers'
  try {
    await client.request({auth: true, method: 'GET', path, query: {per_page: 1}, version: 'v2'})
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return
    if (error instanceof ApiError && error.status === 401)
      throw new AuthError(error.message, {hint: error.hint, serviceMessage: error.serviceMessage, status: 401})
    throw error
  }
}

/** An access token the service accepts: checked as `status` checks it (a new one issued when the cached one is rejected). */
export async function currentToken(ctx: AuthContext): Promise<string> {
  const creds = await ctx.credentials()
  // COMMERCE_ACCESS_TOKEN is used as is: no request, so no base URL is needed.
  if (creds.source === 'COMMERCE_ACCESS_TOKEN') return ctx.env.COMMERCE_ACCESS_TOKEN!
  const client = await ctx.client()
  await checkWithService(client, creds.tokens)
  return creds.tokens.getToken(client)
}
