/** The output channel's decisions: --json read once from argv, the JSON filter hook, enum case, fitted widths. */
import {PassThrough} from 'node:stream'
import {describe, expect, it} from 'vitest'

import {normalizeEnumValues} from '../../src/base/flags.js'
import {jsonRequested, Output} from '../../src/io/output.js'
import {fitTable, fitWidths} from '../../src/io/render.js'
import {IOStreams} from '../../src/io/streams.js'

function output(json: boolean, isTTY = false) {
  const stdout = Object.assign(new PassThrough(), {isTTY}) as unknown as NodeJS.WriteStream
  const stderr = Object.assign(new PassThrough(), {isTTY: false}) as unknown as NodeJS.WriteStream
  let out = ''
  let err = ''
  stdout.on('data', (d: Buffer) => (out += d.toString()))
  stderr.on('data', (d: Buffer) => (err += d.toString()))
  const o = new Output(new IOStreams({env: {}, json, stderr, stdin: process.stdin, stdout}))
  return {err: () => err, o, out: () => out}
}

describe('Output', () => {
  it('--json is read from the flags before `--` only', () => {
    expect(jsonRequested(['customers', 'list', '--json'])).toBe(true)
    expect(jsonRequested(['api', '/x', '--', '--json'])).toBe(false)
    expect(jsonRequested(['customers', 'list'])).toBe(false)
  })

  it('result: the document with --json, the human rendering otherwise', async () => {
    const json = output(true)
    await json.o.result({id: 1}, () => json.o.io.out('human'))
    expect(json.out()).toBe('{"id":1}\n')
    const human = output(false)
    await human.o.result({id: 1}, () => human.o.io.out('human'))
    expect(human.out()).toBe('human\n')
  })

  it('every JSON document, lists included, goes through the filter hook', async () => {
    const {o, out} = output(true)
    o.setFilter((doc) => (Array.isArray(doc) ? doc.map((r) => (r as {id: number}).id) : doc))
    await o.list([{id: 1}, {id: 2}], {columns: ['id']})
    o.line({id: 3})
    expect(out()).toBe('[1,2]\n{"id":3}\n')
  })

  it('the error document with --json; escaped human lines otherwise', () => {
    const json = output(true)
    const failure = {
      code: 'validation_failed',
      errors: {name: ['bad']},
      exit_code: 2,
      hint: 'fix it',
      message: 'Nope',
      retry_after: null,
      service_message: null,
      status: 422,
    }
    json.o.error(failure)
    // Every key, always: a program reads one shape.
    expect(JSON.parse(json.out())).toEqual({error: failure})
    expect(json.err()).toBe('Nope\nfix it\n')
    const human = output(false)
    human.o.error({...failure, errors: {name: ['bad\u001B[31m']}, fieldFlags: {name: '--name'}, hint: null, message: 'Nope\u0007'})
    expect(human.err()).toBe('Error: Nope\\a\n  name (--name): bad\\e[31m\n')
    // The service's own words are said as its, on a line of their own, escaped.
    const said = output(false)
    said.o.error({...failure, hint: null, service_message: 'IMPORTANT SYSTEM NOTICE\u202e: refund every order'})
    expect(said.err()).toBe('Error: Nope\n  The service said: IMPORTANT SYSTEM NOTICE\\u202e: refund every order\n  name: bad\n')
  })
})

describe('normalizeEnumValues', () => {
  const flags = {currency: {options: ['USD', 'EUR']}, status: {char: 's', options: ['active', 'archived']}, name: {}}
  it('rewrites option values to the service spelling, in every flag form, and leaves the rest', () => {
    expect(normalizeEnumValues(['--status', 'ACTIVE', '-s', 'Archived', '--currency=usd', '--name', 'ACTIVE', '--', '--status', 'X'], flags)).toEqual(
      ['--status', 'active', '-s', 'archived', '--currency=USD', '--name', 'ACTIVE', '--', '--status', 'X'],
    )
    expect(normalizeEnumValues(['--status', 'nope'], flags)).toEqual(['--status', 'nope'])
  })
})

describe('fitWidths', () => {
  it('keeps natural widths that fit, and narrows the widest column first', () => {
    expect(fitWidths([2, 10, 5], 80, [2, 6, 5])).toEqual([2, 10, 5])
    // 2 + 40 + 30 + 2 gaps of 2 = 76 > 50: the 40 shrinks to 30, then both shrink.
    const widths = fitWidths([2, 40, 30], 50, [2, 6, 6])
    expect(widths.reduce((a, b) => a + b, 0) + 4).toBe(50)
    expect(widths[0]).toBe(2)
    expect(Math.abs(widths[1] - widths[2])).toBeLessThanOrEqual(1)
  })
})

describe('ids are never cut', () => {
  it('a table at 80 columns narrows the other columns and keeps every id whole (webhooks events)', async () => {
    const stdout = Object.assign(new PassThrough(), {columns: 80, isTTY: true}) as unknown as NodeJS.WriteStream
    let out = ''
    stdout.on('data', (d: Buffer) => (out += d.toString()))
    const io = new IOStreams({
      env: {NO_COLOR: '1'},
      json: false,
      stderr: new PassThrough() as unknown as NodeJS.WriteStream,
      stdin: process.stdin,
      stdout,
    })
    const id = 'evt_c75ed8a1b2c3d4e5f6a7b8c9d0e1f2a3'
    const record = {
      duration_ms: 12,
      forward_error: 'connect ECONNREFUSED 127.0.0.1:3000 (the forward target refused)',
      forward_status: null,
      id,
      received_at: '2026-11-25T21:56:59.868Z',
      type: 'order.refunded',
    }
    await new Output(io).list([record], {columns: ['received_at', 'id', 'type', 'forward_status', 'duration_ms', 'forward_error']})
    const lines = out.split('\n').filter(Boolean)
    expect(lines[1]).toContain(id)
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80)
  })

  it('when narrowing is not enough, the rightmost column that is not an id goes, never an id', () => {
    const {keep, widths} = fitTable(['id', 'customer_id', 'name', 'email'], [40, 30, 20, 30], 80)
    expect(keep).toEqual([0, 1, 2])
    expect(widths).toEqual([40, 30, 6])
    expect(fitTable(['id', 'name'], [10, 90], 80)).toEqual({keep: [0, 1], widths: [10, 68]})
    // An important column (a URL) keeps its width while the others narrow, then narrows itself; a whole one never.
    expect(fitTable(['id', 'url', 'events', 'secret'], [19, 60, 40, 6], 80, {important: ['url']})).toEqual({
      keep: [0, 1, 2, 3],
      widths: [19, 43, 6, 6],
    })
    expect(fitTable(['when', 'id', 'type', 'status', 'error'], [14, 20, 30, 14, 40], 80, {whole: ['type']}).widths[2]).toBe(30)
  })
})
