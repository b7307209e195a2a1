/**
 * The sandbox state file (`sandbox.json` in the config directory): written by `sandbox start`, read by
 * `auth login --sandbox`, `webhooks trigger`/`listen` and `sandbox status|stop`. The CLI knows it faces the
 * local sandbox when the base URL is the one recorded here. Reading it loads no node:crypto (the money unit of a
 * command's output may ask for it); writing it is sandbox-state-write.ts's.
 */
import {rmSync} from 'node:fs'

import {readOwnFileSync} from '../domain/own-file.js'
import {SANDBOX_STATE_FILE, configPath} from './paths.js'
import {isProcessAlive} from '../domain/processes.js'

export interface SandboxKey {
  key_id: string
  key_secret: string
  scopes: string[]
}

export interface SandboxState {
  base_url: string
  pid: number
  keys: SandboxKey[]
  /** The unit of the sandbox's amounts (`minor`), stored in the profile by `auth login --sandbox`. */
  money_unit?: string
  data_file?: string | null
  started_at?: string
  /** The names and ids of the scenario `--seed` applied (a detached start's --json prints them). */
  seeded?: Record<string, number | string>
}

/** A base URL, a pid and a few keys: far under this. */
const STATE_MAX_BYTES = 256 * 1024

export function sandboxStatePath(env: NodeJS.ProcessEnv = process.env): string {
  return configPath(SANDBOX_STATE_FILE, env)
}

/** The running sandbox, or undefined (a state file whose process is gone is removed). */
export function readSandboxState(env: NodeJS.ProcessEnv = process.env): SandboxState | undefined {
  const path = sandboxStatePath(env)
  let state: SandboxState
  try {
    state = JSON.parse(readOwnFileSync(path, STATE_MAX_BYTES)) as SandboxState
  } catch {
    return undefined
  }
  if (typeof state?.base_url !== 'string' || !Number.isInteger(state.pid)) return undefined
  if (!isProcessAlive(state.pid)) {
    rmSync(path, {force: true})
    return undefined
  }
  return state
}

export function removeSandboxState(env: NodeJS.ProcessEnv = process.env, pid?: number): void {
  const path = sandboxStatePath(env)
  if (pid !== undefined) {
    try {
      if ((JSON.parse(readOwnFileSync(path, STATE_MAX_BYTES)) as SandboxState).pid !== pid) return
    } catch {
      return
    }
  }
  rmSync(path, {force: true})
}

/** The running local sandbox, when `baseUrl` is its address. */
export function sandboxAt(baseUrl: string, env: NodeJS.ProcessEnv = process.env): SandboxState | undefined {
  const state = readSandboxState(env)
  return state !== undefined && state.base_url.replace(/\/+$/, '') === baseUrl.replace(/\/+$/, '') ? state : undefined
}

/** Whether `baseUrl` is the running local sandbox. */
export function isSandboxUrl(baseUrl: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return sandboxAt(baseUrl, env) !== undefined
}
