/**
 * config.json's declared shape: the types the CLI reads and the one table of profile fields, checked when the file
 * is read (conf hands the text to `parseConfig`), so a hand-edited `"base_url": 5` is exit 2 naming the key, not a
 * crash later. A new profile key is one line in PROFILE_FIELD_TYPES (and its type in Profile).
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
