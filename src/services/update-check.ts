/**
 * The update notice, as gh's: at most once a day a detached process asks the npm registry for the latest release
 * (`GET <registry>/commerce-cli/latest`, the registry's documented API) and writes what it learned to
 * `update-check.json` in the config directory; a command that finishes on a terminal reads that file (a few hundred
 * bytes) and, when a newer release is known, says so on stderr with the way to update for how this copy was
 * installed. Nothing is asked of the network while a command runs, so no command is slower.
 *
 * Never on stdout, never with --json, never without a terminal on stderr, never under CI, never with
 * COMMERCE_SKIP_UPDATE_CHECK=1. Why not @oclif/plugin-warn-if-update-available: it cost every command 100-130 ms
 * and printed its notice under --json too (measured, see the issue that asked for this).
 */
import {existsSync, readFileSync} from 'node:fs'
import {mkdir} from 'node:fs/promises'
import {join, sep} from 'node:path'

import {configDir, configPath} from '../config/paths.js'

export const UPDATE_STATE_FILE = 'update-check.json'
/** How often the registry is asked. */
export const UPDATE_CHECK_INTERVAL_MS = 24 * 60 * 60 * 1000
/** The detached check gives up after this long. */
export const UPDATE_CHECK_TIMEOUT_MS = 5000
const PACKAGE = 'commerce-cli'

interface State {
  checked_at: number
  latest?: string
}

export type InstallKind = 'clone' | 'deb' | 'tarball' | 'npm'

/**
 * How this copy was installed, from where it runs: a clone, the deb (whose launcher, oclif's, exports
 * COMMERCE_UPDATE_INSTRUCTIONS naming apt; or its install folder), a standalone tarball, or npm.
 */
export function installKind(root: string, execPath: string, env: NodeJS.ProcessEnv): InstallKind {
  if (existsSync(join(root, '.git'))) return 'clone'
  if (/\bapt\b/.test(env.COMMERCE_UPDATE_INSTRUCTIONS ?? '') || root.startsWith(`${sep}usr${sep}lib${sep}commerce`)) return 'deb'
  // oclif's standalone builds carry their own Node in bin/node beside the launcher.
  if (execPath === join(root, 'bin', 'node')) return 'tarball'
  return 'npm'
}

/** Whether a notice may be shown (and a check started) for this run. */
export function updateNoticeWanted(env: NodeJS.ProcessEnv, terminal: {stderrTTY: boolean; json: boolean}): boolean {
  if (env.COMMERCE_SKIP_UPDATE_CHECK === '1' || env.CI) return false
  return terminal.stderrTTY && !terminal.json
}

/** a > b for x.y.z versions; a pre-release is never newer than its release. */
export function newer(a: string, b: string): boolean {
  const parse = (v: string) => {
    const m = /^v?(\d+)\.(\d+)\.(\d+)(-.*)?$/.exec(v.trim())
    return m ? {nums: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] !== undefined} : undefined
  }
  const x = parse(a)
  const y = parse(b)
  if (!x || !y || x.pre) return false
  for (let i = 0; i < 3; i++) if (x.nums[i] !== y.nums[i]) return x.nums[i] > y.nums[i]
  return !x.pre && y.pre
}

function readState(env: NodeJS.ProcessEnv): State | undefined {
  try {
    const data = JSON.parse(readFileSync(configPath(UPDATE_STATE_FILE, env), 'utf8')) as State
    return typeof data.checked_at === 'number' ? data : undefined
  } catch {
    return undefined
  }
}

/** How to update a copy installed this way. */
export function updateCommand(kind: InstallKind): string {
  switch (kind) {
    case 'npm':
      return `npm install -g ${PACKAGE}`
    case 'deb':
      return 'download the new commerce_<version>_amd64.deb from the releases, then: `sudo apt install ./commerce_<version>_amd64.deb`'
    case 'tarball':
      return 'download the new commerce-linux-x64.tar.gz from the releases and unpack it over this one'
    case 'clone':
      return 'git pull && npm ci && npm run build'
  }
}

export interface UpdateNoticeOptions {
  env: NodeJS.ProcessEnv
  /** The Node running this copy (a standalone build carries its own, in bin/). */
  execPath: string
  version: string
  root: string
  now: () => number
  /** Starts the detached check (the command's process ends without waiting for it). */
  startCheck: () => Promise<void>
}

/**
 * At the end of a command: the notice to print (or undefined), after starting the day's check when it is due.
 * Reads one small file; never waits on the network.
 */
export async function updateNotice(o: UpdateNoticeOptions): Promise<string | undefined> {
  const state = readState(o.env)
  if (!state || o.now() - state.checked_at >= UPDATE_CHECK_INTERVAL_MS || o.now() < state.checked_at) await o.startCheck()
  if (!state?.latest || !newer(state.latest, o.version)) return undefined
  return `A new release of commerce is available: ${o.version} → ${state.latest}. To update: ${updateCommand(installKind(o.root, o.execPath, o.env))}. (COMMERCE_SKIP_UPDATE_CHECK=1 turns this off.)`
}

/**
 * Starts `node <bin> update-check` detached, its output nowhere: the command's process does not wait for it.
 * node:child_process is loaded here, once a day, not by every command that loads this module.
 */
export async function spawnUpdateCheck(root: string, env: NodeJS.ProcessEnv): Promise<void> {
  try {
    const {spawn} = await import('node:child_process')
    spawn(process.execPath, [join(root, 'bin', 'run.js'), 'update-check'], {detached: true, env, stdio: 'ignore'}).unref()
  } catch {}
}

/**
 * The detached check itself: the registry's latest version, within UPDATE_CHECK_TIMEOUT_MS, written to the state
 * file with the time. A registry that fails or never answers still records the attempt, so it is asked again only
 * the next day.
 */
export async function checkForUpdate(env: NodeJS.ProcessEnv, now: () => number): Promise<void> {
  const registry = (env.COMMERCE_UPDATE_REGISTRY || env.npm_config_registry || 'https://registry.npmjs.org').replace(/\/+$/, '')
  let latest: string | undefined
  try {
    const res = await fetch(`${registry}/${PACKAGE}/latest`, {
      headers: {accept: 'application/json'},
      signal: AbortSignal.timeout(UPDATE_CHECK_TIMEOUT_MS),
    })
    if (res.ok) {
      const body = (await res.json()) as {version?: unknown}
      if (typeof body.version === 'string' && /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(body.version)) latest = body.version
    }
  } catch {}
  const state: State = {checked_at: now(), ...(latest ? {latest} : {})}
  await mkdir(configDir(env), {mode: 0o700, recursive: true}).catch(() => {})
  // Loaded here, by the detached check only: every command loads this module (the postrun hook), and files.js
  // brings node:crypto with it.
  const {writeFileAtomic} = await import('../domain/files.js')
  await writeFileAtomic(configPath(UPDATE_STATE_FILE, env), JSON.stringify(state)).catch(() => {})
}
