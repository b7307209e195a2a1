/**
 * The update notice, as gh's: at most once a day a detached process asks the npm registry for the latest release
 * (`GET <registry>/<package name>/latest`, the registry's documented API) and writes what it learned to
 * `update-check.json` in the config directory; a command that finishes on a terminal reads that file (a few hundred
 * bytes) and, when a newer release of this project is known, says so on stderr with the way to update for how this
 * copy was installed. Nothing is asked of the network while a command runs, so no command is slower.
 *
 * Only our releases: a registry answer counts only when its manifest names the same repository as our package.json
 * (a package of the same name published by someone else, or a registry that answers for another package, is never
 * offered). At most once a day per config directory: the notice records when it was shown. One check at a time: a
 * marker file (`update-check.lock`, created exclusively) is taken before a check starts and kept as the time of the
 * last attempt, so concurrent commands start one check, and a state that cannot be written is asked for again only
 * after UPDATE_RETRY_MS, not on every command. The answer is read up to UPDATE_MAX_BYTES.
 *
 * Never on stdout, never with --json, never without a terminal on stderr, never under CI, never with
 * COMMERCE_SKIP_UPDATE_CHECK=1. Why not @oclif/plugin-warn-if-update-available: it cost every command 100-130 ms
 * and printed its notice under --json too (measured, see the issue that asked for this).
 */
import {existsSync, lstatSync, mkdirSync, renameSync, rmSync} from 'node:fs'
import {join, sep} from 'node:path'

import {configDir, configPath} from '../config/paths.js'
import {createWhole, readOwnFileSync} from '../domain/own-file.js'

export const UPDATE_STATE_FILE = 'update-check.json'
export const UPDATE_LOCK_FILE = 'update-check.lock'
/** How often the registry is asked, and how often a notice is shown. */
export const UPDATE_CHECK_INTERVAL_MS = 24 * 60 * 60 * 1000
/** A check whose state could not be written is tried again after this long (the marker's age). */
export const UPDATE_RETRY_MS = 60 * 60 * 1000
/** The detached check gives up after this long. */
export const UPDATE_CHECK_TIMEOUT_MS = 5000
/** The most of the registry's answer that is read (a version manifest is a few KiB). */
export const UPDATE_MAX_BYTES = 1024 * 1024
const STATE_MAX_BYTES = 64 * 1024

interface State {
  checked_at: number
  latest?: string
  /** When a notice was last shown (once a day per config directory). */
  notified_at?: number
}

export type InstallKind = 'clone' | 'deb' | 'tarball' | 'npm'

/** Who this copy is: its package name and the repository its package.json names (what a release must name too). */
export interface PackageIdentity {
  name: string
  repository: unknown
}

/**
 * A repository as one comparable string: `git+https://github.com/a/b.git`, `https://github.com/a/b`,
 * `git@github.com:a/b.git`, `github:a/b` and `{url: …}` are one repository; undefined for none.
 */
export function repositoryKey(repository: unknown): string | undefined {
  const raw = typeof repository === 'string' ? repository : (repository as {url?: unknown} | null)?.url
  if (typeof raw !== 'string' || raw.trim() === '') return undefined
  let text = raw.trim().toLowerCase()
  const shorthand = /^(github|gitlab|bitbucket):(.+)$/.exec(text)
  if (shorthand) text = `${shorthand[1]}.${shorthand[1] === 'bitbucket' ? 'org' : 'com'}/${shorthand[2]}`
  else if (/^[\w.-]+\/[\w.-]+$/.test(text)) text = `github.com/${text}`
  text = text
    .replace(/^git\+/, '')
    .replace(/^[a-z]+:\/\//, '')
    .replace(/^[^@/]+@/, '')
    .replace(/^([^/:]+):(?!\d)/, '$1/')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '')
  return text === '' ? undefined : text
}

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

/** The state file, read as a file of ours (never through a link, a FIFO or a device; bounded); undefined when unusable. */
function readState(env: NodeJS.ProcessEnv): State | undefined {
  try {
    const data = JSON.parse(readOwnFileSync(configPath(UPDATE_STATE_FILE, env), STATE_MAX_BYTES)) as State
    return typeof data?.checked_at === 'number' ? data : undefined
  } catch {
    return undefined
  }
}

/** Writes the state file; false when it cannot be written. Loaded lazily: files.js brings node:crypto with it. */
async function writeState(env: NodeJS.ProcessEnv, state: State): Promise<boolean> {
  try {
    mkdirSync(configDir(env), {mode: 0o700, recursive: true})
    const {writeFileAtomic} = await import('../domain/files.js')
    await writeFileAtomic(configPath(UPDATE_STATE_FILE, env), JSON.stringify(state))
    return true
  } catch {
    return false
  }
}

/**
 * Takes the right to start a check: the marker is created exclusively (never through a link); one older than
 * UPDATE_RETRY_MS (or as far in the future: a clock set back) is first moved aside by a rename, which only one of several concurrent commands can do. False
 * when another command holds a fresh marker, or when the directory cannot be written (nothing is started then).
 */
