/** Pid files and locks beside the config (sandbox state, import journals) ask whether their owner still runs. */
import {closeSync, openSync, readFileSync, rmSync, writeSync} from 'node:fs'

/** Whether a process with this pid exists (EPERM: it exists but belongs to another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export class PidLockBusyError extends Error {
  constructor(readonly pid: number) {
    super(`held by process ${pid}`)
  }
}

/**
 * A lock file holding its owner's pid (0600, created exclusively): one process at a time for a file that two
 * would corrupt. The lock of a process that died (kill -9) is taken over at once, since its pid no longer runs;
 * a live owner is PidLockBusyError. `release` removes it.
 */
export function acquirePidLock(path: string): {release(): void} {
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600)
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return {release: () => rmSync(path, {force: true})}
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error
    }
    const pid = Number(readFileSync(path, 'utf8'))
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isProcessAlive(pid)) throw new PidLockBusyError(pid)
    rmSync(path, {force: true})
  }
}
