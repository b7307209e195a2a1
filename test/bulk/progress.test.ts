import {mkdtempSync, readFileSync, rmSync, createWriteStream} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {finished} from 'node:stream/promises'

import {afterAll, describe, expect, test} from 'vitest'

import {createErrorsWriter, errorsFileFormat} from '../../src/bulk/errors-file.js'
import {ProgressTracker} from '../../src/bulk/progress-tracker.js'
import {readRows} from '../../src/bulk/read.js'

describe('progress', () => {
  test('rate over the recent window and time left, on an injected clock', () => {
    let t = 0
    const p = new ProgressTracker(1000, {now: () => t, windowMs: 10_000})
    expect(p.snapshot()).toEqual({done: 0, elapsedMs: 0, etaMs: undefined, rate: undefined, total: 1000})
    for (let i = 0; i < 100; i++) {
      t += 100
      p.advance(5) // 50 records per second
    }
    const s = p.snapshot()
    expect(s.done).toBe(500)
    expect(s.rate).toBeCloseTo(50, 5)
    expect(s.etaMs).toBeCloseTo(10_000, 0)
    // The rate follows a slowdown within the window, not the average since the start.
    for (let i = 0; i < 200; i++) {
      t += 100
      p.advance(1)
    }
    expect(p.snapshot().rate).toBeCloseTo(10, 0)
  })

  test('rows found done in the journal move `done` but not the rate', () => {
    let t = 0
    const p = new ProgressTracker(100, {now: () => t})
    p.skip(60)
    t += 1000
    p.advance(4)
    const s = p.snapshot()
    expect(s.done).toBe(64)
    expect(s.rate).toBeCloseTo(4, 5)
    expect(s.etaMs).toBeCloseTo(9000, 0)
  })

  test('unknown total: no time left; finished: zero left', () => {
    let t = 0
    const p = new ProgressTracker(undefined, {now: () => t})
    t = 500
    p.advance(10)
    expect(p.snapshot().etaMs).toBeUndefined()
    p.setTotal(10)
    expect(p.snapshot().etaMs).toBe(0)
  })
})

describe('errors file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bulk-errors-'))
  afterAll(() => rmSync(dir, {force: true, recursive: true}))
  const rows = [
    {
      errors: {email: ['"x, y" is not a valid email address']},
      line: 3,
      reason: 'email "x, y" is not a valid email address',
      status: 'invalid' as const,
    },
    {line: 9, reason: 'email "a@x.io" is already taken (--on-conflict fail)', status: 'failed' as const},
  ]

  async function write(name: string): Promise<string> {
    const path = join(dir, name)
    const out = createWriteStream(path)
    const w = createErrorsWriter(errorsFileFormat(path), out)
    for (const r of rows) await w.write(r)
    await w.end()
    out.end()
    await finished(out)
    return path
  }

  test('CSV by extension: line,status,reason, quoted, readable back', async () => {
    const path = await write('errors.CSV')
    expect(readFileSync(path, 'utf8').split('\n')[0]).toBe('line,status,reason')
    const back = []
    for await (const r of readRows(path, {format: 'csv'})) back.push(r)
    expect(back).toEqual([
      {line: 2, record: {line: '3', reason: 'email "x, y" is not a valid email address', status: 'invalid'}},
      {line: 3, record: {line: '9', reason: 'email "a@x.io" is already taken (--on-conflict fail)', status: 'failed'}},
    ])
  })

  test('JSONL otherwise, with the field errors of invalid rows', async () => {
    const path = await write('errors.jsonl')
    expect(
      readFileSync(path, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual(rows)
  })
})
