/**
 * The one cross-process lock (src/config/lock.ts): acquireLock waits for a live holder, takes over a dead one's, tells
 * a holder that lost it, and is removed when the process exits (process.exit after Ctrl-C included); holdLock does not
 * wait, names the owner, and of processes racing for a dead owner's lock lets exactly one take it.
 */
import {spawn, spawnSync} from 'node:child_process'
import {once} from 'node:events'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync} from 'node:fs'
import {hostname, tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'

import {acquireLock, holdLock, LockBusyError, LockTimeoutError} from '../../src/config/lock.js'

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

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {encoding: 'utf8'})
  return Number(child.stdout)
}

/** A lock directory as another process leaves it, naming `owner` (or nothing). */
function plant(path: string, owner?: string): void {
  mkdirSync(path)
  if (owner !== undefined) writeFileSync(join(path, 'owner'), owner)
}

describe('holdLock: one process at a time, without waiting (an import, a fixtures run)', () => {
  it('a lock that names nobody (empty, junk, a FIFO or a link at its owner) is broken: taken over at once, never read through', () => {
    const plants: Array<[string, (path: string) => void]> = [
      ['an empty lock directory (an older version)', (path) => plant(path)],
      ['an empty owner', (path) => plant(path, '')],
      ['an owner that is no `host pid`', (path) => plant(path, `${hostname()} 4x`)],
      ['a FIFO at the owner', (path) => (plant(path), spawnSync('mkfifo', [join(path, 'owner')]))],
      ['a link to /dev/zero at the owner', (path) => (plant(path), symlinkSync('/dev/zero', join(path, 'owner')))],
    ]
    for (const [i, [what, make]] of plants.entries()) {
      const path = join(dir, `run-${i}.lock`)
      make(path)
      const started = process.hrtime.bigint()
      const held = holdLock(path)
      expect(readFileSync(join(path, 'owner'), 'utf8'), what).toBe(`${hostname()} ${process.pid}`)
      held.release()
      // Nothing was read whole: a read of /dev/zero or a FIFO would not have come back at all.
      expect(process.hrtime.bigint() - started < 5_000_000_000n, what).toBe(true)
    }
    expect(readdirSync(dir)).toEqual([])
  })

  it('a lock is born with its owner in it: a process racing its holder always learns who holds it', async () => {
    const module = resolve(import.meta.dirname, '../../src/config/lock.ts')
    const path = join(dir, 'born.lock')
    // One child takes the lock, holds it a moment and releases it, over and over; this process tries to take it meanwhile.
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(module)}); for (let i = 0; i < 300; i++) try { const l = m.holdLock(${JSON.stringify(path)}); await new Promise((r) => setTimeout(r, 1)); l.release() } catch (e) { if (!(e instanceof m.LockBusyError)) throw e }`,
      ],
      {stdio: 'ignore'},
    )
    const exited = once(child, 'exit')
    let ended = false
    void exited.then(() => (ended = true))
    const pids: Array<number | undefined> = []
    while (!ended) {
      try {
        holdLock(path).release()
      } catch (error) {
        if (!(error instanceof LockBusyError)) throw error
        pids.push(error.pid)
      }
      await new Promise((r) => setImmediate(r))
    }
    expect((await exited)[0]).toBe(0)
    expect(pids.length).toBeGreaterThan(0)
    expect(pids.filter((pid) => pid !== child.pid)).toEqual([])
  }, 30_000)

  it("what a killed process left beside the lock (a draft not renamed in, a lock renamed aside) is removed; a live one's is not", () => {
    const path = join(dir, 'left.lock')
    const dead = deadPid()
    for (const leftover of [`left.lock.new.${dead}.abc123`, `left.lock.gone.${dead}.def456`, `left.lock.new.${process.ppid}.live00`]) {
      mkdirSync(join(dir, leftover))
      writeFileSync(join(dir, leftover, 'owner'), `${hostname()} ${dead}`)
    }
    holdLock(path).release()
    expect(readdirSync(dir)).toEqual([`left.lock.new.${process.ppid}.live00`])
  })

  it('a live owner is busy, naming its pid; a dead owner is taken over; nothing is left beside the lock', () => {
    const path = join(dir, 'a.lock')
    const held = holdLock(path)
    expect(readFileSync(join(path, 'owner'), 'utf8')).toBe(`${hostname()} ${process.pid}`)
    expect(() => holdLock(path)).toThrow(LockBusyError)
    held.release()
    plant(path, `${hostname()} ${deadPid()}`)
    const taken = holdLock(path)
    expect(readFileSync(join(path, 'owner'), 'utf8')).toBe(`${hostname()} ${process.pid}`)
    taken.release()
    expect(readdirSync(dir)).toEqual([])
  })

  it('four processes racing for a dead owner’s lock: exactly one takes it, in each of two rounds', async () => {
    const module = resolve(import.meta.dirname, '../../src/config/lock.ts')
    const path = join(dir, 'race.lock')
    const go = join(dir, 'go')
    // Each child says it is ready, waits for the go file, tries once, says whether it won, and holds a won lock
    // until every child has answered (the parent removes the go file), so that no late child finds a dead owner.
    const code = `const m = await import(${JSON.stringify(module)}); const fs = await import('node:fs')
      process.stdout.write('ready ')
      while (!fs.existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 1))
      let said
      try { m.holdLock(${JSON.stringify(path)}); said = 'won' } catch (e) { said = e instanceof m.LockBusyError ? 'busy' : 'error ' + e.message }
      process.stdout.write(said)
      while (said === 'won' && fs.existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 5))`
    for (let round = 0; round < 2; round++) {
      plant(path, `${hostname()} ${deadPid()}`)
      rmSync(go, {force: true})
      const children = Array.from({length: 4}, () =>
        spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {stdio: ['ignore', 'pipe', 'inherit'], timeout: 20_000}),
      )
      const outs = children.map(() => '')
      const answered = () => outs.every((o) => /(won|busy|error.*)$/.test(o))
      const exits = children.map((c, i) => {
        c.stdout.on('data', (d: Buffer) => {
          outs[i] += d.toString()
          if (answered()) rmSync(go, {force: true})
        })
        return once(c, 'exit')
      })
      while (!outs.every((o) => o.startsWith('ready '))) await new Promise((r) => setTimeout(r, 10))
      writeFileSync(go, '')
      await Promise.all(exits)
      const said = outs.map((o) => o.slice('ready '.length))
      expect(
        said.filter((s) => s === 'won'),
        said.join(', '),
      ).toHaveLength(1)
      expect(said.filter((s) => s === 'busy')).toHaveLength(3)
      rmSync(path, {force: true, recursive: true})
    }
    expect(existsSync(`${path}.takeover`)).toBe(false)
  }, 60_000)
})
