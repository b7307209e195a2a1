/**
 * The config directory's lock (src/config/lock.ts): waits for a live holder, takes over a dead one's, tells a
 * holder that lost it, and is removed when the process exits (process.exit after Ctrl-C included).
 */
import {spawn, spawnSync} from 'node:child_process'
import {once} from 'node:events'
import {existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'

import {LockTimeoutError, acquireLock} from '../../src/config/lock.js'

/** Node's arguments for a process that takes the lock at `path`, then runs `then`. */
function holderArgs(path: string, then: string): string[] {
  const module = resolve(import.meta.dirname, '../../src/config/lock.ts')
  return ['--import', 'tsx', '-e', `import(${JSON.stringify(module)}).then(async (m) => { await m.acquireLock(${JSON.stringify(path)}); ${then} })`]
}

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'commerce-lock-'))
})
afterEach(() => {
  vi.useRealTimers()
  rmSync(dir, {force: true, recursive: true})
})

describe('acquireLock', () => {
  it('a live holder makes the next one wait, and time out with LockTimeoutError (injected clock)', async () => {
    const path = join(dir, 'a.lock')
    const first = await acquireLock(path)
    let t = Date.now()
    const waiting = acquireLock(path, {now: () => (t += 1000), staleMs: 60_000, waitMs: 5000})
    await expect(waiting).rejects.toBeInstanceOf(LockTimeoutError)
    first.release()
    expect(existsSync(path)).toBe(false)
    const second = await acquireLock(path, {waitMs: 0})
    second.release()
  })

  it('a lock nobody refreshes (its holder died) is taken over once stale; the old holder learns it lost the lock', async () => {
    vi.useFakeTimers({toFake: ['setInterval', 'clearInterval']})
    const path = join(dir, 'b.lock')
    const first = await acquireLock(path, {staleMs: 300})
    const old = new Date(Date.now() - 10_000)
    utimesSync(path, old, old) // as if its holder had stopped refreshing
    const second = await acquireLock(path, {staleMs: 300, waitMs: 0})
    expect(first.compromised).toBe(false)
    vi.advanceTimersByTime(150) // the old holder's next refresh finds the mtime is not its own
    expect(first.compromised).toBe(true)
    expect(second.compromised).toBe(false)
    first.release() // must not remove the new holder's lock
    expect(existsSync(path)).toBe(true)
    second.release()
    expect(existsSync(path)).toBe(false)
  })

  it('a holder that refreshes is never taken for stale', async () => {
    vi.useFakeTimers({toFake: ['setInterval', 'clearInterval']})
    const path = join(dir, 'c.lock')
    const held = await acquireLock(path, {staleMs: 300})
    // Seen 250 ms later, the lock is not stale yet; after the holder's refresh (every staleMs / 3) it is fresh again.
    vi.advanceTimersByTime(100)
    const waiter = acquireLock(path, {now: () => Date.now() + 250, staleMs: 300, waitMs: 0})
    await expect(waiter).rejects.toBeInstanceOf(LockTimeoutError)
    expect(held.compromised).toBe(false)
    held.release()
  })

  it('a lock whose holder was killed (kill -9) is taken over at once; a live holder in another process is waited for', async () => {
    const path = join(dir, 'e.lock')
    const holder = spawn(process.execPath, holderArgs(path, "console.log('held'); setInterval(() => {}, 1000)"), {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    try {
      await once(holder.stdout, 'data')
      // Alive and refreshing: not taken, however long the wait would be allowed to find it stale.
      await expect(acquireLock(path, {staleMs: 60_000, waitMs: 0})).rejects.toBeInstanceOf(LockTimeoutError)
      holder.kill('SIGKILL')
      await once(holder, 'exit')
      expect(existsSync(path)).toBe(true) // a killed process removes nothing
      // Fresh by its mtime, but its owner no longer runs: taken over without waiting for it to go stale.
      const taken = await acquireLock(path, {staleMs: 60_000, waitMs: 0})
      taken.release()
      expect(existsSync(path)).toBe(false)
    } finally {
      holder.kill('SIGKILL')
    }
  })

  it('process.exit (as after Ctrl-C) removes the locks the process holds', () => {
    const path = join(dir, 'd.lock')
    const child = spawnSync(
      process.execPath,
      holderArgs(path, `console.log(require('node:fs').existsSync(${JSON.stringify(path)})); process.exit(130)`),
      {encoding: 'utf8', timeout: 20_000},
    )
    expect(child.status, child.stderr).toBe(130)
    expect(child.stdout).toBe('true\n') // it was held
    expect(existsSync(path)).toBe(false)
    mkdirSync(path) // and a lock the process never took is not touched by anyone else's exit
    expect(existsSync(path)).toBe(true)
  })
})
