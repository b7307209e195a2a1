/** auth login and logout (status and token: auth-status.ts). */
import {type KeyPair, KeyPairTokens, type ResolvedCredentials, issueToken, revokeToken} from '../api/auth.js'
import type {ApiClient, ClientOptions} from '../api/client.js'
import type {ApiVersion} from '../domain/schema.js'
import {ApiError, CliError} from '../errors.js'
import {KeyringError, type Storage, keyringAccount, keyringAnswers, keyringDelete, keyringSet} from '../config/keyring.js'
import {readSandboxState} from '../config/sandbox-state.js'
import {forgetCredentials, setProfileToken} from '../config/config-schema.js'
import {type ConfigStore, ensureProfile} from '../config/config-store.js'

/** Where a profile keeps its key secret: the choices `auth login` offers. */
export {STORAGES, type Storage} from '../config/keyring.js'

/** What logging into the local sandbox uses: its URL, a key, and the money unit it reports. */
export interface SandboxLogin {
  baseUrl: string
  keyId: string
  keySecret: string
  moneyUnit?: string
}

/**
 * The running local sandbox's URL and the first of its keys that holds every scope wanted (else its first key);
 * undefined when none runs.
 */
export function sandboxLogin(env: NodeJS.ProcessEnv, scopes: readonly string[]): SandboxLogin | undefined {
  const state = readSandboxState(env)
  if (!state) return undefined
  const key = state.keys.find((k) => scopes.every((s) => k.scopes.includes(s))) ?? state.keys[0]
  return {baseUrl: state.base_url, keyId: key.key_id, keySecret: key.key_secret, moneyUnit: state.money_unit}
}

/**
 * What the auth services use of a command's context (base/Context provides it): the config store, the selected
 * profile, the credentials in effect, the base URL and an API client.
 */
export interface AuthContext {
  readonly store: ConfigStore
  readonly env: NodeJS.ProcessEnv
  profileName(): Promise<string>
  credentials(): Promise<ResolvedCredentials>
  baseUrl(): Promise<string>
  client(overrides?: Partial<ClientOptions>): Promise<ApiClient>
  /** The user's own --profile/--base-url/--api-version, to repeat in a hint. */
  userFlags(): string
}

export interface LoginResult {
  profile: string
  base_url: string
  key_id: string
  scopes: string[]
  expires_at: string
  /** Where the key secret went: `keyring` (the OS keyring) or `file` (config.json). */
  storage: Storage
}

export interface LoginOutcome {
  result: LoginResult
  /** Set when the keyring was asked for but failed: the secret went to the file instead. */
  warning?: string
  /** The base URL the profile was logged in at before, when this login moved it elsewhere. */
  movedFrom?: string
}

/**
 * Issues a token to check the key pair, then stores the pair, the token and the base URL in the profile. With
 * `storage` keyring (the flag, else the profile's `storage` setting), the key secret goes to the OS keyring and the
 * file keeps only the key id; a keyring that fails or does not answer within 3 s means the file, with a warning.
 */
export async function login(
  ctx: AuthContext,
  input: {baseUrl: string; pair: KeyPair; apiVersion?: ApiVersion; storage?: Storage; moneyUnit?: string},
): Promise<LoginOutcome> {
  const client = await ctx.client({baseUrl: input.baseUrl, tokens: undefined})
  const issued = await issueToken(
    client,
    input.pair,
    `Check the key id and secret (and the scopes asked for), then run \`commerce auth login${ctx.userFlags()}\` again.`,
  )
  const profileName = await ctx.profileName()
  const before = (await ctx.store.read()).profiles?.[profileName]
  let storage: Storage = input.storage ?? (before?.storage === 'keyring' ? 'keyring' : 'file')
  let warning: string | undefined
  if (storage === 'keyring') {
    try {
      await keyringSet(keyringAccount(profileName, input.pair.keyId), input.pair.keySecret)
    } catch (error) {
      if (!(error instanceof KeyringError)) throw error
      storage = 'file'
      warning = `could not keep the key secret in the OS keyring: ${error.message}. It is stored in ${ctx.store.path} (mode 0600) instead.`
    }
  }
  // A secret the profile kept in the keyring under another key id, or that now goes to the file: removed there.
  if (before?.storage === 'keyring' && before.key_id && (storage === 'file' || before.key_id !== input.pair.keyId))
    await keyringDelete(keyringAccount(profileName, before.key_id)).catch(() => false)
  const expiresAt = new Date(Date.now() + issued.expires_in * 1000).toISOString()
  await ctx.store.update((data) => {
    const p = ensureProfile(data, profileName)
    p.base_url = client.baseUrl
    // Logging in over plain http:// to another machine with --allow-insecure-http opts the profile in (README).
    if (client.options.allowInsecureHttp && client.baseUrl.startsWith('http:')) p.allow_insecure_http = 'true'
    if (input.apiVersion) p.api_version = input.apiVersion
    if (input.moneyUnit) p.money_unit = input.moneyUnit
    p.key_id = input.pair.keyId
    p.credentials_origin = new URL(client.baseUrl).origin
    if (storage === 'keyring') delete p.key_secret
    else p.key_secret = input.pair.keySecret
    p.storage = storage
    if (input.pair.scopes) p.requested_scopes = input.pair.scopes
    else delete p.requested_scopes
    setProfileToken(p, {access_token: issued.access_token, base_url: client.baseUrl, expires_at: expiresAt, scopes: issued.scopes})
  })
  const movedFrom = before?.base_url && before.base_url !== client.baseUrl ? before.base_url : undefined
  return {
    movedFrom,
    result: {base_url: client.baseUrl, expires_at: expiresAt, key_id: input.pair.keyId, profile: profileName, scopes: issued.scopes, storage},
    warning,
  }
}

