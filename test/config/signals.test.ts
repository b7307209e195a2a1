/**
 * Loading conf leaves the CLI's interrupt handler the only signal listener (src/config/signals.ts). Run in a
 * fresh process: a module's import-time listeners are added once per process.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {force: true, recursive: true})
})

function inChild(script: string): {status: number | null; stdout: string; stderr: string} {
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {encoding: 'utf8', timeout: 20_000})
}

const counts = "JSON.stringify(['SIGINT', 'SIGTERM', 'SIGHUP'].map((s) => process.listenerCount(s)))"

describe("conf's signal listeners", () => {
  it('conf on its own hooks SIGINT, SIGTERM and SIGHUP (when-exit): the reason for the guard; if this fails, it can go', () => {
    const child = inChild(`await import('conf'); console.log(${counts})`)
    expect(child.status, child.stderr).toBe(0)
    expect(child.stdout.trim(), 'conf no longer installs signal listeners: src/config/signals.ts may be removed').toBe('[1,1,1]')
  })

  it('the store opens conf (and migrates, writes) without adding a signal listener, and Ctrl-C still exits 130 once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'commerce-signals-'))
    dirs.push(dir)
    const store = resolve(import.meta.dirname, '../../src/config/config-store.ts')
    const child = inChild(
      `const {ConfigStore} = await import(${JSON.stringify(store)})
      let seen = 0
      process.on('SIGINT', () => { seen++; setTimeout(() => { console.log(seen); process.exit(130) }, 200) })
      const s = new ConfigStore(${JSON.stringify(dir)})
      await s.update((d) => { d.current_profile = 'x' })
      console.log(${counts})
      setTimeout(() => {}, 5000)
      process.kill(process.pid, 'SIGINT')`,
    )
    expect(child.stderr).toBe('')
    expect(child.status).toBe(130)
    // One listener (ours) for SIGINT, none for the others; our handler saw the one signal sent, not a second.
    expect(child.stdout.trim().split('\n')).toEqual(['[1,0,0]', '1'])
  })
})
