import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, describe, expect, test} from 'vitest'

import {type ReadResult, readRows} from '../../src/bulk/read.js'

const dir = mkdtempSync(join(tmpdir(), 'bulk-read-'))
afterAll(() => rmSync(dir, {force: true, recursive: true}))

let n = 0
async function read(content: string | Buffer, format: 'csv' | 'jsonl', checkHeader?: (c: string[]) => string | undefined): Promise<ReadResult[]> {
  const file = join(dir, `f${n++}.${format}`)
  writeFileSync(file, content)
  const out: ReadResult[] = []
  for await (const r of readRows(file, {checkHeader, format})) out.push(r)
  return out
}

describe('CSV reader', () => {
  test('numbers records by the line they start on: header is line 1, blank lines count, multi-line records by their first line', async () => {
    const csv = 'email,name\na@x.io,"Ann\nSmith"\n\nb@x.io,Bob\n"c@x.io","Carl\n\nJr"\nd@x.io,Dee\n'
    expect(await read(csv, 'csv')).toEqual([
      {line: 2, record: {email: 'a@x.io', name: 'Ann\nSmith'}},
      {line: 5, record: {email: 'b@x.io', name: 'Bob'}},
      {line: 6, record: {email: 'c@x.io', name: 'Carl\n\nJr'}},
      {line: 9, record: {email: 'd@x.io', name: 'Dee'}},
    ])
  })

  test('counts CRLF as one line break, also inside quotes, and strips a BOM', async () => {
    const csv = '\uFEFFemail,name\r\na@x.io,"Ann\r\nSmith"\r\n\r\nb@x.io,Bob\r\n'
    expect(await read(csv, 'csv')).toEqual([
      {line: 2, record: {email: 'a@x.io', name: 'Ann\nSmith'}},
      {line: 5, record: {email: 'b@x.io', name: 'Bob'}},
    ])
  })

  test('gives the same lines whatever the chunking of the file (a CRLF or a UTF-8 character split across reads)', async () => {
    // 64 KiB reads: pad so that chunk boundaries fall inside a CRLF and inside a multi-byte character.
    const filler = 'x'.repeat(65_535 - 'email,name\r\n'.length - 'a@x.io,'.length)
    const csv = `email,name\r\na@x.io,${filler}\r\nb@x.io,"é\r\nü"\r\nc@x.io,ok`
    const rows = await read(csv, 'csv')
    expect(rows.map((r) => r.line)).toEqual([2, 3, 5])
    expect(rows[1]).toEqual({line: 3, record: {email: 'b@x.io', name: 'é\nü'}})
  })

  test('reports a row with the wrong number of fields by its line and goes on', async () => {
    expect(await read('email,name\na@x.io\nb@x.io,Bob,extra\nc@x.io,Carl\n', 'csv')).toEqual([
      {error: 'has 1 field, the header has 2', line: 2},
      {error: 'has 3 fields, the header has 2', line: 3},
      {line: 4, record: {email: 'c@x.io', name: 'Carl'}},
    ])
  })

  test('skips rows of empty cells, as spreadsheets leave them', async () => {
    expect(await read('email,name\n,\na@x.io,Ann\n , \n', 'csv')).toEqual([{line: 3, record: {email: 'a@x.io', name: 'Ann'}}])
  })

  test('ends at a quote never closed, naming the line where its record starts, as fatal', async () => {
    const rows = await read('email,name\na@x.io,Ann\n\n"b@x.io,Bob\nc@x.io,Carl\n', 'csv')
    expect(rows[0]).toEqual({line: 2, record: {email: 'a@x.io', name: 'Ann'}})
    expect(rows).toHaveLength(2)
    expect(rows[1]).toMatchObject({fatal: true, line: 4})
    expect((rows[1] as {error: string}).error).toMatch(/Quote Not Closed.*nothing after it was read/)
  })

  test('ends at a stray quote after a quoted field, as fatal', async () => {
    const rows = await read('email,name\n"a@x.io"x,Ann\nb@x.io,Bob\n', 'csv')
    expect(rows).toEqual([{error: expect.stringMatching(/Invalid Closing Quote/), fatal: true, line: 2}])
  })

  test('refuses an empty file, a header with an empty or repeated name, and what checkHeader refuses', async () => {
    expect(await read('', 'csv')).toEqual([{error: expect.stringMatching(/empty/), fatal: true, line: 1}])
    expect(await read('email,,name\n', 'csv')).toEqual([{error: 'column 2 of the header has no name', fatal: true, line: 1}])
    expect(await read('email,email\n', 'csv')).toEqual([{error: 'the header names column "email" twice', fatal: true, line: 1}])
    expect(await read('\n\nfoo\nx\n', 'csv', (c) => `bad ${c.join()}`)).toEqual([{error: 'bad foo', fatal: true, line: 3}])
  })
})

describe('JSONL reader', () => {
  test('numbers records by line, skips blank lines, reports bad JSON and non-objects by line and goes on', async () => {
    const jsonl = '\uFEFF{"a":1}\r\n\r\n{bad\n  \n[1,2]\n"text"\n{"b":"é"}'
    expect(await read(jsonl, 'jsonl')).toEqual([
      {line: 1, record: {a: 1}},
      {error: expect.stringMatching(/^is not valid JSON/), line: 3},
      {error: 'must be a JSON object', line: 5},
      {error: 'must be a JSON object', line: 6},
      {line: 7, record: {b: 'é'}},
    ])
  })

  test('an empty file has no rows', async () => {
    expect(await read('', 'jsonl')).toEqual([])
  })
})

test.each(['csv', 'jsonl'] as const)('%s: a missing file rejects with ENOENT', async (format) => {
  const drain = async () => {
    for await (const _ of readRows(join(dir, `missing.${format}`), {format, onBytes: () => {}})) void _
  }
  await expect(drain()).rejects.toMatchObject({code: 'ENOENT'})
})

test('CSV: a quote inside an unquoted field spoils that row only', async () => {
  expect(await read('email,name\na@x.io,O"Brien\nb@x.io,Bob\n', 'csv')).toEqual([
    {error: expect.stringMatching(/^CSV syntax error: Invalid Opening Quote/), line: 2},
    {line: 3, record: {email: 'b@x.io', name: 'Bob'}},
  ])
})

test('CSV: records before a fatal syntax error are all read, in order', async () => {
  const rows = Array.from({length: 200}, (_, i) => `u${i}@x.io,U${i}`).join('\n')
  const result = await read(`email,name\n${rows}\n"bad@x.io"x,Bad\nz@x.io,Z\n`, 'csv')
  expect(result).toHaveLength(201)
  expect(result[199]).toEqual({line: 201, record: {email: 'u199@x.io', name: 'U199'}})
  expect(result[200]).toMatchObject({fatal: true, line: 202})
})
