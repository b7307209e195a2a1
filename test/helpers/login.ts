/**
 * Shared set-up for the end-to-end tests: environments that point the CLI at a server with credentials, config
 * files written through the real ConfigStore, tokens issued straight from the sandbox (no CLI), and a recorder
 * that proves no request was sent.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {ConfigStore, type ConfigData, type Profile, ensureProfile} from '../../src/config/config-store.js'
import {type FaultyServer, type RecordedRequest, startFaultyServer} from './faulty-server.js'

export interface Key {
  key_id: string
  key_secret: string
}

/** The CLI's environment for an env key pair (COMMERCE_KEY_ID/SECRET) against `baseUrl`. */
export function keyPairEnv(dir: string, baseUrl: string, key: Key): Record<string, string> {
  return {COMMERCE_BASE_URL: baseUrl, COMMERCE_CONFIG_DIR: dir, COMMERCE_KEY_ID: key.key_id, COMMERCE_KEY_SECRET: key.key_secret}
}

/** Writes (or merges into) a profile with the real config store; `choose` makes it the chosen profile. */
export async function storeProfile(dir: string, name: string, profile: Profile, options: {choose?: boolean} = {}): Promise<void> {
  await new ConfigStore(dir).update((data) => {
    Object.assign(ensureProfile(data, name), profile)
    if (options.choose) data.current_profile = name
  })
}

/** The config file as JSON.parse reads it (throws when it is not valid JSON). */
export function readConfig(dir: string): ConfigData {
  return JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as ConfigData
}

/** POST /api/v2/auth/tokens on the sandbox itself: a token for COMMERCE_ACCESS_TOKEN tests. */
export async function issueToken(baseUrl: string, key: Key): Promise<string> {
  const res = await fetch(`${baseUrl}/api/v2/auth/tokens`, {
    body: JSON.stringify({key_id: key.key_id, key_secret: key.key_secret}),
    headers: {'content-type': 'application/json'},
    method: 'POST',
  })
  if (res.status !== 201) throw new Error(`token issue failed: ${res.status}`)
  return ((await res.json()) as {access_token: string}).access_token
}

/** The HTTP status the sandbox gives `token` on an authenticated read. */
export async function tokenStatus(baseUrl: string, token: string): Promise<number> {
  const res = await fetch(`${baseUrl}/api/v2/customers?per_page=1`, {headers: {authorization: `Bearer ${token}`}})
  await res.arrayBuffer()
  return res.status
}

/** A server that records every request and answers 500: a test asserting `requests.length === 0` proves nothing was sent. */
export function startRecorder(): Promise<FaultyServer> {
  return startFaultyServer(() => ({body: {message: 'the recorder should not have been called'}, status: 500}))
}

/** Requests whose method matches and whose path (without query) ends with `pathEnd`. */
export function requestsTo(requests: RecordedRequest[], method: string, pathEnd: string): RecordedRequest[] {
  return requests.filter((r) => r.method === method && r.url.split('?')[0].endsWith(pathEnd))
}

export function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1
}

export const ANSI = /\u001B\[/
