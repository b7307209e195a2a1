/**
 * The config file (conf, `config.json` in the config directory, mode 0600 in a 0700 directory): named profiles,
 * the current profile, and a token cache for key pairs given through the environment.
 *
 * Several `commerce` processes may share the file (parallel CI jobs). conf writes atomically (temp file +
 * rename), so the file is always valid JSON; `update` adds a lock around read-modify-write so that one
 * process's change does not overwrite another's. When the directory is not writable, changes are kept in
 * memory for this process and `onReadOnly` is told once.
 */
import {mkdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import {join} from 'node:path'
import type Conf from 'conf'

import type {ApiVersion} from '../domain/schema.js'
import {CliError} from '../errors.js'
import {CONFIG_FILE, configDir} from './paths.js'

export interface CachedToken {
  access_token: string
  /** ISO date-time. */
  expires_at: string
  scopes: string[]
  /** The base URL the token was issued by. */
  base_url: string
}

export interface Profile {
  base_url?: string
  api_version?: ApiVersion
  key_id?: string
  key_secret?: string
  /** `true`: plain http:// to a host that is not loopback is allowed for this profile. */
  allow_insecure_http?: string
  /** Scopes asked for at login; absent means every scope the key is entitled to. */
  requested_scopes?: string[]
  access_token?: string
  expires_at?: string
  scopes?: string[]
  token_base_url?: string
  /** Webhook signing secrets by endpoint id. */
  webhook_secrets?: Record<string, string>
}

export interface ConfigData {
  current_profile?: string
  profiles?: Record<string, Profile>
  /** Tokens issued for COMMERCE_KEY_ID/COMMERCE_KEY_SECRET, keyed by base URL, key id and scopes. */
  token_cache?: Record<string, CachedToken>
}

export const DEFAULT_PROFILE = 'default'
const LOCK_STALE_MS = 15_000
const LOCK_TIMEOUT_MS = 10_000

function isPermissionError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code
  return code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
}

export class ConfigStore {
  readonly dir: string
  readonly path: string
  private conf?: Conf<ConfigData>
  private memory?: ConfigData
  private warned = false

  constructor(
    dir: string = configDir(),
    private readonly onReadOnly: (message: string) => void = () => {},
  ) {
    this.dir = dir
    this.path = join(dir, CONFIG_FILE)
  }

  /** conf is imported lazily: commands that never touch the config do not pay for it. */
  private async open(): Promise<Conf<ConfigData>> {
    if (this.conf) return this.conf
    try {
      mkdirSync(this.dir, {mode: 0o700, recursive: true})
    } catch (error) {
      if (!isPermissionError(error)) throw error
    }
    const {default: ConfClass} = await import('conf')
    this.conf = new ConfClass<ConfigData>({
      accessPropertiesByDotNotation: false,
      configFileMode: 0o600,
      configName: CONFIG_FILE.replace(/\.json$/, ''),
      cwd: this.dir,
      projectSuffix: '',
    })
    return this.conf
  }

  /** Read straight from the file (conf writes it atomically, so it is always whole): conf loads only to write. */
  async read(): Promise<ConfigData> {
    if (this.memory) return structuredClone(this.memory)
    try {
      return JSON.parse(readFileSync(this.path, 'utf8')) as ConfigData
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
      if (error instanceof SyntaxError)
        throw new CliError(`The config file ${this.path} is not valid JSON (${error.message}). Fix or remove it.`)
      if (isPermissionError(error)) return {}
      throw error
    }
  }

  /**
   * Locked read-modify-write: `mutate` may be async (a token issue runs inside, so that parallel processes
   * renewing one token wait for the first and reuse its token). The file is written only when `mutate`
   * returns normally and changed something.
   */
  async update<T>(mutate: (data: ConfigData) => Promise<T> | T): Promise<T> {
    if (this.memory) return mutate(this.memory)
    let release: (() => void) | undefined
    try {
      release = await this.lock()
    } catch (error) {
      if (!isPermissionError(error)) throw error
      return this.toMemory(mutate, error)
    }
    try {
      const data = await this.read()
      const before = JSON.stringify(data)
      const result = await mutate(data)
      if (JSON.stringify(data) !== before) {
        try {
          ;(await this.open()).store = data
        } catch (error) {
          if (!isPermissionError(error)) throw error
          this.toMemoryWarn(error)
          this.memory = data
        }
      }
      return result
    } finally {
      release?.()
    }
  }

  private async toMemory<T>(mutate: (data: ConfigData) => Promise<T> | T, error: unknown): Promise<T> {
    let data: ConfigData = {}
    try {
      data = await this.read()
    } catch {}
    this.memory = data
    this.toMemoryWarn(error)
    return mutate(this.memory)
  }

  private toMemoryWarn(error: unknown): void {
    if (this.warned) return
    this.warned = true
    this.onReadOnly(`cannot write ${this.path} (${(error as NodeJS.ErrnoException).code}); keeping changes in memory for this command only.`)
  }

  /** A lock directory beside the file (mkdir is atomic); a lock older than 15 s is taken as stale. */
  private async lock(): Promise<() => void> {
    mkdirSync(this.dir, {mode: 0o700, recursive: true})
    const lockPath = `${this.path}.lock`
    const deadline = Date.now() + LOCK_TIMEOUT_MS
    for (;;) {
      try {
        mkdirSync(lockPath)
        return () => rmSync(lockPath, {force: true, recursive: true})
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      try {
        if (Date.now() - statSync(lockPath).mtimeMs > LOCK_STALE_MS) rmSync(lockPath, {force: true, recursive: true})
      } catch {}
      if (Date.now() > deadline)
        throw new CliError(`The config file is locked by another commerce process (${lockPath}). If none is running, remove that directory.`)
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20))
    }
  }
}

/** Profile selection: --profile > COMMERCE_PROFILE > the chosen profile > `default`. */
export function selectProfileName(data: ConfigData, flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag || env.COMMERCE_PROFILE || data.current_profile || DEFAULT_PROFILE
}

/** Creates the profile when missing; the first profile ever created becomes the chosen one. */
export function ensureProfile(data: ConfigData, name: string): Profile {
  data.profiles ??= {}
  if (!data.profiles[name]) {
    data.profiles[name] = {}
    data.current_profile ??= name
  }
  return data.profiles[name]
}

/** A secret (key secret, signing secret) as shown to people: never any of its characters. */
export function maskSecret(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? value : '********'
}

/** An access token as shown in traces and status: at most its first 4 characters, then an ellipsis. */
export function abbreviateToken(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? value : `${value.slice(0, 4)}…`
}