export const KEYRING_HINT =
  'Tip: this machine has an OS keyring. `commerce auth login --storage keyring` (or `commerce config set storage keyring`) keeps the key secret there instead of config.json. This tip is shown once.'

/**
 * Whether `auth login` may mention `--storage keyring` (before probing for a keyring): the secret went to the file
 * by default (no --storage given), a person is at a terminal (stdin and stderr TTYs, CI unset: `interactive`),
 * no --json, and the tip was never shown.
 */
export function keyringHintWanted(input: {
  storageFlag: Storage | undefined
  storage: Storage
  interactive: boolean
  json: boolean
  shown: boolean
}): boolean {
  return input.storageFlag === undefined && input.storage === 'file' && input.interactive && !input.json && !input.shown
}

/**
 * The one-time tip about `--storage keyring` after a login that stored the secret in the file, or undefined: only
 * when `keyringHintWanted` and a keyring answers a probe (given up after 1 s, so a login where none answers is
 * slowed by at most that). Once shown, `keyring_hint_shown` in config.json keeps it from being repeated.
 */
export async function keyringHint(
  ctx: Pick<AuthContext, 'store'>,
  input: {storageFlag: Storage | undefined; storage: Storage; interactive: boolean; json: boolean},
  probe: () => Promise<boolean> = () => keyringAnswers(),
): Promise<string | undefined> {
  const shown = (await ctx.store.read()).keyring_hint_shown === true
  if (!keyringHintWanted({...input, shown})) return undefined
  if (!(await probe())) return undefined
  await ctx.store.update((data) => {
    data.keyring_hint_shown = true
  })
  return KEYRING_HINT
}

export interface LogoutResult {
  profile: string
  revoked: boolean
  /** Set when the revocation failed: the local credentials are removed all the same. */
  revoke_error?: string
}

export interface LogoutOutcome {
  result: LogoutResult
  /** Set when the keyring entry could not be removed. */
  warning?: string
}

/**
 * Revokes the current token (without issuing one just to revoke it), then removes the stored key pair and token
 * from the profile. Succeeds when already logged out.
 */
export async function logout(ctx: AuthContext): Promise<LogoutOutcome> {
  const profileName = await ctx.profileName()
  const creds = await ctx.credentials()
  let token: string | undefined
  let baseUrl: string | undefined
  if (creds.source === 'COMMERCE_ACCESS_TOKEN') token = ctx.env.COMMERCE_ACCESS_TOKEN
  else if (creds.source !== 'none') {
    try {
      baseUrl = await ctx.baseUrl()
      token = (await (creds.tokens as KeyPairTokens).cached(baseUrl))?.access_token
    } catch {}
  }
  let revokeError: string | undefined
  if (token) {
    try {
      await revokeToken(await ctx.client(), token)
    } catch (error) {
      // A 401 means the service no longer accepts the token (expired or already revoked): nothing stays valid.
      if (!(error instanceof ApiError && error.status === 401)) revokeError = error instanceof Error ? error.message : String(error)
    }
  }
  let warning: string | undefined
  if (creds.source === 'profile' && creds.storage === 'keyring' && creds.keyId) {
    try {
      await keyringDelete(keyringAccount(profileName, creds.keyId))
    } catch (error) {
      if (!(error instanceof KeyringError)) throw error
      warning = `could not remove the key secret from the OS keyring (${error.message}): remove the entry service "commerce-cli", account "${keyringAccount(profileName, creds.keyId)}" yourself.`
    }
  }
  await ctx.store.update((data) => {
    const p = data.profiles?.[profileName]
    if (p) forgetCredentials(p)
    if (creds.source === 'COMMERCE_KEY_ID' && data.token_cache && ctx.env.COMMERCE_KEY_ID) {
      for (const k of Object.keys(data.token_cache)) if (k.split(' ')[1] === ctx.env.COMMERCE_KEY_ID) delete data.token_cache[k]
    }
  })
  if (revokeError) throw new CliError(`Logged out locally, but revoking the token failed: ${revokeError}. The token stays valid until it expires.`)
  return {result: {profile: profileName, revoked: Boolean(token)}, warning}
}
