/**
 * The config file (`config.json` in the config directory, mode 0600 in a 0700 directory): named profiles, the
 * current profile, and a token cache for key pairs given through the environment.
 *
 * Several `commerce` processes may share the file (parallel CI jobs). Writes are atomic (an exclusive temp file
 * renamed over it), so the file is always whole; `update` is a read-modify-write under a short lock (lock.ts) that
 * never spans network I/O: a token is issued outside it (`withIssueLock`, a second lock that only serialises token
 * issues) and merged in afterwards, so a `config set` run meanwhile is kept. A directory that cannot be read or
 * written (EACCES, EPERM, EROFS, ENOTDIR, EISDIR...) is a warning (`onReadOnly`, once) and changes kept in memory
 * for this process. A file that is not what the CLI writes (invalid JSON, a wrong type) is exit 2 naming the key.
 */
import {mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import type {ApiVersion} from '../domain/schema.js'
import {writeFileAtomic} from '../domain/files.js'
import {isObject} from '../domain/json.js'
import {CliError, UsageError} from '../errors.js'
import {type HeldLock, LockTimeoutError, acquireLock} from './lock.js'
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
  /** The local port of the last `webhooks listen` without --port, taken again when free (same URL, same endpoint). */
  listen_port?: string
  /** The unit of the service's money amounts (`minor`, `major`), for how a terminal shows them. */
  money_unit?: string
  /** Where the key secret is kept: `keyring` (the OS keyring, `key_secret` then absent here) or `file` (default). */
  storage?: string
}

export interface ConfigData {
  current_profile?: string
  profiles?: Record<string, Profile>
  /** Tokens issued for COMMERCE_KEY_ID/COMMERCE_KEY_SECRET, keyed by base URL, key id and scopes. */
  token_cache?: Record<string, CachedToken>
  /** Set once `auth login` has mentioned `--storage keyring`: the hint is never repeated. */
  keyring_hint_shown?: boolean
}

/**
 * The type of each profile field the CLI reads, checked when the file is read (a hand-edited `"base_url": 5` is
 * exit 2 naming the key, not a crash later). A new profile key adds one line here. Unknown keys are kept as they are.
 */
export const PROFILE_FIELD_TYPES: Record<string, 'string' | 'strings' | 'map'> = {
  access_token: 'string',
  allow_insecure_http: 'string',
  api_version: 'string',
  base_url: 'string',
  expires_at: 'string',
  key_id: 'string',
  key_secret: 'string',
  listen_port: 'string',
  money_unit: 'string',
  requested_scopes: 'strings',
  scopes: 'strings',
  storage: 'string',
  token_base_url: 'string',
  webhook_secrets: 'map',
}

const TOKEN_FIELD_TYPES: Record<keyof CachedToken, 'string' | 'strings'> = {
  access_token: 'string',
  base_url: 'string',
  expires_at: 'string',
  scopes: 'strings',
}

export const DEFAULT_PROFILE = 'default'
/** The config lock is held for a read, a change in memory and a write: milliseconds. */
const LOCK_STALE_MS = 5000
const LOCK_WAIT_MS = 10_000
/** The token-issue lock is held across one token request (COMMERCE_HTTP_TIMEOUT, 30 s by default, plus retries). */
const ISSUE_STALE_MS = 10_000
const ISSUE_WAIT_MS = 90_000

/** Errors that mean "this directory cannot be used", whatever the reason: warn and keep changes in memory. */
const UNUSABLE_DIR_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EISDIR', 'ENOENT', 'ELOOP', 'ENOSPC', 'EDQUOT', 'ENAMETOOLONG'])

function isUnusableDir(error: unknown): boolean {
  return UNUSABLE_DIR_CODES.has((error as NodeJS.ErrnoException)?.code ?? '')
}

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

function checkField(where: string, kind: 'map' | 'string' | 'strings', value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (kind === 'string' && typeof value !== 'string') return `${where} must be a string (it is ${typeName(value)})`
  if (kind === 'strings' && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) return `${where} must be an array of strings`
  if (kind === 'map' && !(isObject(value) && Object.values(value).every((v) => typeof v === 'string'))) return `${where} must be an object of strings`
  return undefined
}

/** The first thing in the file that is not what the CLI writes, as `key must be ...`; undefined when it is fine. */
export function configProblem(data: unknown): string | undefined {
  if (!isObject(data)) return `the file must hold a JSON object (it holds ${typeName(data)})`
  const top = checkField('current_profile', 'string', data.current_profile)
  if (top) return top
  if (data.profiles !== undefined) {
    if (!isObject(data.profiles)) return `profiles must be an object (it is ${typeName(data.profiles)})`
    for (const [name, profile] of Object.entries(data.profiles)) {
      const where = `profiles.${name}`
      if (!isObject(profile)) return `${where} must be an object (it is ${typeName(profile)})`
      for (const [key, kind] of Object.entries(PROFILE_FIELD_TYPES)) {
        const problem = checkField(`${where}.${key}`, kind, profile[key])
        if (problem) return problem
      }
    }
  }
  if (data.token_cache !== undefined) {
    if (!isObject(data.token_cache)) return `token_cache must be an object (it is ${typeName(data.token_cache)})`
    for (const [key, token] of Object.entries(data.token_cache)) {
      if (!isObject(token)) return `token_cache[${JSON.stringify(key)}] must be an object (it is ${typeName(token)})`
      for (const [field, kind] of Object.entries(TOKEN_FIELD_TYPES)) {
        const problem = checkField(`token_cache[${JSON.stringify(key)}].${field}`, kind, token[field])
        if (problem) return problem
      }
    }
  }
  return undefined
}

