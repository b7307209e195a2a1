/**
 * Credentials and the token cache.
 *
 * Order (cli-contract.md): COMMERCE_ACCESS_TOKEN (used as is, never renewed) > COMMERCE_KEY_ID +
 * COMMERCE_KEY_SECRET (token cached in the config file keyed by base URL, key id and scopes) > the profile's
 * stored key pair (token cached in the profile) > not logged in (exit 3).
 * A cached token is reused until 60 s before it expires. Issue and renewal run under a token-issue lock and
 * re-read the cache first, so parallel processes sharing one config file reuse one fresh token; the config lock
 * is never held across the request (ConfigStore.withIssueLock).
 */

import type {IssuedToken} from '../domain/schema.js'
import {ApiError, AuthError, CliError, UsageError} from '../errors.js'
import {KEYRING_FIX_HINT, KeyringError, type Storage, keyringAccount, keyringGet} from '../config/keyring.js'
import type {CachedToken, ConfigData, ConfigStore} from '../config/config-store.js'
import {type Profile, setProfileToken} from '../config/config-schema.js'
import type {ApiClient, TokenSource} from './client.js'
import {checkHeaderValue} from './base-url.js'
import {type BaseUrlOverride, foreignOrigin, originOf} from './origin.js'

export type {BaseUrlOverride} from './origin.js'

export type CredentialSourceName = 'COMMERCE_ACCESS_TOKEN' | 'COMMERCE_KEY_ID' | 'none' | 'profile'

export interface KeyPair {
  keyId: string
  keySecret: string
  /** Scopes to request; undefined asks for every scope the key is entitled to. */
  scopes?: string[]
}

const RENEW_MARGIN_MS = 60_000

/**
 * How to log in. `flags` are the user's own `--profile`/`--base-url`/`--api-version` (e.g. ` --profile staging`),
 * repeated so that the command given logs in where the failing command looked.
 */
export function loginHint(flags = ''): string {
  return `Run \`commerce auth login${flags}\` (or \`commerce auth login --sandbox${flags.replace(/ --base-url \S+/, '')}\` for the local sandbox), or set COMMERCE_KEY_ID and COMMERCE_KEY_SECRET.`
}

export const LOGIN_HINT = loginHint()

/**
 * What to do about credentials that were refused, for where they came from: a login does not help when the
 * environment's key pair or token takes precedence over it.
 */
export function credentialHint(source: CredentialSourceName, flags = ''): string {
  if (source === 'COMMERCE_ACCESS_TOKEN')
    return 'The token comes from COMMERCE_ACCESS_TOKEN, used as it is: set a fresh one, or unset it to use a key pair.'
  if (source === 'COMMERCE_KEY_ID')
    return 'The key pair comes from COMMERCE_KEY_ID and COMMERCE_KEY_SECRET, which take precedence over any login: check both.'
  return loginHint(flags)
}

/**
 * POST /auth/tokens. A rejected key pair (422) is an AuthError (exit 3, `auth_rejected`) with `hint`: the login to
 * run again (repeating the user's own --profile/--base-url/--api-version), or the variables to check.
 */
export async function issueToken(client: ApiClient, pair: KeyPair, hint: string = credentialHint('profile')): Promise<IssuedToken> {
  let body: unknown
  try {
    body = (
      await client.request({
        auth: false,
        body: {key_id: pair.keyId, key_secret: pair.keySecret, ...(pair.scopes ? {scopes: pair.scopes} : {})},
        method: 'POST',
        path: '/auth/tokens',
        purpose: 'the token request',
      })
    ).body
  } catch (error) {
    if (error instanceof ApiError && (error.status === 422 || error.status === 401 || error.status === 403))
      throw new AuthError(`The key pair was rejected (HTTP ${error.status}).`, {
        code: 'auth_rejected',
        hint,
        serviceMessage: error.serviceMessage,
        status: error.status,
      })
    throw error
  }
  const token = body as Partial<IssuedToken> | undefined
  if (!token || typeof token.access_token !== 'string' || token.access_token === '')
    throw new CliError('Unexpected response to the token request: no access_token in it.', {code: 'unexpected_response'})
  return {
    access_token: token.access_token,
    expires_in: typeof token.expires_in === 'number' ? token.expires_in : 3600,
    scopes: Array.isArray(token.scopes) ? token.scopes.map(String) : (pair.scopes ?? []),
    token_type: typeof token.token_type === 'string' ? token.token_type : 'Bearer',
  }
}

/** DELETE /auth/tokens/current with the given token (idempotent: 204 also when already revoked). */
export async function revokeToken(client: ApiClient, token: string): Promise<void> {
  await client.request({auth: false, headers: {authorization: `Bearer ${token}`}, method: 'DELETE', path: '/auth/tokens/current'})
}

