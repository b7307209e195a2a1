/**
 * An advisory lock between `commerce` processes sharing a config directory: a lock directory (mkdir is atomic on
 * every file system, NFS included) whose mtime the holder refreshes while it holds it, as proper-lockfile does.
 *
 * - Dead owner: the lock holds its owner's host and pid (`owner`); when that process no longer runs on this host
 *   (kill -9), the lock is taken over at once.
 * - Stale: a lock whose mtime is older than `staleMs` is taken over too (an owner on another host sharing the
 *   directory, or one killed before it wrote `owner`). A live holder refreshes every `staleMs / 3`, so a slow
 *   holder is never mistaken for a dead one.
 * - Lost: when a refresh finds the lock gone or its mtime not the one written last, another process took it over;
 *   `compromised` is then true and the holder must not write (ConfigStore checks it before the rename).
 * - Released on every exit path: `release()`, and a synchronous removal on process `exit` (which `process.exit(130)`
 *   after Ctrl-C also runs).
 *
 * Why not proper-lockfile: it loads signal-exit 3, whose SIGINT listener stands aside whenever another listener
 * exists, while BaseCommand's exit-130 handler stands aside for any listener added after it: with both, Ctrl-C
 * would do nothing until the token request ended. The mechanism is small enough to own.
 */
import {mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {join} from 'node:path'
import {isProcessAlive} from './pid.js'

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

/** True when the lock's owner is a process of this host that no longer runs. */
function ownerDied(lockPath: string): boolean {
  let owner: string
  try {
    owner = readFileSync(join(lockPath, OWNER), 'utf8')
  } catch {
    return false
  }
  const [host, pidText] = owner.split(' ')
  const pid = Number(pidText)
  return host === hostname() && Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isProcessAlive(pid)
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
    try {
      mkdirSync(lockPath, {mode: 0o700})
      try {
        writeFileSync(join(lockPath, OWNER), `${hostname()} ${process.pid}`, {mode: 0o600})
      } catch {} // without it, the lock is taken over once stale
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    try {
      if (ownerDied(lockPath) || now() - statSync(lockPath).mtimeMs > staleMs) {
        rmSync(lockPath, {force: true, recursive: true})
        continue
      }
    } catch {}
    if (now() > deadline) throw new LockTimeoutError(lockPath)
    await sleep(5 + Math.random() * 25)
  }
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
