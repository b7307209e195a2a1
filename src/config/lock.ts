/**
 * The one cross-process lock of `commerce` (the config file, the token issue, the webhook inbox, an import's journal,
 * a fixtures run): a lock directory (mkdir is atomic on every file system, NFS included) holding an `owner` file,
 * `host pid`, whose mtime the holder refreshes while it holds it, as proper-lockfile does. Two ways to take it:
 * `acquireLock` waits for a live holder (up to `waitMs`); `holdLock` tries once and says who holds it.
 *
 * - Dead owner: a lock whose owner is a process of this host that no longer runs (kill -9) is taken over at once.
 * - Stale: a lock whose mtime is older than `staleMs` is taken over too (an owner on another host sharing the
 *   directory, or one killed before it wrote `owner`). A live holder refreshes every `staleMs / 3`, so a slow
 *   holder is never mistaken for a dead one; a lock that names no process (no owner yet, or an unreadable one) is
 *   held until then.
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
import {mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {join} from 'node:path'

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
    super(pid === undefined ? `held (${path} names no process yet)` : `held by process ${pid}`)
  }
}

/** The locks this process holds now (one entry per acquisition: a path may be held again after a takeover). */
const held = new Set<{path: string}>()
let exitHook = false

function releaseAllSync(): void {
  for (const {path} of held) {
    try {
      rmSync(path, {force: true, recursive: true})
    } catch {}
  }
  held.clear()
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The file in a lock directory naming its owner: `host pid`. */
const OWNER = 'owner'

/** A takeover lock older than this was left by a process that died taking over; it is removed. */
const TAKEOVER_STALE_MS = 10_000

/** The lock's owner as it names itself, when it does. */
function ownerOf(lockPath: string): {host: string; pid: number} | undefined {
  try {
    const [host, pidText] = readFileSync(join(lockPath, OWNER), 'utf8').split(' ')
    const pid = Number(pidText)
    return host && Number.isInteger(pid) && pid > 0 ? {host, pid} : undefined
  } catch {
    return undefined
  }
}

/** Why the lock at `lockPath` may be taken over (its owner died, or nobody refreshed it), if it may; the same text twice is the same lock. */
function takeoverReason(lockPath: string, staleMs: number, now: number): string | undefined {
  const owner = ownerOf(lockPath)
  if (owner && owner.host === hostname() && owner.pid !== process.pid && !isProcessAlive(owner.pid)) return `dead ${owner.pid}`
  const mtime = statSync(lockPath).mtimeMs
  return now - mtime > staleMs ? `stale ${mtime} ${owner?.pid}` : undefined
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
    if (takeoverReason(lockPath, staleMs, now) === reason) rmSync(lockPath, {force: true, recursive: true})
  } catch {
  } finally {
    rmSync(takeover, {force: true, recursive: true})
  }
}

type Attempt = {taken: true} | {taken: false; pid: number | undefined}

/** One attempt: taken, or the pid its owner names (undefined when none); after a takeover, one more mkdir only. */
function attempt(lockPath: string, staleMs: number, now: number, mayTakeOver = true): Attempt {
  try {
    mkdirSync(lockPath, {mode: 0o700})
    try {
      // Written whole beside, then renamed in: a reader never sees half an owner.
      const temp = join(lockPath, `${OWNER}.${process.pid}`)
      writeFileSync(temp, `${hostname()} ${process.pid}`, {mode: 0o600})
      renameSync(temp, join(lockPath, OWNER))
    } catch {} // without it, the lock is taken over once stale
    return {taken: true}
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  if (mayTakeOver) {
    let reason: string | undefined
    try {
      reason = takeoverReason(lockPath, staleMs, now)
    } catch {
      return attempt(lockPath, staleMs, now, false) // gone meanwhile
    }
    if (reason !== undefined) {
      takeOver(lockPath, reason, staleMs, now)
      return attempt(lockPath, staleMs, now, false)
    }
  }
  return {pid: ownerOf(lockPath)?.pid, taken: false}
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
        rmSync(lockPath, {force: true, recursive: true})
      } catch {}
    },
  }
}

/**
 * Takes the lock at `lockPath` (a directory), waiting while another live process holds it. Errors other than
 * "held" (EACCES, ENOTDIR, EROFS...) are thrown as they are, for the caller to treat as an unwritable directory.
 */
export async function acquireLock(lockPath: string, options: LockOptions = {}): Promise<HeldLock> {
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
  const staleMs = options.staleMs ?? 10_000
  const got = attempt(lockPath, staleMs, Date.now())
  if (!got.taken) throw new LockBusyError(got.pid, lockPath)
  return holding(lockPath, staleMs)
}
