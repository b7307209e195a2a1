/**
 * A line over the record-size bound is an invalid row read without building it
 * (no `RangeError: Invalid string length`, memory bounded), and invalid UTF-8 is an invalid row naming its line
 * instead of text with U+FFFD in it.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, describe, expect, test} from 'vitest'

import {MAX_RECORD_BYTES} from '../../src/domain/bulk-formats.js'
import {type ReadResult, readRows} from '../../src/bulk/read.js'

const dir = mkdtempSync(join(tmpdir(), 'bulk-bounds-'))
afterAll(() => rmSync(dir, {force: true, recursive: true}))

let n = 0
async function read(content: string | Buffer, format: 'csv' | 'jsonl', maxLineBytes?: number): Promise<ReadResult[]> {
  const file = join(dir, `f${n++}.${format}`)
  writeFileSync(file, content)
  const out: ReadResult[] = []
  for await (const r of readRows(file, {format, maxLineBytes})) out.push(r)
  return out
}

const BAD_UTF8 = Buffer.from([0x41, 0xff, 0xfe, 0x42]) // "A", two bytes no UTF-8 text holds, "B"

describe('record-size bound', () => {
  test('JSONL: a line over the bound is an invalid row by its line; the rows around it are read', async () => {
    const big = `{"email":"big@x.io","name":"${'x'.repeat(5000)}"}`
    const rows = await read(`{"email":"a@x.io"}\n${big}\n{"email":"b@x.io"}\n`, 'jsonl', 1024)
    expect(rows).toEqual([
      {line: 1, record: {email: 'a@x.io'}},
      {error: 'is longer than 1 KiB, the most one row may hold', line: 2},
      {line: 3, record: {email: 'b@x.io'}},
    ])
  })

  test('JSONL: the default bound, with a line past it (not held whole) and a last line without LF', async () => {
    const big = Buffer.alloc(MAX_RECORD_BYTES + 1024 * 1024, 0x20) // spaces: valid JSON whitespace, were it read
    const rows = await read(Buffer.concat([Buffer.from('{"a":1}\n'), big, Buffer.from('\n{"b":2}')]), 'jsonl')
    expect(rows).toEqual([
      {line: 1, record: {a: 1}},
      {error: 'is longer than 4 MiB, the most one row may hold', line: 2},
      {line: 3, record: {b: 2}},
    ])
  })

  test('CSV: a one-line record over the bound is an invalid row; the records after it keep their lines', async () => {
    const csv = `email,name\na@x.io,Ann\nbig@x.io,"${'y'.repeat(3000)}"\nb@x.io,"Bo\nb"\nc@x.io,Carl\n`
    expect(await read(csv, 'csv', 1024)).toEqual([
      {line: 2, record: {email: 'a@x.io', name: 'Ann'}},
      {error: 'is longer than 1 KiB, the most one row may hold', line: 3},
      {line: 4, record: {email: 'b@x.io', name: 'Bo\nb'}},
      {line: 6, record: {email: 'c@x.io', name: 'Carl'}},
    ])
  })

  test('CSV: a line over the bound inside a quoted value spanning lines ends the file there (fatal)', async () => {
    const csv = `email,name\na@x.io,Ann\nbig@x.io,"start\n${'y'.repeat(3000)}\nend"\nc@x.io,Carl\n`
    expect(await read(csv, 'csv', 1024)).toEqual([
      {line: 2, record: {email: 'a@x.io', name: 'Ann'}},
      {error: 'a quoted value spanning lines grows past 1 KiB here, the most one row may hold; nothing after it was read', fatal: true, line: 4},
    ])
  })

  test('CSV: a quoted value spanning many short lines is bounded as a whole (fatal past the bound)', async () => {
    const lines = Array.from({length: 40}, () => 'z'.repeat(50)).join('\n')
    const csv = `email,name\na@x.io,Ann\nbig@x.io,"${lines}"\nc@x.io,Carl\n`
    const rows = await read(csv, 'csv', 1024)
    expect(rows[0]).toEqual({line: 2, record: {email: 'a@x.io', name: 'Ann'}})
    expect(rows.slice(1)).toEqual([expect.objectContaining({fatal: true, line: expect.any(Number)})])
    expect((rows[1] as {error: string}).error).toMatch(/grows past 1 KiB here/)
  })
})

describe('invalid UTF-8', () => {
  test('JSONL: an invalid row naming the line, never text with U+FFFD', async () => {
    const file = Buffer.concat([
      Buffer.from('{"name":"ok"}\n{"name":"'),
      BAD_UTF8,
      Buffer.from('"}\n{"name":"\uFFFD is fine when written as such"}\n'),
    ])
    expect(await read(file, 'jsonl')).toEqual([
      {line: 1, record: {name: 'ok'}},
      {error: 'is not valid UTF-8 text (save the file as UTF-8)', line: 2},
      {line: 3, record: {name: '\uFFFD is fine when written as such'}},
    ])
  })

  test('CSV: the record holding the bytes is invalid (by its first line); a bad header is fatal', async () => {
    const file = Buffer.concat([Buffer.from('email,name\na@x.io,Ann\nb@x.io,"Multi\n'), BAD_UTF8, Buffer.from('"\nc@x.io,Carl\n')])
    expect(await read(file, 'csv')).toEqual([
      {line: 2, record: {email: 'a@x.io', name: 'Ann'}},
      {error: 'is not valid UTF-8 text (save the file as UTF-8)', line: 3},
      {line: 5, record: {email: 'c@x.io', name: 'Carl'}},
    ])
    const header = Buffer.concat([Buffer.from('email,'), BAD_UTF8, Buffer.from('\na@x.io,Ann\n')])
    expect(await read(header, 'csv')).toEqual([{error: 'is not valid UTF-8 text (save the file as UTF-8)', fatal: true, line: 1}])
  })
})
