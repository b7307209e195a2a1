/**
 * config.json's declared shape: the types the CLI reads and the one table of profile fields, checked when the file
 * is read (conf hands the text to `parseConfig`), so a hand-edited `"base_url": 5` is exit 2 naming the key, not a
 * crash later. A new profile key is one line in PROFILE_FIELDS (and its type in Profile).
 */
import type {ApiVersion} from '../domain/schema.js'
import {isObject} from '../domain/json.js'
import {UsageError} from '../errors.js'

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
  /** Endpoints `webhooks listen` registered, id -> URL: `webhooks list` says which no longer answer. */
  listen_endpoints?: Record<string, string>
  /** The unit of the service's money amounts (`minor`, `major`), for how a terminal shows them. */
  money_unit?: string
  /** Where the key secret is kept: `keyring` (the OS keyring, `key_secret` then absent here) or `file` (default). */
  storage?: string
  /** `off`: this profile's changes to the account are not recorded in the history (config/history.ts). */
  history?: string
  /**
   * The origin the key pair was stored for (`auth login`, or `config set key_id` at the profile's base URL): it is
   * sent nowhere else, also after `config set base_url` names another origin. Absent in older files: the origin of
   * `base_url` then.
   */
  credentials_origin?: string
}

export interface ConfigData {
  current_profile?: string
  profiles?: Record<string, Profile>
  /** Tokens issued for COMMERCE_KEY_ID/COMMERCE_KEY_SECRET, keyed by base URL, key id and scopes. */
  token_cache?: Record<string, CachedToken>
  /** Set once `auth login` has mentioned `--storage keyring`: the hint is never repeated. */
  keyring_hint_shown?: boolean
  /** `commerce alias set NAME EXPANSION`: per user, whatever the profile. A hand-edited value may be no string. */
  aliases?: Record<string, unknown>
}

/** How a profile field is declared: its type, and what the CLI does with it. */
export interface FieldSpec {
  type: 'string' | 'strings' | 'map'
  /** `config get`/`set`/`unset`/`list` show and change it; in this table's order. */
  settable?: boolean
  /** Shown masked: the CLI prints it only where a command exists to print it (`auth token`, `webhooks secret`). */
  secret?: boolean
  /** Part of the cached access token: written and erased together, only by setProfileToken. */
  token?: boolean
  /** Names the credentials: a change makes the cached token useless (it is erased). */
  credential?: boolean
  /** Written by `auth login`, erased by logout with the token. */
  login?: boolean
  /** Environment variables that take precedence over it when set (said by `config get`/`list`). */
  env?: readonly string[]
}

/**
 * Every field of a profile, once: its type (checked when the file is read, so a hand-edited `"base_url": 5` is
 * exit 2 naming the key, not a crash later) and its roles. The `config` commands, the masking, the token's
 * writes and erasures and the read-time check are derived from it. A new field is one line here (and its type in
 * Profile, which `satisfies` below keeps in step). Unknown keys in the file are kept as they are.
 */
export const PROFILE_FIELDS = {
  base_url: {credential: true, env: ['COMMERCE_BASE_URL'], settable: true, type: 'string'},
  api_version: {settable: true, type: 'string'},
  key_id: {credential: true, env: ['COMMERCE_ACCESS_TOKEN', 'COMMERCE_KEY_ID'], login: true, settable: true, type: 'string'},
  key_secret: {credential: true, env: ['COMMERCE_ACCESS_TOKEN', 'COMMERCE_KEY_SECRET'], login: true, secret: true, settable: true, type: 'string'},
  allow_insecure_http: {settable: true, type: 'string'},
  storage: {settable: true, type: 'string'},
  money_unit: {settable: true, type: 'string'},
  history: {env: ['COMMERCE_NO_HISTORY'], settable: true, type: 'string'},
  requested_scopes: {login: true, type: 'strings'},
  credentials_origin: {login: true, type: 'string'},
  access_token: {secret: true, token: true, type: 'string'},
  expires_at: {token: true, type: 'string'},
  scopes: {token: true, type: 'strings'},
  token_base_url: {token: true, type: 'string'},
  webhook_secrets: {secret: true, type: 'map'},
  listen_port: {type: 'string'},
  listen_endpoints: {type: 'map'},
} as const satisfies Record<keyof Profile, FieldSpec>

type Fields = typeof PROFILE_FIELDS
type FieldName = keyof Fields
const FIELD_NAMES = Object.keys(PROFILE_FIELDS) as FieldName[]
const spec = (name: FieldName): FieldSpec => PROFILE_FIELDS[name]

/** The keys the `config` commands take, in the order `config list` shows them. */
export type ConfigKey = {[K in FieldName]: Fields[K] extends {settable: true} ? K : never}[FieldName]
export const CONFIG_KEYS = FIELD_NAMES.filter((k): k is ConfigKey => spec(k).settable === true)
export const isSecretField = (name: FieldName): boolean => spec(name).secret === true
export const isCredentialField = (name: FieldName): boolean => spec(name).credential === true
export const envOverrides = (name: FieldName): readonly string[] => spec(name).env ?? []
const TOKEN_FIELDS = FIELD_NAMES.filter((k) => spec(k).token === true)
const LOGIN_FIELDS = FIELD_NAMES.filter((k) => spec(k).login === true)

/** The one way a profile's cached token is written (all its fields, for the base URL that issued it) or erased. */
export function setProfileToken(p: Profile, token: CachedToken | undefined): void {
  if (!token) {
    for (const k of TOKEN_FIELDS) delete p[k]
    return
  }
  p.access_token = token.access_token
  p.expires_at = token.expires_at
  p.scopes = token.scopes
  p.token_base_url = token.base_url
}

/** Logout: the key pair, the scopes asked for and the token go; the rest of the profile stays. */
export function forgetCredentials(p: Profile): void {
  for (const k of LOGIN_FIELDS) delete p[k]
  setProfileToken(p, undefined)
}

const TOKEN_FIELD_TYPES: Record<keyof CachedToken, 'string' | 'strings'> = {
  access_token: 'string',
  base_url: 'string',
  expires_at: 'string',
  scopes: 'strings',
}

export function typeName(value: unknown): string {
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
      for (const [key, {type}] of Object.entries(PROFILE_FIELDS)) {
        const problem = checkField(`${where}.${key}`, type, profile[key])
        if (problem) return problem
      }
    }
  }
  // An alias that is not a string is left out where aliases are used (services/aliases.ts names it in a warning):
  // one bad value does not make the whole file unreadable.
  if (data.aliases !== undefined && !isObject(data.aliases)) return `aliases must be an object (it is ${typeName(data.aliases)})`
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

/** config.json's text as the store uses it: JSON, of the declared shape, else exit 2 naming the file and the key. */
export function parseConfig(text: string, path: string): ConfigData {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`The config file ${path} is not valid JSON (${(error as Error).message}).`, {hint: `Fix or remove ${path}.`})
  }
  const problem = configProblem(data)
  if (problem) throw new UsageError(`The config file ${path} is not valid: ${problem}.`, {hint: `Fix or remove ${path}.`})
  return data as ConfigData
}
