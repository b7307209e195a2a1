/**
 * The pid lock (src/config/pid.ts) that admits one fixtures run or one import at a time: a lock file that names no
 * process is held, never taken for stale; a dead owner's lock is taken over by exactly one of the processes that
 * race for it.
 */
import {spawn, spawnSync} from 'node:child_process'
import {once} from 'node:events'
import {existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {acquirePidLock, PidLockBusyError} from '../../src/config/pid.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'commerce-pid-lock-'))
})
afterEach(() => rmSync(dir, {force: true, recursive: true}))

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {encoding: 'utf8'})
  return Number(child.stdout)
}

describe('acquirePidLock', () => {
  it('an empty or half-written lock file is held, not stale: busy, naming the file, and left as it is', () => {
    for (const [i, content] of ['', '4x', '\n'].entries()) {
      const path = join(dir, `run-${i}.lock`)
      writeFileSync(path, content)
      let error: unknown
      try {
        acquirePidLock(path)
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(PidLockBusyError)
      expect((error as PidLockBusyError).pid).toBeUndefined()
      expect((error as PidLockBusyError).path).toBe(path)
      expect(readFileSync(path, 'utf8')).toBe(content)
    }
  })

  it('a live owner is busy; a dead owner is taken over; the file is always whole, and nothing is left beside it', () => {
    const path = join(dir, 'a.lock')
    const held = acquirePidLock(path)
    expect(readFileSync(path, 'utf8')).toBe(String(process.pid))
    expect(() => acquirePidLock(path)).toThrow(PidLockBusyError)
    held.release()
    writeFileSync(path, String(deadPid()))
    const taken = acquirePidLock(path)
    expect(readFileSync(path, 'utf8')).toBe(String(process.pid))
    taken.release()
    expect(readdirSync(dir)).toEqual([])
  })

  it('four processes racing for a dead owner’s lock: exactly one takes it, in each of two rounds', async () => {
    const module = resolve(import.meta.dirname, '../../src/config/pid.ts')
    const path = join(dir, 'race.lock')
    const go = join(dir, 'go')
    // Each child says it is ready, waits for the go file, tries once, says whether it won, and holds a won lock
    // until every child has answered (the parent removes the go file), so that no late child finds a dead owner.
    const code = `const m = await import(${JSON.stringify(module)}); const fs = await import('node:fs')
      process.stdout.write('ready ')
      while (!fs.existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 1))
      let said
      try { m.acquirePidLock(${JSON.stringify(path)}); said = 'won' } catch (e) { said = e instanceof m.PidLockBusyError ? 'busy' : 'error ' + e.message }
      process.stdout.write(said)
      while (said === 'won' && fs.existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 5))`
    for (let round = 0; round < 2; round++) {
      writeFileSync(path, String(deadPid()))
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
      rmSync(path, {force: true})
    }
    expect(existsSync(`${path}.takeover`)).toBe(false)
  }, 60_000)
})
