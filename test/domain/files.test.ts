/** Files we create: exclusive temp beside the target, 0600, atomic rename, never through a planted link. */
import {lstatSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {createAtomicFile, EXCLUSIVE_FLAGS, tempPathFor, writeFileAtomic, writeFileAtomicSync} from '../../src/domain/files.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'atomic-'))
})
afterEach(() => rmSync(dir, {force: true, recursive: true}))

describe('atomic files', () => {
  it('writes with mode 0600 whatever the umask, and leaves no temp file', async () => {
    const old = process.umask(0o022)
    try {
      await writeFileAtomic(join(dir, 'a.json'), '{"a":1}')
      writeFileAtomicSync(join(dir, 'b.json'), 'b')
    } finally {
      process.umask(old)
    }
    expect(statSync(join(dir, 'a.json')).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'b.json')).mode & 0o777).toBe(0o600)
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('{"a":1}')
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'b.json'])
  })

  it('temp names are unpredictable, so a planted link or file at the old PID-based name is never used', async () => {
    const victim = join(dir, 'victim')
    writeFileSync(victim, 'precious')
    const target = join(dir, 'customers.csv')
    // The names the old code used: a link to a victim and a regular file a local user could read.
    symlinkSync(victim, join(dir, `.customers.csv.${process.pid}.tmp`))
    writeFileSync(join(dir, `.customers.csv.${process.pid}.x.tmp`), '')
    await writeFileAtomic(target, 'data')
    expect(readFileSync(victim, 'utf8')).toBe('precious')
    expect(readFileSync(target, 'utf8')).toBe('data')
    expect(tempPathFor(target)).not.toBe(tempPathFor(target))
    // And the open itself refuses an existing name, link or not, instead of following it.
    expect(() => openSync(join(dir, `.customers.csv.${process.pid}.tmp`), EXCLUSIVE_FLAGS, 0o600)).toThrow(/EEXIST/)
    expect(readFileSync(victim, 'utf8')).toBe('precious')
  })

  it('a streamed file appears only on commit; discard removes the temp file', async () => {
    const target = join(dir, 'out.jsonl')
    const file = await createAtomicFile(target)
    await file.write('1\n')
    expect(() => lstatSync(target)).toThrow()
    await file.write('2\n')
    await file.commit()
    expect(readFileSync(target, 'utf8')).toBe('1\n2\n')

    const other = await createAtomicFile(join(dir, 'other'))
    await other.write('x')
    await other.discard()
    await other.discard()
    expect(readdirSync(dir)).toEqual(['out.jsonl'])
  })
})

describe('temp files a killed writer left', () => {
  it('the next write beside them removes those whose process is gone, and no other file', async () => {
    const dead = '.orders.json.999999.0a1b2c3d4e5f.tmp'
    const live = `.orders.json.${process.pid}.0a1b2c3d4e5f.tmp`
    const other = '.customers.json.999999.0a1b2c3d4e5f.tmp'
    for (const f of [dead, live, other]) writeFileSync(join(dir, f), 'partial')
    await writeFileAtomic(join(dir, 'orders.json'), '[]')
    expect(readdirSync(dir).sort()).toEqual([other, live, 'orders.json'].sort())
  })
})