export class ConfigStore {
  readonly dir: string
  readonly path: string
  private memory?: ConfigData
  private warned = false
  /** Why the file could not be read or written (changes then live in memory only); undefined while it can. */
  readOnlyReason?: string

  constructor(
    dir: string = configDir(),
    private readonly onReadOnly: (message: string) => void = () => {},
  ) {
    this.dir = dir
    this.path = join(dir, CONFIG_FILE)
  }

  /** The file as it is now (or this process's in-memory copy once the directory proved unwritable). */
  async read(): Promise<ConfigData> {
    if (this.memory) return structuredClone(this.memory)
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
      if (!isUnusableDir(error)) throw error
      this.warn(
        `cannot read ${this.path} (${(error as NodeJS.ErrnoException).code}); using no saved settings and keeping changes in memory for this command only.`,
      )
      this.memory = {}
      return {}
    }
    let data: unknown
    try {
      data = JSON.parse(text)
    } catch (error) {
      throw new UsageError(`The config file ${this.path} is not valid JSON (${(error as Error).message}).`, {hint: `Fix or remove ${this.path}.`})
    }
    const problem = configProblem(data)
    if (problem) throw new UsageError(`The config file ${this.path} is not valid: ${problem}.`, {hint: `Fix or remove ${this.path}.`})
    return data as ConfigData
  }

  /**
   * Read-modify-write under the config lock: `mutate` gets the file as it is now and changes only what the
   * command changes, so that concurrent changes to other keys are kept. It must not do network I/O (the lock is
   * meant to be held for milliseconds). The file is written only when `mutate` returns normally and changed something.
   */
  async update<T>(mutate: (data: ConfigData) => Promise<T> | T): Promise<T> {
    if (this.memory) return mutate(this.memory)
    let lock: HeldLock
    try {
      mkdirSync(this.dir, {mode: 0o700, recursive: true})
      lock = await acquireLock(`${this.path}.lock`, {staleMs: LOCK_STALE_MS, waitMs: LOCK_WAIT_MS})
    } catch (error) {
      if (error instanceof LockTimeoutError)
        throw new CliError(`The config file is locked by another commerce process (${error.lockPath}).`, {
          hint: `If no commerce process is running, remove ${error.lockPath}.`,
        })
      if (!isUnusableDir(error)) throw error
      return this.toMemory(mutate, error)
    }
    try {
      const data = await this.read()
      if (this.memory) return mutate(this.memory) // the file proved unreadable
      const before = JSON.stringify(data)
      const result = await mutate(data)
      if (JSON.stringify(data) !== before) {
        if (lock.compromised)
          throw new CliError(`Another commerce process took over the lock on ${this.path}; nothing was written. Run the command again.`)
        try {
          await writeFileAtomic(this.path, JSON.stringify(data, undefined, '\t'), {mode: 0o600})
        } catch (error) {
          if (!isUnusableDir(error)) throw error
          this.memory = data
          this.warnMemory(error)
        }
      }
      return result
    } finally {
      lock.release()
    }
  }

  /**
   * Runs `issue` (a token request) holding the token-issue lock, so that parallel processes renewing one token
   * wait for the first and reuse its token; the config lock is not held meanwhile. The lock is refreshed while
   * held; a holder that died is taken over after 10 s. When the lock cannot be had (unwritable directory, or a
   * wait past 90 s), `issue` runs all the same: a second token is better than a failed command.
   */
  async withIssueLock<T>(issue: () => Promise<T>): Promise<T> {
    let lock: HeldLock | undefined
    if (!this.memory) {
      try {
        mkdirSync(this.dir, {mode: 0o700, recursive: true})
        lock = await acquireLock(`${this.path}.issue.lock`, {staleMs: ISSUE_STALE_MS, waitMs: ISSUE_WAIT_MS})
      } catch (error) {
        if (!(error instanceof LockTimeoutError) && !isUnusableDir(error)) throw error
      }
    }
    try {
      return await issue()
    } finally {
      lock?.release()
    }
  }

  private async toMemory<T>(mutate: (data: ConfigData) => Promise<T> | T, error: unknown): Promise<T> {
    let data: ConfigData = {}
    try {
      data = await this.read()
    } catch {}
    this.memory ??= data
    this.warnMemory(error)
    return mutate(this.memory)
  }

  private warnMemory(error: unknown): void {
    this.warn(`cannot write ${this.path} (${(error as NodeJS.ErrnoException).code}); keeping changes in memory for this command only.`)
  }

  private warn(message: string): void {
    if (this.warned) return
    this.warned = true
    this.readOnlyReason = message
    this.onReadOnly(message)
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
