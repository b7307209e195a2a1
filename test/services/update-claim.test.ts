/**
 * Who starts the day's update check (src/services/update-check.ts, claimCheck): one command of several at once. A
 * command takes its clock reading before another one creates the marker, so a marker a moment "in the future" is a
 * concurrent command's, not a clock set back (seen in .ci/run: eight commands at once started two checks).
 */
import {mkdtempSync, rmSync, utimesSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {claimCheck, UPDATE_LOCK_FILE, UPDATE_RETRY_MS} from '../../src/services/update-check.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {force: true, recursive: true})
})

function env(): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-claim-'))
  dirs.push(dir)
  return {COMMERCE_CONFIG_DIR: dir}
}

describe('claiming the update check', () => {
  it('one claim of several; a marker made just after this command read its clock is a concurrent one, not stale', () => {
    const e = env()
    const now = Date.now()
    expect(claimCheck(e, now)).toBe(true)
    expect(claimCheck(e, now)).toBe(false)
    // The marker written 2 s after the reading another command took: still that command's.
    const marker = join(e.COMMERCE_CONFIG_DIR!, UPDATE_LOCK_FILE)
    utimesSync(marker, new Date(now + 2000), new Date(now + 2000))
    expect(claimCheck(e, now)).toBe(false)
  })

  it('a marker older than the retry window, or far in the future (a clock set back), is taken over', () => {
    const e = env()
    const now = Date.now()
    const marker = join(e.COMMERCE_CONFIG_DIR!, UPDATE_LOCK_FILE)
    expect(claimCheck(e, now)).toBe(true)
    utimesSync(marker, new Date(now - UPDATE_RETRY_MS - 1000), new Date(now - UPDATE_RETRY_MS - 1000))
    expect(claimCheck(e, now)).toBe(true)
    utimesSync(marker, new Date(now + UPDATE_RETRY_MS + 1000), new Date(now + UPDATE_RETRY_MS + 1000))
    expect(claimCheck(e, now)).toBe(true)
  })
})
