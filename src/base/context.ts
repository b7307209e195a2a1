/**
 * The per-command context, built lazily: the config store, the selected profile, the base URL, the API version,
 * the credentials and the API client. Precedence rules of the contract live here and nowhere else.
 */
import {ApiClient, type ClientOptions} from '../api/client.js'
import {type BaseUrlOverride, credentialHint, type ResolvedCredentials, loginHint, resolveCredentials} from '../api/auth.js'
import {checkBaseUrl, noBaseUrlHint} from '../api/base-url.js'
import {type ApiVersion, DEFAULT_API_VERSION, type MoneyUnit} from '../domain/schema.js'
import {secondsFromEnv} from '../domain/env.js'
import {shellWord} from '../domain/argv.js'
import {AuthError, UsageError} from '../errors.js'
import {type ConfigData, ConfigStore, type Profile, selectProfileName} from '../config/config-store.js'
import {configDir} from '../config/paths.js'
import type {IOStreams} from '../io/streams.js'
import {sanitize} from '../io/sanitize.js'

export interface ContextFlags {
  profile?: string
  'base-url'?: string
  'api-version'?: ApiVersion
  'max-wait'?: number
  'allow-insecure-http'?: boolean
  debug?: boolean
  'dry-run'?: boolean
}

export interface ContextOptions {
  flags: ContextFlags
  io: IOStreams
  env: NodeJS.ProcessEnv
  userAgent: string
  /** The v2 command to name in deprecation warnings. */
  v2Hint?: string
  /** The command creates the profile it names (`auth login`): a --profile that does not exist yet is no error. */
  createsProfile?: boolean
  /** The command's clock (its deps): the client's, for 429 waits and deprecation dates. */
  now?: () => number
  /** Where its changes to the account come from, for the history; none: its client records nothing. */
  history?: HistorySource
}

import {type HistorySource, type RecorderDeps, recorder, recordRun, type RunRecord} from './history-recorder.js'

// Where they were first declared; the rules live in src/domain/url.ts and src/api/base-url.ts.
export {checkBaseUrl} from '../api/base-url.js'

export class Context {
  readonly store: ConfigStore
  private dataCache?: ConfigData
  private clients = new Map<string, ApiClient>()
  private creds?: ResolvedCredentials

  constructor(readonly options: ContextOptions) {
    this.store = new ConfigStore(configDir(options.env), (message) => options.io.warnOnce('config-readonly', message))
  }

  get env(): NodeJS.ProcessEnv {
    return this.options.env
  }

  async data(): Promise<ConfigData> {
    this.dataCache ??= await this.store.read()
    return this.dataCache
  }

  async profileName(): Promise<string> {
    return selectProfileName(await this.data(), this.options.flags.profile, this.env, {
      loginFlags: this.userFlags(['base-url', 'api-version']),
      mayCreate: this.options.createsProfile,
    })
  }

  async profile(): Promise<Profile | undefined> {
    return (await this.data()).profiles?.[await this.profileName()]
  }

  /** The unit of the service's amounts (config/money-unit.ts decides it; loaded when asked, as it may read the sandbox's state). */
  async moneyUnit(): Promise<MoneyUnit | undefined> {
    const profile = await this.profile().catch(() => undefined)
    const {moneyUnitOf} = await import('../config/money-unit.js')
    return moneyUnitOf(profile?.money_unit, await this.knownBaseUrl().catch(() => undefined), this.env)
  }

  /** --base-url > COMMERCE_BASE_URL > the profile's, unchecked; undefined when none is set. */
  async knownBaseUrl(): Promise<string | undefined> {
    return this.options.flags['base-url'] || this.env.COMMERCE_BASE_URL || (await this.profile())?.base_url
  }

  /**
   * The base URL in effect (knownBaseUrl), checked. None at all is not_logged_in (exit 3), as no credentials are: the
   * state of a CI job whose secrets are unset, which a script tells from a typo by the code.
   */
  async baseUrl(): Promise<string> {
    const url = await this.knownBaseUrl()
    if (!url) throw new AuthError('No base URL is set.', {code: 'not_logged_in', hint: noBaseUrlHint(this.userFlags(['profile', 'api-version']))})
    return checkBaseUrl(url, {allowInsecureHttp: await this.allowInsecureHttp(), hintFlags: this.userFlags(['profile', 'api-version'])})
  }

  /** Plain http:// to a host that is not loopback: --allow-insecure-http, or the profile's `allow_insecure_http`. */
  async allowInsecureHttp(): Promise<boolean> {
    return Boolean(this.options.flags['allow-insecure-http']) || (await this.profile())?.allow_insecure_http === 'true'
  }

  /**
   * The user's own `--profile`, `--base-url` and `--api-version`, as flags to repeat in a hint (` --profile
   * staging --base-url https://…`), so that the command a hint gives acts where the failing one did.
   */
  userFlags(names: ReadonlyArray<'api-version' | 'base-url' | 'profile'> = ['profile', 'base-url', 'api-version']): string {
    const {flags} = this.options
    return names
      .filter((name) => flags[name])
      .map((name) => ` --${name} ${shellWord(String(flags[name]))}`)
      .join('')
  }

