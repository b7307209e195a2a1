/** Processes by pid: a module of its own, so that what asks (config locks, on every command) loads nothing else. */

/** Whether a process with this pid exists (one of another user's counts: EPERM). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
