/**
 * The one cross-process lock of `commerce` (the config file, the token issue, the webhook inbox, an import's journal,
 * a fixtures run): a lock directory (mkdir is atomic on every file system, NFS included) holding an `owner` file,
 * `host pid`, whose mtime the holder refreshes while it holds it, as proper-lockfile does. Two ways to take it:
 * `acquireLock` waits for a live holder (up to `waitMs`); `holdLock` tries once and says who holds it.
 *
 * - Dead owner: a lock whose owner is a process of this host that no longer runs (kill -9) is taken over at once.
 * - Stale: a lock whose mtime is older than `staleMs` is taken over too (an owner on another host sharing the
 *   directory). A live holder refreshes every `staleMs / 3`, so a slow holder is never mistaken for a dead one.
 * - Born whole: the lock directory is made under a private name with its `owner` already in it, then renamed into
 *   place, so no process ever meets a lock that names nobody. A lock at the name that names no process (empty, left
 *   by an older version; an owner that is no `host pid` text, a FIFO, a link: nothing this module writes) is broken
 *   and taken over at once. The owner is read through the own-file helpers: never through a link, never blocking on
 *   a FIFO, at most a few bytes.
 * - One taker: a takeover happens under a second, exclusive `.takeover` directory, and only if the lock is still the
 *   one judged dead or stale; of processes racing for a dead owner's lock, exactly one gets it.
 * - Lost: when a refresh finds the lock gone or its mtime not the one written last, another process took it over;
 *   `compromised` is then true and the holder must not write (ConfigStore checks it before the rename).
 * - Released on every exit path: `release()`, and a synchronous removal on process `exit` (which `process.exit(130)`
 *   after Ctrl-C also runs).
 *
 * Why not proper-lockfile: it loads signal-exit 3, whose SIGINT listener stands aside whenever another listener
 * exists, while BaseCommand's exit-130 handler stands aside for any listener added after it: with both, Ctrl-C
 * would do nothing until the token request ended. The mechanism is small enough to own.
 */
