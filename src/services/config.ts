/**
 * The `config` topic: reading and changing the settings of profiles in the config file. No request is ever
 * sent. Secrets (the key secret, webhook signing secrets) are only ever returned masked: the one command that
 * prints a credential is `auth token`.
 */
import {credentialsOrigin} from '../api/auth.js'
import {originOf} from '../api/origin.js'
import {KeyringError, keyringAccount, keyringDelete, keyringGet, keyringSet} from '../config/keyring.js'
import {type ConfigKey, envOverrides, isCredentialField, isSecretField, setProfileToken} from '../config/config-schema.js'
import {type ConfigData, type ConfigStore, ensureProfile, maskSecret, selectProfileName} from '../config/config-store.js'
import type {ApiVersion} from '../domain/schema.js'
import {CliError, EXIT, UsageError} from '../errors.js'
import {closest} from '../domain/suggest.js'
import {checkValue, shown} from './config-values.js'
import {readSandboxState} from '../config/sandbox-state.js'
import {control} from './sandbox/control-client.js'

export {CONFIG_KEYS, type ConfigKey} from '../config/config-schema.js'
export {parseKey} from './config-values.js'

export interface ConfigListing {
  profile: string
  base_url: string | null
  /** The profile's version, or the default (v2) when it has none. */
  api_version: ApiVersion
  key_id: string | null
  /** Masked. */
  key_secret: string | null
  /** How terminals show amounts (`minor`, `major`); absent when unset (integers beside their currency). */
  money_unit?: string
  token_cached: boolean
  token_expires_at: string | null
  /** Endpoint id -> masked signing secret. */
  webhook_secrets: Record<string, string>
}

export interface ProfileSummary {
  name: string
  /** The profile a command would use now (--profile > COMMERCE_PROFILE > the chosen one > `default`). */
  current: boolean
  base_url: string | null
  key_id: string | null
  /** A key pair is stored (whether it still works is `auth status`'s job). */
  logged_in: boolean
}

export interface ConfigServiceOptions {
  /** The config file. */
  store: ConfigStore
  /** --profile */
  profile?: string
  env: NodeJS.ProcessEnv
}

export class ConfigService {
  private readonly store: ConfigStore

  constructor(private readonly options: ConfigServiceOptions) {
    this.store = options.store
  }

  /** The selected profile; one named on purpose must exist unless `mayCreate` (config set creates profiles). */
  async profileName(data?: ConfigData, mayCreate = false): Promise<string> {
    return selectProfileName(data ?? (await this.store.read()), this.options.profile, this.options.env, {mayCreate})
  }

  /** Whether the selected profile exists in the file. */
  async exists(): Promise<boolean> {
    const data = await this.store.read()
    return Boolean(data.profiles?.[await this.profileName(data)])
  }

  async list(): Promise<ConfigListing> {
    const data = await this.store.read()
    const profile = await this.profileName(data)
    const p = data.profiles?.[profile]
    const tokenCached = Boolean(p?.access_token && p.expires_at && Date.parse(p.expires_at) > Date.now())
    return {
      profile,
      base_url: shown('base_url', p),
      api_version: shown('api_version', p) as ApiVersion,
      key_id: shown('key_id', p),
      key_secret: shown('key_secret', p),
      ...(p?.money_unit ? {money_unit: p.money_unit} : {}),
      token_cached: tokenCached,
      token_expires_at: tokenCached ? p!.expires_at! : null,
      // Secret fields (PROFILE_FIELDS): masked.
      webhook_secrets: Object.fromEntries(Object.entries(p?.webhook_secrets ?? {}).map(([id, secret]) => [id, maskSecret(secret) ?? ''])),
    }
  }

  /**
   * The signing secret the selected profile holds for a webhook endpoint, masked unless `reveal`; exit 4 when it
   * holds none (a secret is stored by `webhooks create` and by `webhooks listen` for the endpoints they register).
   */
  async webhookSecret(id: string, reveal: boolean): Promise<{id: string; profile: string; signing_secret: string}> {
    const data = await this.store.read()
    const profile = await this.profileName(data)
    // An endpoint a scenario made in the local sandbox (sandbox seed, start --seed, exec --seed): the sandbox knows it.
    const secret = data.profiles?.[profile]?.webhook_secrets?.[id] ?? (await sandboxWebhookSecret(this.options.env, id))
    if (secret === undefined)
      throw new CliError(`Profile "${profile}" holds no signing secret for webhook endpoint ${id}.`, {
        exitCode: EXIT.notFound,
        hint: 'Secrets are kept by `commerce webhooks create` and `commerce webhooks listen` for the endpoints they register; `commerce webhooks list` shows which.',
      })
    return {id, profile, signing_secret: reveal ? secret : maskSecret(secret)!}
  }