export function claimCheck(env: NodeJS.ProcessEnv, now: number): boolean {
  const marker = configPath(UPDATE_LOCK_FILE, env)
  try {
    const stat = lstatSync(marker)
    // Fresh within the retry window either way: a marker a moment after `now` is a concurrent command's (each reads
    // its clock before the others create the marker); only one far ahead means a clock set back.
    if (stat.isFile() && Math.abs(now - stat.mtimeMs) < UPDATE_RETRY_MS) return false
    const aside = `${marker}.${process.pid}.stale`
    renameSync(marker, aside)
    rmSync(aside, {force: true, recursive: true})
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return false
  }
  try {
    mkdirSync(configDir(env), {mode: 0o700, recursive: true})
    // Created whole or not at all, never through a link: exactly one of the commands that got here creates it.
    return createWhole(marker, '')
  } catch {
    return false
  }
}

/** Where the standalone builds are downloaded: the releases page of the repository package.json names. */
export function releasesPage(repository: unknown): string {
  const key = repositoryKey(repository)
  return key ? `https://${key}/releases` : 'the releases page of the project'
}

/** How to update a copy installed this way. */
export function updateCommand(kind: InstallKind, name: string, repository?: unknown): string {
  switch (kind) {
    case 'npm':
      return `npm install -g ${name}`
    case 'deb':
      return `download the new commerce_<version>_amd64.deb from ${releasesPage(repository)}, then: \`sudo apt install ./commerce_<version>_amd64.deb\``
    case 'tarball':
      return `download the new commerce-v<version>-<sha>-linux-x64.tar.gz from ${releasesPage(repository)} and run the README's tarball install line again (it replaces this copy)`
    case 'clone':
      return 'git pull && npm ci && npm run build'
  }
}

export interface UpdateNoticeOptions {
  env: NodeJS.ProcessEnv
  /** The Node running this copy (a standalone build carries its own, in bin/). */
  execPath: string
  version: string
  name: string
  /** The repository package.json names: where the standalone builds' releases are. */
  repository?: unknown
  root: string
  now: () => number
  /** Starts the detached check (the command's process ends without waiting for it). */
  startCheck: () => Promise<void>
}

/**
 * At the end of a command: the notice to print (or undefined), after starting the day's check when it is due and no
 * other command has started it. Reads one small file; never waits on the network. A notice is shown only when its
 * showing could be recorded (at most once a day per config directory).
 */
export async function updateNotice(o: UpdateNoticeOptions): Promise<string | undefined> {
  const now = o.now()
  const state = readState(o.env)
  const due = !state || now - state.checked_at >= UPDATE_CHECK_INTERVAL_MS || now < state.checked_at
  if (due && claimCheck(o.env, now)) await o.startCheck()
  if (!state?.latest || !newer(state.latest, o.version)) return undefined
  const shown = state.notified_at
  if (shown !== undefined && now - shown < UPDATE_CHECK_INTERVAL_MS && now >= shown) return undefined
  if (!(await writeState(o.env, {...state, notified_at: now}))) return undefined
  return `A new release of commerce is available: ${o.version} → ${state.latest}. To update: ${updateCommand(installKind(o.root, o.execPath, o.env), o.name, o.repository)}. (COMMERCE_SKIP_UPDATE_CHECK=1 turns this off.)`
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

/** The registry's answer, read up to UPDATE_MAX_BYTES (undefined past it). */
async function readBounded(res: Response): Promise<string | undefined> {
  if (!res.body) return undefined
  const chunks: Uint8Array[] = []
  let bytes = 0
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength
    if (bytes > UPDATE_MAX_BYTES) return undefined
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * The detached check itself: the registry's latest version of our package, within UPDATE_CHECK_TIMEOUT_MS, written
 * to the state file with the time. A registry that fails, never answers, answers too much or names another
 * repository still records the attempt, so it is asked again only the next day.
 */
export async function checkForUpdate(env: NodeJS.ProcessEnv, now: () => number, self: PackageIdentity): Promise<void> {
  const registry = (env.COMMERCE_UPDATE_REGISTRY || env.npm_config_registry || 'https://registry.npmjs.org').replace(/\/+$/, '')
  const ours = repositoryKey(self.repository)
  let latest: string | undefined
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), UPDATE_CHECK_TIMEOUT_MS)
  try {
    const res = await fetch(`${registry}/${self.name.replace('/', '%2f')}/latest`, {
      headers: {accept: 'application/json'},
      signal: controller.signal,
    })
    const text = res.ok ? await readBounded(res) : undefined
    const body = text === undefined ? undefined : (JSON.parse(text) as {version?: unknown; name?: unknown; repository?: unknown})
    const version = body?.version
    if (
      typeof version === 'string' &&
      /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version) &&
      body?.name === self.name &&
      ours !== undefined &&
      repositoryKey(body?.repository) === ours
    )
      latest = version
  } catch {
  } finally {
    clearTimeout(timer)
    controller.abort()
  }
  const previous = readState(env)
  await writeState(env, {checked_at: now(), ...(latest ? {latest} : {}), ...(previous?.notified_at ? {notified_at: previous.notified_at} : {})})
}