  async apiVersion(): Promise<ApiVersion> {
    return this.options.flags['api-version'] ?? (await this.profile())?.api_version ?? DEFAULT_API_VERSION
  }

  /** ` --profile NAME` when v1 comes from the profile's `api_version`, not a flag; else undefined. */
  private async v1FromProfile(): Promise<string | undefined> {
    if (this.options.flags['api-version'] || (await this.profile())?.api_version !== 'v1') return undefined
    return ` --profile ${shellWord(await this.profileName())}`
  }

  async credentials(): Promise<ResolvedCredentials> {
    this.creds ??= resolveCredentials(this.env, await this.data(), await this.profileName(), this.store, {
      baseUrlOverride: this.baseUrlOverride(),
      loginHint: loginHint(this.userFlags()),
    })
    return this.creds
  }

  /** `--base-url` or COMMERCE_BASE_URL, which take precedence over the profile's base_url, and which of them. */
  private baseUrlOverride(): BaseUrlOverride | undefined {
    const flag = this.options.flags['base-url']
    if (flag) return {from: '--base-url', url: flag}
    if (this.env.COMMERCE_BASE_URL) return {from: 'COMMERCE_BASE_URL', url: this.env.COMMERCE_BASE_URL}
    return undefined
  }

  /** The API client for the resolved base URL (or `baseUrl`), with the credentials in effect. */
  async client(overrides: Partial<ClientOptions> = {}): Promise<ApiClient> {
    const baseUrl = overrides.baseUrl ?? (await this.baseUrl())
    const key = `${baseUrl} ${overrides.apiVersion ?? ''} ${overrides.dryRun === true ? 'dry-run' : ''}`
    let client = this.clients.get(key)
    if (!client) {
      const {io} = this.options
      client = new ApiClient({
        allowInsecureHttp: await this.allowInsecureHttp(),
        apiVersion: await this.apiVersion(),
        baseUrl,
        // A trace shows what the service sent (bodies, header values): through the sanitizer, as everything from outside.
        debug: this.options.flags.debug ? (line) => io.info(io.chalk.dim(sanitize(line, 'terminal'))) : undefined,
        maxWaitSeconds: this.options.flags['max-wait'],
        dryRun: this.options.flags['dry-run'] === true,
        now: this.options.now,
        // The spinner module (and the width measures it loads) only when a wait happens.
        onWait(status) {
          let stopped = false
          let stop = () => {}
          void import('../io/spinner.js').then(({Spinner}) => {
            if (stopped) return
            const spinner = new Spinner(io).start(status)
            stop = () => spinner.stop()
          })
          return () => {
            stopped = true
            stop()
          }
        },
        maxResponseBytes: readMaxBytes(this.env),
        timeoutMs: readTimeout(this.env),
        tokens: (await this.credentials()).tokens,
        loginHint: credentialHint((await this.credentials()).source, this.userFlags()),
        userAgent: this.options.userAgent,
        v1FromProfile: await this.v1FromProfile(),
        v2Hint: this.options.v2Hint,
        warnOnce: (k, text) => io.warnOnce(k, text),
        recordChange: this.options.history && recorder(this.options.history, baseUrl, this.recorderDeps()),
        // A raw request is sent as given: nothing is read before it for the history (`before` is then null).
        readBeforeChange: this.options.history?.surface !== 'api',
        ...overrides,
      })
      this.clients.set(key, client)
    }
    return client
  }

  /** An import or a fixtures run, as one entry of the history (history-recorder.ts). */
  async recordRun(run: RunRecord): Promise<void> {
    await recordRun(run, await this.baseUrl(), this.recorderDeps())
  }

  private recorderDeps(): RecorderDeps {
    return {
      env: this.env,
      now: this.options.now ?? Date.now,
      profile: async () => ({name: await this.profileName(), setting: (await this.profile())?.history}),
      warn: (text) => this.options.io.warnOnce('history', text),
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close().catch(() => {})))
  }
}

/** COMMERCE_HTTP_TIMEOUT: seconds for one whole exchange, body included (default 30). */
function readTimeout(env: NodeJS.ProcessEnv): number | undefined {
  return secondsFromEnv(env, 'COMMERCE_HTTP_TIMEOUT')
}

/** COMMERCE_HTTP_MAX_BYTES: the bound on a response body, in bytes or with a unit (`64MiB`, `512KiB`, `1GiB`). */
export function readMaxBytes(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.COMMERCE_HTTP_MAX_BYTES
  if (!raw) return undefined
  const m = /^\s*(\d+)\s*(?:(k|m|g)(?:i?b)?|b)?\s*$/i.exec(raw)
  const n = m ? Number(m[1]) * 1024 ** ({g: 3, k: 1, m: 2}[m[2]?.toLowerCase() as 'g' | 'k' | 'm'] ?? 0) : Number.NaN
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new UsageError(`COMMERCE_HTTP_MAX_BYTES must be a positive number of bytes, e.g. 33554432 or 32MiB (got ${JSON.stringify(raw)}).`)
  return n
}