import {mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {basename, dirname, join} from 'node:path'

import {readOwnFileSync} from '../domain/own-file.js'
import {isProcessAlive} from '../domain/processes.js'

export interface LockOptions {
  /** A lock not refreshed for this long is taken over (default 10 s). */
  staleMs?: number
  /** Give up after waiting this long (default 10 s). */
  waitMs?: number
  now?: () => number
}

export interface HeldLock {
  /** True once another process has taken the lock over (this one was too slow to refresh it). */
  readonly compromised: boolean
  release(): void
}

export class LockTimeoutError extends Error {
  constructor(readonly lockPath: string) {
    super(`timed out waiting for ${lockPath}`)
  }
}

/** Held by a live process (`pid`, when the lock names one): `holdLock` does not wait. */
export class LockBusyError extends Error {
  constructor(
    readonly pid: number | undefined,
    readonly path: string,
  ) {
    super(pid === undefined ? `held (${path} is being taken over)` : `held by process ${pid}`)
  }
}

/** The locks this process holds now (one entry per acquisition: a path may be held again after a takeover). */
const held = new Set<{path: string}>()
let exitHook = false

/**
 * Removes a lock directory: renamed aside first (atomic), so that a recursive removal never deletes a lock another
 * process renamed into place meanwhile.
 */
function removeLock(path: string): void {
  const aside = `${path}.gone.${process.pid}.${Math.random().toString(36).slice(2, 10)}`
  try {
    renameSync(path, aside)
  } catch {
    return // gone already
  }
  rmSync(aside, {force: true, recursive: true})
}

function releaseAllSync(): void {
  for (const {path} of held) {
    try {
      removeLock(path)
    } catch {}
  }
  held.clear()
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The file in a lock directory naming its owner: `host pid`. */
const OWNER = 'owner'

/** A takeover lock older than this was left by a process that died taking over; it is removed. */
const TAKEOVER_STALE_MS = 10_000

/** The most an owner file holds: a host name and a pid. */
const OWNER_MAX_BYTES = 512

/** The lock's owner as it names itself; undefined when it names nobody (missing, not `host pid`, not a regular file). */
function ownerOf(lockPath: string): {host: string; pid: number} | undefined {
  try {
    const m = /^(\S+) ([1-9]\d{0,9})$/.exec(readOwnFileSync(join(lockPath, OWNER), OWNER_MAX_BYTES))
    return m ? {host: m[1], pid: Number(m[2])} : undefined
  } catch {
    return undefined
  }
}

/** Why the lock at `lockPath` may be taken over (its owner died, it names nobody, or nobody refreshed it), if it may; the same text twice is the same lock. */
function takeoverReason(lockPath: string, staleMs: number, now: number): string | undefined {
  const owner = ownerOf(lockPath)
  const mtime = statSync(lockPath).mtimeMs
  if (!owner) return `broken ${mtime}`
  if (owner.host === hostname() && owner.pid !== process.pid && !isProcessAlive(owner.pid)) return `dead ${owner.pid}`
  return now - mtime > staleMs ? `stale ${mtime} ${owner.pid}` : undefined
}

/** Removes a dead or stale lock, under the exclusive takeover lock, if it is still the one judged so. */
function takeOver(lockPath: string, reason: string, staleMs: number, now: number): void {
  const takeover = `${lockPath}.takeover`
  try {
    if (Date.now() - statSync(takeover).mtimeMs > TAKEOVER_STALE_MS) rmSync(takeover, {force: true, recursive: true})
  } catch {}
  try {
    mkdirSync(takeover, {mode: 0o700})
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return // another process is taking it over
    throw error
  }
  try {
    if (takeoverReason(lockPath, staleMs, now) === reason) removeLock(lockPath)
  } catch {
  } finally {
    rmSync(takeover, {force: true, recursive: true})
  }
}

type Attempt = {taken: true} | {taken: false; pid: number | undefined}

/**
 * Puts a lock naming this process at `lockPath`, or says that one is there: a private directory holding the owner,
 * renamed into place (rename(2) never replaces a directory that has entries; an empty one it does replace, and
 * an empty lock directory names nobody).
 */
function place(lockPath: string): boolean {
  const draft = `${lockPath}.new.${process.pid}.${Math.random().toString(36).slice(2, 10)}`
  mkdirSync(draft, {mode: 0o700})
  try {
    writeFileSync(join(draft, OWNER), `${hostname()} ${process.pid}`, {flag: 'wx', mode: 0o600})
    renameSync(draft, lockPath)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false
    // A file (not a directory) planted at the lock's name: nothing we made, and not ours to remove.
    if (code === 'ENOTDIR') throw Object.assign(new Error(`${lockPath} is not a lock directory`), {code})
    throw error
  } finally {
    rmSync(draft, {force: true, recursive: true})
  }
}

/**
 * Removes what a process killed mid-way left beside the lock: a draft it had not renamed into place
 * (`NAME.new.PID.RANDOM`), or a lock it had renamed aside and not yet removed (`NAME.gone.PID.RANDOM`). Only those of
 * a process of this host that no longer runs.
 */
function removeLeftovers(lockPath: string): void {
  const name = basename(lockPath)
  let entries: string[]
  try {
    entries = readdirSync(dirname(lockPath))
  } catch {
    return
  }
  for (const entry of entries) {
    const pid = Number(/^(?:new|gone)\.(\d+)\.[a-z0-9]+$/.exec(entry.startsWith(`${name}.`) ? entry.slice(name.length + 1) : '')?.[1])
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isProcessAlive(pid))
      rmSync(join(dirname(lockPath), entry), {force: true, recursive: true})
  }
}

/**
 * One attempt: taken, or the pid its owner names; after a takeover, placing only. A lock released between our try and
 * our look at its owner is tried again (a few times), so that "held" comes with the pid of a holder that was there.
 */
function attempt(lockPath: string, staleMs: number, now: number, mayTakeOver = true, tries = 3): Attempt {
  if (place(lockPath)) return {taken: true}
  if (mayTakeOver) {
    let reason: string | undefined
    try {
      reason = takeoverReason(lockPath, staleMs, now)
    } catch {
      return attempt(lockPath, staleMs, now, false, tries) // gone meanwhile
    }
    if (reason !== undefined) takeOver(lockPath, reason, staleMs, now)
    if (reason !== undefined) return attempt(lockPath, staleMs, now, false, tries)
  }
  const pid = ownerOf(lockPath)?.pid
  return pid === undefined && tries > 1 ? attempt(lockPath, staleMs, now, false, tries - 1) : {pid, taken: false}
}

/** The lock, now this process's: refreshed until released, removed at exit. */
function holding(lockPath: string, staleMs: number): HeldLock {
  if (!exitHook) {
    exitHook = true
    process.on('exit', releaseAllSync)
  }
  const entry = {path: lockPath}
  held.add(entry)
  let mtime = statSync(lockPath).mtimeMs
  let compromised = false
  const timer = setInterval(
    () => {
      try {
        if (statSync(lockPath).mtimeMs !== mtime) throw new Error('taken over')
        const t = new Date()
        utimesSync(lockPath, t, t)
        mtime = statSync(lockPath).mtimeMs
      } catch {
        compromised = true
        held.delete(entry) // no longer ours: never removed at exit
        clearInterval(timer)
      }
    },
    Math.max(100, Math.floor(staleMs / 3)),
  )
  timer.unref()
  return {
    get compromised() {
      return compromised
    },
    release() {
      clearInterval(timer)
      if (!held.delete(entry) || compromised) return
      try {
        removeLock(lockPath)
      } catch {}
    },
  }
}

/**
 * Takes the lock at `lockPath` (a directory), waiting while another live process holds it. Errors other than
 * "held" (EACCES, ENOTDIR, EROFS...) are thrown as they are, for the caller to treat as an unwritable directory.
 */
export async function acquireLock(lockPath: string, options: LockOptions = {}): Promise<HeldLock> {
  removeLeftovers(lockPath)
  const staleMs = options.staleMs ?? 10_000
  const now = options.now ?? Date.now
  const deadline = now() + (options.waitMs ?? 10_000)
  for (;;) {
    if (attempt(lockPath, staleMs, now()).taken) return holding(lockPath, staleMs)
    if (now() > deadline) throw new LockTimeoutError(lockPath)
    await sleep(5 + Math.random() * 25)
  }
}

/** Takes the lock at `lockPath` now, or throws LockBusyError naming its owner: for work one process does at a time. */
export function holdLock(lockPath: string, options: Pick<LockOptions, 'staleMs'> = {}): HeldLock {
  removeLeftovers(lockPath)
  const staleMs = options.staleMs ?? 10_000
  const got = attempt(lockPath, staleMs, Date.now())
  if (!got.taken) throw new LockBusyError(got.pid, lockPath)
  return holding(lockPath, staleMs)
}
