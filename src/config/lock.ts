/**
 * An advisory lock between `commerce` processes sharing a config directory: a lock directory (mkdir is atomic on
 * every file system, NFS included) whose mtime the holder refreshes while it holds it, as proper-lockfile does.
 *
 * - Stale: a lock whose mtime is older than `staleMs` belongs to a process that died (kill -9): it is taken over.
 *   A live holder refreshes every `staleMs / 3`, so a slow holder is never mistaken for a dead one.
 * - Lost: when a refresh finds the lock gone or its mtime not the one written last, another process took it over;
 *   `compromised` is then true and the holder must not write (ConfigStore checks it before the rename).
 * - Released on every exit path: `release()`, and a synchronous removal on process `exit` (which `process.exit(130)`
 *   after Ctrl-C also runs).
 *
 * Why not proper-lockfile: it loads signal-exit 3, whose SIGINT listener stands aside whenever another listener
 * exists, while BaseCommand's exit-130 handler stands aside for any listener added after it: with both, Ctrl-C
 * would do nothing until the token request ended. The mechanism is small enough to own.
 */
import {mkdirSync, rmSync, statSync, utimesSync} from 'node:fs'

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
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    try {
      if (now() - statSync(lockPath).mtimeMs > staleMs) {
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
