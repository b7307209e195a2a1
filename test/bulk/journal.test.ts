import {execFileSync} from 'node:child_process'
import {spawnSync} from 'node:child_process'
import {appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {hostname, tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, expect, test} from 'vitest'

import {Journal, journalDir, JournalBusyError, journalFileName, JournalLinkError} from '../../src/bulk/journal.js'

const dir = mkdtempSync(join(tmpdir(), 'bulk-journal-'))
afterAll(() => rmSync(dir, {force: true, recursive: true}))

const id = {baseUrl: 'http://127.0.0.1:4010', file: '/data/customers.csv', kind: 'customers' as const, sha256: 'ab'.repeat(32)}

test('lives in <config dir>/journals, one file per kind, path, content and base URL', () => {
  expect(journalDir({COMMERCE_CONFIG_DIR: '/cfg'})).toBe('/cfg/journals')
  const names = new Set([
    journalFileName(id),
    journalFileName({...id, baseUrl: 'https://api.example.com'}),
    journalFileName({...id, sha256: 'cd'.repeat(32)}),
    journalFileName({...id, file: '/data/other.csv'}),
    journalFileName({...id, kind: 'orders'}),
  ])
  expect(names.size).toBe(5)
  expect(journalFileName(id)).toMatch(/^customers-[0-9a-f]{16}-abababababababab\.jsonl$/)
})

test('records starts and outcomes as JSONL, and a reopened journal knows what is done, failed and in doubt', async () => {
  const d = join(dir, 'a')
  const j = await Journal.open(d, id, {now: () => 1000})
  j.start(2)
  j.finish(2, {id: 7, outcome: 'created'})
  j.start(3)
  j.finish(3, {outcome: 'failed', reason: 'email taken'})
  j.start(4)
  j.close()
  const lines = readFileSync(j.path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown)
  expect(lines).toEqual([
    {base_url: id.baseUrl, file: id.file, journal: 1, kind: 'customers', sha256: id.sha256},
    {line: 2, started: 1000},
    {id: 7, line: 2, outcome: 'created'},
    {line: 3, started: 1000},
    {line: 3, outcome: 'failed', reason: 'email taken'},
    {line: 4, started: 1000},
  ])
  const again = await Journal.open(d, id, {now: () => 2000})
  expect([again.isDone(2), again.isDone(3), again.isDone(4), again.isDone(5)]).toEqual([true, false, false, false])
  expect(again.inDoubtSince(4)).toBe(1000)
  expect(again.inDoubtSince(3)).toBeUndefined()
  // A second start keeps the first time: the earliest send is what a created_at is compared with.
  again.start(4)
  expect(again.inDoubtSince(4)).toBe(1000)
  expect(again.counts()).toEqual({created: 1, failed: 1, skipped: 0, updated: 0})
  expect(again.failures()).toEqual([{line: 3, reason: 'email taken'}])
  again.close()
})

test('a torn last entry (killed mid-write) is ignored, and the next entry starts on its own line', async () => {
  const d = join(dir, 'b')
  const j = await Journal.open(d, id)
  j.finish(2, {outcome: 'created'})
  j.close()
  appendFileSync(j.path, '{"line":3,"outc')
  const again = await Journal.open(d, id)
  expect(again.isDone(2)).toBe(true)
  expect(again.isDone(3)).toBe(false)
  again.finish(3, {outcome: 'skipped'})
  again.close()
  const third = await Journal.open(d, id)
  expect(third.isDone(3)).toBe(true)
  third.close()
})

test('refuses a journal whose header names another import', async () => {
  const d = join(dir, 'c')
  const j = await Journal.open(d, id)
  j.close()
  writeFileSync(j.path, JSON.stringify({base_url: 'http://elsewhere', file: id.file, journal: 1, kind: 'customers', sha256: id.sha256}) + '\n')
  await expect(Journal.open(d, id)).rejects.toThrow(/base_url differs/)
  expect(existsSync(`${j.path}.lock`)).toBe(false) // and leaves no lock behind
})

test('one process per journal: a live owner is refused, a dead one (kill -9) is taken over', async () => {
  const d = join(dir, 'd')
  const j = await Journal.open(d, id)
  j.close()
  // The lock as another process leaves it (src/config/lock.ts): a directory naming its owner.
  const plant = (pid: number) => {
    rmSync(`${j.path}.lock`, {force: true, recursive: true})
    mkdirSync(`${j.path}.lock`)
    writeFileSync(join(`${j.path}.lock`, 'owner'), `${hostname()} ${pid}`)
  }
  plant(process.ppid)
  await expect(Journal.open(d, id)).rejects.toBeInstanceOf(JournalBusyError)
  const dead = spawnSync(process.execPath, ['-e', '0']).pid
  plant(dead)
  const taken = await Journal.open(d, id)
  expect(readFileSync(join(`${j.path}.lock`, 'owner'), 'utf8')).toBe(`${hostname()} ${process.pid}`)
  taken.close()
  expect(existsSync(`${j.path}.lock`)).toBe(false)
})

test('is never opened through a symbolic link planted at its name: a clear error, the target untouched, the lock released', async () => {
  const d = join(dir, 'planted')
  mkdirSync(d, {mode: 0o700})
  const victim = join(dir, 'victim.txt')
  writeFileSync(victim, 'untouched\n')
  symlinkSync(victim, join(d, journalFileName(id)))
  await expect(Journal.open(d, id)).rejects.toThrow(JournalLinkError)
  expect(readFileSync(victim, 'utf8')).toBe('untouched\n')
  expect(existsSync(join(d, `${journalFileName(id)}.lock`))).toBe(false)
})

test('a FIFO planted at its name is refused at once, never waited on', async () => {
  const d = join(dir, 'fifo')
  mkdirSync(d, {mode: 0o700})
  execFileSync('mkfifo', [join(d, journalFileName(id))])
  await expect(Journal.open(d, id)).rejects.toThrow(JournalLinkError)
  expect(existsSync(join(d, `${journalFileName(id)}.lock`))).toBe(false)
})

test('is created with mode 0600', async () => {
  const j = await Journal.open(join(dir, 'mode'), id)
  j.close()
  expect(statSync(j.path).mode & 0o777).toBe(0o600)
})
