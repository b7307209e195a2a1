/** Pid files and locks beside the config (sandbox state, import journals) ask whether their owner still runs. */
import {closeSync, openSync, readFileSync, rmSync, statSync} from 'node:fs'

import {isProcessAlive} from '../domain/processes.js'
import {createWhole} from '../domain/own-file.js'

export {isProcessAlive}

export class PidLockBusyError extends Error {
  /** `pid` is undefined when the lock file names no process (empty, or not a pid): it is held all the same. */
  constructor(
    readonly pid: number | undefined,
    readonly path: string,
  ) {
    super(pid === undefined ? `held (${path} names no process)` : `held by process ${pid}`)
  }
}

/** A takeover lock older than this was left by a process that died taking over; it is removed. */
const TAKEOVER_STALE_MS = 10_000

/** The pid a lock file names; undefined when it names none (empty, half-written, or not a pid). */
function ownerOf(path: string): number | undefined {
  const text = readFileSync(path, 'utf8')
  return /^[1-9]\d{0,9}$/.test(text) ? Number(text) : undefined
}

/**
 * A lock file holding its owner's pid (0600): one process at a time for a file that two would corrupt.
 *
 * - The file appears whole (linked from a private file), so a racing reader never sees it empty; a lock file that
 *   names no process (empty, half-written by an older release, edited) is held, never guessed stale.
 * - The lock of a process that died (kill -9) is taken over, but only under a second, exclusive takeover lock, and
 *   only if it still names the dead pid: two processes that both saw it dead cannot both take it.
 * A live owner, or a file that names none, is PidLockBusyError. `release` removes it.
 */
export function acquirePidLock(path: string): {release(): void} {
  const held = {release: () => rmSync(path, {force: true})}
  // A few rounds: the owner may let go between a refused link and the read of its pid.
  for (let round = 0; round < 3; round++) {
    if (createWhole(path, String(process.pid))) return held
    let owner: number | undefined
    try {
      owner = ownerOf(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw error
    }
    if (owner === undefined || owner === process.pid || isProcessAlive(owner)) throw new PidLockBusyError(owner, path)
    if (takeOver(path, owner)) return held
  }
  throw new PidLockBusyError(undefined, path)
}

/** Replaces the lock of `dead` with this process's, under the exclusive takeover lock; false when it changed hands meanwhile. */
function takeOver(path: string, dead: number): boolean {
  const takeover = `${path}.takeover`
  try {
    if (Date.now() - statSync(takeover).mtimeMs > TAKEOVER_STALE_MS) rmSync(takeover, {force: true})
  } catch {}
  try {
    closeSync(openSync(takeover, 'wx', 0o600))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new PidLockBusyError(dead, path)
    throw error
  }
  try {
    // Read again under the takeover lock: another process may have taken the dead owner's lock since.
    let now: number | undefined
    try {
      now = ownerOf(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return createWhole(path, String(process.pid))
      throw error
    }
    if (now !== dead) throw new PidLockBusyError(now, path)
    rmSync(path, {force: true})
    return createWhole(path, String(process.pid))
  } finally {
    rmSync(takeover, {force: true})
  }
}