  async get(key: ConfigKey): Promise<{key: ConfigKey; value: string | null}> {
    const data = await this.store.read()
    return {key, value: shown(key, data.profiles?.[await this.profileName(data)])}
  }

  /** Stores a checked value; a new profile is created (the first one ever becomes the chosen one). */
  async set(key: ConfigKey, raw: string): Promise<{profile: string; key: ConfigKey; value: string; note?: string; warning?: string}> {
    const value = checkValue(key, raw)
    if (key === 'storage') return {key, ...(await this.setStorage(value as 'file' | 'keyring')), value}
    const current = await this.store.read()
    const name = await this.profileName(current, true)
    const before = current.profiles?.[name]
    if (key === 'key_secret' && before?.storage === 'keyring' && before.key_id) {
      await keyringCall(() => keyringSet(keyringAccount(name, before.key_id!), value), 'Nothing was saved')
      await this.write((data, n) => setProfileToken(ensureProfile(data, n), undefined), true)
      return {key, profile: name, value: maskSecret(value)!}
    }
    let warning: string | undefined
    const profile = await this.write((data, name) => {
      const p = ensureProfile(data, name)
      if (p[key] !== value && isCredentialField(key)) setProfileToken(p, undefined)
      const bound = credentialsOrigin(p)
      ;(p as Record<ConfigKey, string>)[key] = value
      // A key pair stays bound to the origin it was stored for: a new base URL does not take it along.
      if (key === 'base_url' && p.key_id && bound) {
        p.credentials_origin = bound
        const now = originOf(value)
        if (now !== bound)
          warning = `The key pair of profile "${name}" stays bound to ${bound}: it is not sent to ${now ?? value}. Commands that need credentials are exit 3 until \`commerce auth login --profile ${name}\` stores credentials for ${now ?? value}.`
      }
      if ((key === 'key_id' || key === 'key_secret') && p.base_url) p.credentials_origin = originOf(p.base_url)
    }, true)
    return {key, profile, value: isSecretField(key) ? maskSecret(value)! : value, ...(warning ? {warning} : {})}
  }