/** A token given as is: never renewed; a 401 on it is final. */
export class StaticToken implements TokenSource {
  constructor(private readonly token: string) {}
  async getToken(): Promise<string> {
    return this.token
  }

  async renew(): Promise<undefined> {
    return undefined
  }
}

/** No credentials: operations that need a token fail with exit 3 and say how to log in. */
export class NoCredentials implements TokenSource {
  constructor(private readonly hint = LOGIN_HINT) {}

  async getToken(): Promise<string> {
    throw new AuthError('Not logged in.', {hint: this.hint})
  }

  async renew(): Promise<undefined> {
    return undefined
  }
}

/** Where a key pair's token is cached inside the config data. */
export interface TokenSlot {
  get(data: ConfigData, baseUrl: string): CachedToken | undefined
  set(data: ConfigData, token: CachedToken): void
}

export function envTokenSlot(pair: KeyPair): TokenSlot {
  // Keyed by base URL, key id and scopes (the contract), plus a short fingerprint of the secret, so that a wrong
  // COMMERCE_KEY_SECRET never reuses a token another process cached for the same key id.
  // node:crypto on first use: loading it at start costs every command 1 to 2 ms (test/bench/startup.bench.ts).
  const {createHash} = process.getBuiltinModule('node:crypto')
  const fingerprint = createHash('sha256').update(pair.keySecret).digest('hex').slice(0, 12)
  const key = (baseUrl: string) => `${baseUrl} ${pair.keyId} ${pair.scopes ? [...pair.scopes].sort().join(',') : '*'} ${fingerprint}`
  return {
    get: (data, baseUrl) => data.token_cache?.[key(baseUrl)],
    set(data, token) {
      data.token_cache ??= {}
      // Drop expired entries so the cache does not grow without bound.
      for (const [k, t] of Object.entries(data.token_cache)) if (Date.parse(t.expires_at) < Date.now()) delete data.token_cache[k]
      data.token_cache[key(token.base_url)] = token
    },
  }
}

export function profileTokenSlot(profileName: string): TokenSlot {
  return {
    get(data, baseUrl) {
      const p = data.profiles?.[profileName]
      if (!p?.access_token || !p.expires_at || p.token_base_url !== baseUrl) return undefined
      return {access_token: p.access_token, base_url: baseUrl, expires_at: p.expires_at, scopes: p.scopes ?? []}
    },
    set(data, token) {
      const p = data.profiles?.[profileName]
      if (!p) return // logged out meanwhile: do not resurrect the profile
      setProfileToken(p, token)
    },
  }
}

export class KeyPairTokens implements TokenSource {
  private current?: string

  constructor(
    /** The pair, or how to load it (a secret in the OS keyring is read only when a token must be issued). */
    private readonly pair: KeyPair | (() => Promise<KeyPair>),
    private readonly store: ConfigStore,
    private readonly slot: TokenSlot,
    private readonly now: () => number = Date.now,
    /** What to do when the service rejects the pair (credentialHint for where it came from). */
    private readonly rejectedHint?: string,
  ) {}

  private fresh(token: CachedToken | undefined): token is CachedToken {
    return token !== undefined && Date.parse(token.expires_at) - RENEW_MARGIN_MS > this.now()
  }

  async getToken(client: ApiClient): Promise<string> {
    if (this.current) return this.current
    const cached = this.slot.get(await this.store.read(), client.baseUrl)
    if (this.fresh(cached)) return (this.current = cached.access_token)
    return this.obtain(client)
  }

  async renew(client: ApiClient, stale: string): Promise<string> {
    this.current = undefined
    return this.obtain(client, stale)
  }

  /** The cached token as this source would use it, without issuing one (auth status). */
  async cached(baseUrl: string): Promise<CachedToken | undefined> {
    const cached = this.slot.get(await this.store.read(), baseUrl)
    return this.fresh(cached) ? cached : undefined
  }

  /**
   * Reuse a fresh token another process stored meanwhile, else issue one and store it. The request runs under the
   * token-issue lock only (parallel renewals wait for the first and reuse its token), never under the config lock:
   * the token is merged into the file afterwards, so settings changed meanwhile are kept.
   */
  private async obtain(client: ApiClient, stale?: string): Promise<string> {
    const reusable = (data: ConfigData) => {
      const cached = this.slot.get(data, client.baseUrl)
      return this.fresh(cached) && cached.access_token !== stale ? cached : undefined
    }
    const token = await this.store.withIssueLock(async () => {
      const cached = reusable(await this.store.read())
      if (cached) return cached
      const issued = await issueToken(client, typeof this.pair === 'function' ? await this.pair() : this.pair, this.rejectedHint)
      const entry: CachedToken = {
        access_token: issued.access_token,
        base_url: client.baseUrl,
        expires_at: new Date(this.now() + issued.expires_in * 1000).toISOString(),
        scopes: issued.scopes,
      }
      await this.store.update((data) => this.slot.set(data, entry))
      return entry
    })
    this.current = token.access_token
    return token.access_token
  }
}

