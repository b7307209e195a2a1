/**
 * The history's file (config/history.ts): bounded by size as the inbox is (it turns over at half the bound, so the two
 * files never hold more), entries past the age bound not read, a torn line skipped, and never written through a link.
 */
import {appendFileSync, mkdtempSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {appendEntry, type HistoryEntry, readEntries} from '../../src/config/history.js'

const entry = (n: number, time: string, pad = 0): HistoryEntry => ({
  after: {id: n, note: 'x'.repeat(pad)},
  before: null,
  command: `commerce customers create --name C${n}`,
  entry: `e${n}`,
  idempotency_key: null,
  method: 'POST',
  origin: 'http://127.0.0.1:1',
  path: '/api/v2/customers',
  profile: 'default',
  record_id: n,
  run: `r${n}`,
  service_message: null,
  status: 201,
  surface: 'cli',
  time,
})

describe('the history file', () => {
  it('stays within its size bound after many changes, keeping the newest, newest first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'history-'))
    const env = {COMMERCE_CONFIG_DIR: dir, COMMERCE_HISTORY_MAX_SIZE: '1MB'}
    const now = Date.parse('2026-11-28T12:00:00Z')
    for (let n = 0; n < 1500; n++) await appendEntry(env, entry(n, new Date(now - (1500 - n) * 1000).toISOString(), 1000))
    const size = (name: string) => {
      try {
        return statSync(join(dir, name)).size
      } catch {
        return 0
      }
    }
    expect(size('history.jsonl') + size('history.jsonl.1')).toBeLessThanOrEqual(1024 * 1024)
    expect(statSync(join(dir, 'history.jsonl')).mode & 0o777).toBe(0o600)
    const read = await readEntries(env, now)
    expect(read[0].entry).toBe('e1499')
    expect(read.length).toBeGreaterThan(400)
    expect(read.map((e) => e.record_id as number)).toEqual([...read.map((e) => e.record_id as number)].sort((a, b) => b - a))
  })

  it('reads nothing older than its age bound, and skips a line a crash cut', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'history-'))
    const env = {COMMERCE_CONFIG_DIR: dir, COMMERCE_HISTORY_MAX_AGE: '1d'}
    const now = Date.parse('2026-11-28T12:00:00Z')
    await appendEntry(env, entry(1, '2026-11-26T12:00:00Z'))
    await appendEntry(env, entry(2, '2026-11-28T11:00:00Z'))
    appendFileSync(join(dir, 'history.jsonl'), '{"entry":"e3","run":"r3","ti')
    expect((await readEntries(env, now)).map((e) => e.entry)).toEqual(['e2'])
    await expect(readEntries({...env, COMMERCE_HISTORY_MAX_AGE: 'soon'}, now)).rejects.toThrow(/COMMERCE_HISTORY_MAX_AGE/)
  })

  it('is never written through a symbolic link planted at its name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'history-'))
    const target = join(dir, 'elsewhere')
    writeFileSync(target, '')
    symlinkSync(target, join(dir, 'history.jsonl'))
    await expect(appendEntry({COMMERCE_CONFIG_DIR: dir}, entry(1, '2026-11-28T11:00:00Z'))).rejects.toThrow()
    expect(statSync(target).size).toBe(0)
  })
})