  /**
   * `storage keyring` moves the profile's key secret from the file to the OS keyring; `storage file` moves it
   * back. A keyring that fails is exit 1 and nothing changes.
   */
  private async setStorage(storage: 'file' | 'keyring'): Promise<{profile: string; note?: string}> {
    const current = await this.store.read()
    const name = await this.profileName(current, true)
    const p = current.profiles?.[name]
    const was = p?.storage === 'keyring' ? 'keyring' : 'file'
    let secret = p?.key_secret
    if (p?.key_id && was !== storage) {
      const account = keyringAccount(name, p.key_id)
      if (storage === 'keyring' && secret) await keyringCall(() => keyringSet(account, secret!), 'Nothing was changed')
      if (storage === 'file') secret = await keyringCall(() => keyringGet(account), 'Nothing was changed')
    }
    const profile = await this.write((data, n) => {
      const q = ensureProfile(data, n)
      q.storage = storage
      if (storage === 'keyring') delete q.key_secret
      else if (secret) q.key_secret = secret
    }, true)
    if (storage === 'file' && was === 'keyring' && p?.key_id) await keyringDelete(keyringAccount(name, p.key_id)).catch(() => false)
    // Nothing to move: say so, rather than let "Set storage" suggest a secret went somewhere.
    const note =
      was !== storage && !(p?.key_id && (secret || was === 'keyring'))
        ? `Profile "${profile}" holds no key secret, so there is nothing to move; the next ${this.options.profile ? `\`commerce auth login --profile ${profile}\`` : '`commerce auth login`'} keeps it in the ${storage === 'keyring' ? 'OS keyring' : 'file'}.`
        : undefined
    return {note, profile}
  }

  /** Removes a key from the profile; `removed` is false when it was not set (not an error). */
  async unset(key: ConfigKey): Promise<{profile: string; key: ConfigKey; removed: boolean}> {
    let removed = false
    const profile = await this.write((data, name) => {
      const p = data.profiles?.[name]
      if (!p || p[key] === undefined) return
      delete p[key]
      if (isCredentialField(key)) setProfileToken(p, undefined)
      removed = true
    })
    return {key, profile, removed}
  }

  async profiles(): Promise<ProfileSummary[]> {
    const data = await this.store.read()
    const current = await this.profileName(data)
    return Object.entries(data.profiles ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, p]) => ({
        base_url: p.base_url ?? null,
        current: name === current,
        key_id: p.key_id ?? null,
        logged_in: Boolean(p.key_id && (p.key_secret || p.storage === 'keyring')),
        name,
      }))
  }

  /**
   * Chooses the profile used when none is named. An unknown name is exit 2 rather than creating an empty
   * profile: a typo must not silently switch every later command to a profile with no URL and no key.
   */
  async use(name: string): Promise<{profile: string}> {
    await this.write((data) => {
      if (!data.profiles?.[name]) throw unknownProfile(name, data)
      data.current_profile = name
    })
    return {profile: name}
  }

  /** Removes a profile; when it was the chosen one, the choice is unset (commands fall back to `default`). */
  async remove(name: string): Promise<{profile: string; removed: true; had_credentials: boolean; was_chosen: boolean; warning?: string}> {
    let hadCredentials = false
    let wasChosen = false
    let inKeyring: string | undefined
    await this.write((data) => {
      const p = data.profiles?.[name]
      if (!p) throw unknownProfile(name, data)
      hadCredentials = Boolean(p.key_secret || p.access_token)
      if (p.storage === 'keyring' && p.key_id) inKeyring = keyringAccount(name, p.key_id)
      delete data.profiles![name]
      if (data.current_profile === name) {
        wasChosen = true
        delete data.current_profile
      }
    })
    let warning: string | undefined
    if (inKeyring) {
      try {
        await keyringDelete(inKeyring)
      } catch (error) {
        if (!(error instanceof KeyringError)) throw error
        warning = `could not remove the key secret from the OS keyring (${error.message}): remove the entry service "commerce-cli", account "${inKeyring}" yourself.`
      }
    }
    return {had_credentials: hadCredentials, profile: name, removed: true, was_chosen: wasChosen, ...(warning ? {warning} : {})}
  }

  /** Environment variables set now that take precedence over this key (for a note on stderr). */
  overriddenBy(key: ConfigKey): string[] {
    return envOverrides(key).filter((v) => this.options.env[v])
  }

  /**
   * A locked read-modify-write on the selected profile. When the config directory is not writable the store
   * keeps changes in memory for this process only; for `config` that means nothing was saved, so it fails.
   */
  private async write(mutate: (data: ConfigData, profile: string) => void, mayCreate = false): Promise<string> {
    const profile = await this.store.update(async (data) => {
      const name = await this.profileName(data, mayCreate)
      mutate(data, name)
      return name
    })
    const readOnly = this.store.readOnlyReason
    if (readOnly)
      throw new CliError(`Nothing was saved: ${readOnly.replace(/;[^;]*keeping changes.*$/, '')}.`, {
        hint: 'Check the permissions of the config directory, or set COMMERCE_CONFIG_DIR.',
      })
    return profile
  }
}

/** A keyring call for a config command: a failure is exit 1 saying nothing changed. */
async function keyringCall<T>(run: () => Promise<T>, nothing: string): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (!(error instanceof KeyringError)) throw error
    throw new CliError(`${nothing}: ${error.message}.`)
  }
}

function unknownProfile(name: string, data: ConfigData): UsageError {
  const names = Object.keys(data.profiles ?? {}).sort()
  const near = closest(name, names)
  return new UsageError(
    `No profile named ${JSON.stringify(name)}.${near ? ` Did you mean ${JSON.stringify(near)}?` : ''} ${names.length > 0 ? `Profiles: ${names.join(', ')}.` : 'There are no profiles yet.'}`,
    {
      hint: `Create it with \`commerce auth login --profile ${name}\` or \`commerce config set base_url URL --profile ${name}\`.`,
    },
  )
}

/** The signing secret the running local sandbox holds for an endpoint; undefined when none runs or it has no such one. */
async function sandboxWebhookSecret(env: NodeJS.ProcessEnv, id: string): Promise<string | undefined> {
  if (!readSandboxState(env)) return undefined
  try {
    return (await control<{signing_secret: string}>(env, 'GET', `/webhooks/${encodeURIComponent(id)}/secret`, {timeoutMs: 5_000})).signing_secret
  } catch {
    return undefined
  }
}
