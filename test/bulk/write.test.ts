import {createWriteStream, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Writable} from 'node:stream'
import {finished} from 'node:stream/promises'

import {afterAll, describe, expect, test} from 'vitest'

import {readRows} from '../../src/bulk/read.js'
import {createRecordWriter, csvRows, type RecordFormat} from '../../src/bulk/write.js'

const dir = mkdtempSync(join(tmpdir(), 'bulk-write-'))
afterAll(() => rmSync(dir, {force: true, recursive: true}))

let n = 0
async function writeFile(
  format: RecordFormat,
  records: Array<Record<string, unknown>>,
  columns?: string[] | {escapeFormulas: boolean},
): Promise<string> {
  const file = join(dir, `out${n++}.${format}`)
  const out = createWriteStream(file)
  const writer = createRecordWriter(format, out, {chunkSize: 16, ...(Array.isArray(columns) ? {columns} : columns)})
  for (const r of records) await writer.write(r)
  await writer.end()
  out.end()
  await finished(out)
  return file
}

const tricky = [
  {id: 1, name: 'Plain', note: ''},
  {id: 2, name: 'Comma, Inc.', note: 'say "hi"'},
  {id: 3, name: 'Multi\nline\r\nCRLF\rCR', note: ' spaced '},
  {id: 4, name: 'Ünïcødé 名前 🚀', note: '"'},
  {id: 5, name: '', note: ',\n,'},
]

describe('CSV writer', () => {
  test('round trip through the reader: commas, quotes, CR/LF inside fields, unicode, empty fields', async () => {
    const file = await writeFile('csv', tricky)
    const back = []
    for await (const r of readRows(file, {format: 'csv'})) back.push(r)
    // The reader turns a CRLF inside a quoted value into LF (editor line numbers); everything else is exact.
    expect(back.map((r) => ('record' in r ? r.record : r))).toEqual(
      tricky.map((r) => ({id: String(r.id), name: r.name.replace('\r\n', '\n'), note: r.note})),
    )
    // Lines: the header is 1; record 4 starts after record 3's four line breaks.
    expect(back.map((r) => r.line)).toEqual([2, 3, 4, 8, 9])
  })

  test('quotes per RFC 4180 and writes nested values as compact JSON, null and missing as empty', async () => {
    expect(csvRows([['a,b', 'a"b', 'a\nb', 'a\rb', 'plain é', true, false, 3, null]])).toBe('"a,b","a""b","a\nb","a\rb",plain é,true,false,3,\n')
    const file = await writeFile('csv', [
      {id: 1, metadata: {plan: 'pro', tags: ['a', 'b']}, gone: null},
      {id: 2, metadata: null},
    ])
    expect(readFileSync(file, 'utf8')).toBe('id,metadata,gone\n1,"{""plan"":""pro"",""tags"":[""a"",""b""]}",\n2,,\n')
  })

  test('--escape-formulas: cells a spreadsheet would run get a leading quote (OWASP); numbers and the default untouched', async () => {
    const hostile = {a: '=HYPERLINK("http://x","y")', b: '+1', c: '-2', d: '@SUM(A1)', e: '\tx', f: '\rx', g: -3, h: 'safe'}
    expect(csvRows([Object.values(hostile)], {escapeFormulas: true})).toBe(
      '"\'=HYPERLINK(""http://x"",""y"")",\'+1,\'-2,\'@SUM(A1),\'\tx,"\'\rx",-3,safe\n',
    )
    // Off by default: an export imports back exactly.
    expect(csvRows([['=1+1', '-2']])).toBe('=1+1,-2\n')
    const file = await writeFile('csv', [{name: '=cmd|x', n: 1}], {escapeFormulas: true})
    expect(readFileSync(file, 'utf8')).toBe("name,n\n'=cmd|x,1\n")
  })

  test('the header comes from the first record, then the given columns it lacks', async () => {
    const file = await writeFile('csv', [{b: 1, a: 2}], ['a', 'c'])
    expect(readFileSync(file, 'utf8')).toBe('b,a,c\n1,2,\n')
  })

  test('an empty export is the header alone (given columns), or nothing without columns', async () => {
    expect(readFileSync(await writeFile('csv', [], ['id', 'email', 'name']), 'utf8')).toBe('id,email,name\n')
    expect(readFileSync(await writeFile('csv', []), 'utf8')).toBe('')
  })
})

describe('JSON and JSONL writers', () => {
  test('JSON is one valid array written as records arrive, [] when empty', async () => {
    const text = readFileSync(await writeFile('json', tricky), 'utf8')
    expect(text.startsWith('[\n{"id":1,')).toBe(true)
    expect(JSON.parse(text)).toEqual(tricky)
    const empty = readFileSync(await writeFile('json', []), 'utf8')
    expect(empty).toBe('[]\n')
    expect(JSON.parse(empty)).toEqual([])
    expect(JSON.parse(readFileSync(await writeFile('json', [{a: 1}]), 'utf8'))).toEqual([{a: 1}])
  })

  test('JSONL is one object per line, nothing when empty', async () => {
    const text = readFileSync(await writeFile('jsonl', tricky), 'utf8')
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual(tricky)
    expect(readFileSync(await writeFile('jsonl', []), 'utf8')).toBe('')
  })
})

test('write waits for drain when the stream is full, and nothing is lost', async () => {
  const chunks: string[] = []
  let pending: (() => void) | undefined
  const release = () => {
    const done = pending
    pending = undefined
    done?.()
  }
  const slow = new Writable({
    highWaterMark: 8,
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString())
      pending = done // completes only when the test releases it
    },
  })
  const writer = createRecordWriter('jsonl', slow, {chunkSize: 1})
  const first = writer.write({a: 'x'.repeat(20)})
  expect(first).toBeInstanceOf(Promise)
  let drained = false
  void (first as Promise<void>).then(() => (drained = true))
  await new Promise((r) => setImmediate(r))
  expect(drained).toBe(false)
  release()
  await first
  expect(drained).toBe(true)
  const second = writer.write({b: 1})
  release()
  await second
  const ending = writer.end()
  release()
  await ending
  expect(chunks.join('')).toBe(`{"a":"${'x'.repeat(20)}"}\n{"b":1}\n`)
  expect(writer.count).toBe(2)
})