export interface ResolvedCredentials {
  source: CredentialSourceName
  tokens: TokenSource
  keyId?: string
  /** Where a profile's key secret is read from. */
  storage?: Storage
}

/** A profile's key secret kept in the OS keyring: a missing entry or a keyring that fails is exit 3, saying which. */
export async function keyringSecret(profileName: string, keyId: string, hint = LOGIN_HINT): Promise<string> {
  let secret: string | undefined
  try {
    secret = await keyringGet(keyringAccount(profileName, keyId))
  } catch (error) {
    if (!(error instanceof KeyringError)) throw error
    throw new AuthError(`The key secret of profile "${profileName}" is kept in the OS keyring, but ${error.message}.`, {hint: KEYRING_FIX_HINT})
  }
  if (secret === undefined) throw new AuthError(`The key secret of profile "${profileName}" is not in the OS keyring (it was removed there).`, {hint})
  return secret
}

/** The origin a profile's key pair was stored for: `credentials_origin`, else (older files) its base URL's. */
export function credentialsOrigin(profile: Profile): string | undefined {
  return profile.credentials_origin ?? (profile.base_url ? originOf(profile.base_url) : undefined)
}

/** Applies the contract's order to the environment and the selected profile. */
export function resolveCredentials(
  env: NodeJS.ProcessEnv,
  data: ConfigData,
  profileName: string,
  store: ConfigStore,
  options: {loginHint?: string; baseUrlOverride?: BaseUrlOverride} = {},
): ResolvedCredentials {
  if (env.COMMERCE_ACCESS_TOKEN) checkHeaderValue('COMMERCE_ACCESS_TOKEN', env.COMMERCE_ACCESS_TOKEN)
  if (env.COMMERCE_ACCESS_TOKEN) return {source: 'COMMERCE_ACCESS_TOKEN', tokens: new StaticToken(env.COMMERCE_ACCESS_TOKEN)}
  const envId = env.COMMERCE_KEY_ID
  const envSecret = env.COMMERCE_KEY_SECRET
  if (envId && !envSecret) throw new UsageError('COMMERCE_KEY_ID is set but COMMERCE_KEY_SECRET is not: set both, or neither.')
  if (envSecret && !envId) throw new UsageError('COMMERCE_KEY_SECRET is set but COMMERCE_KEY_ID is not: set both, or neither.')
  if (envId && envSecret) {
    const pair = {keyId: envId, keySecret: envSecret}
    return {
      keyId: envId,
      source: 'COMMERCE_KEY_ID',
      tokens: new KeyPairTokens(pair, store, envTokenSlot(pair), Date.now, credentialHint('COMMERCE_KEY_ID')),
    }
  }
  const profile = data.profiles?.[profileName]
  // A profile's stored credentials go only to the origin they were stored for.
  const bound = profile?.key_id ? credentialsOrigin(profile) : undefined
  const asked = options.baseUrlOverride ?? (profile?.base_url ? {from: `the profile's base_url`, url: profile.base_url} : undefined)
  const foreign = bound && asked ? foreignOrigin(profileName, bound, asked) : undefined
  if (foreign) return {keyId: profile!.key_id, source: 'profile', storage: profile!.storage === 'keyring' ? 'keyring' : 'file', tokens: foreign}
  if (profile?.key_id && profile.key_secret) {
    const pair = {keyId: profile.key_id, keySecret: profile.key_secret, scopes: profile.requested_scopes}
    const tokens = new KeyPairTokens(pair, store, profileTokenSlot(profileName), Date.now, options.loginHint)
    return {keyId: profile.key_id, source: 'profile', storage: 'file', tokens}
  }
  if (profile?.key_id && profile.storage === 'keyring') {
    const {key_id: keyId, requested_scopes: scopes} = profile
    const load = async () => ({keyId, keySecret: await keyringSecret(profileName, keyId, options.loginHint), scopes})
    return {
      keyId,
      source: 'profile',
      storage: 'keyring',
      tokens: new KeyPairTokens(load, store, profileTokenSlot(profileName), Date.now, options.loginHint),
    }
  }
  return {source: 'none', tokens: new NoCredentials(options.loginHint)}
}
