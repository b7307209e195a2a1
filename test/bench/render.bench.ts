/**
 * Rendering 20,000 customers: the terminal table (measured, fitted, truncated) against the TSV of a pipe, in
 * CPU time, in process (the service is not involved). Goals: the table well under a second, within 3x the pipe.
 */
import {Writable} from 'node:stream'

import {renderListHuman} from '../../src/io/render.js'
import {IOStreams} from '../../src/io/streams.js'

const ROWS = 20_000
const COLUMNS = ['id', 'email', 'name', 'status', 'created_at']

function sink(isTTY: boolean): NodeJS.WriteStream {
  const stream = new Writable({write: (_chunk, _encoding, done) => done()}) as unknown as NodeJS.WriteStream
  return Object.assign(stream, {columns: 120, isTTY})
}

function records() {
  return Array.from({length: ROWS}, (_, i) => ({
    created_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    email: `customer-${i}@example.com`,
    id: i + 1,
    name: i % 97 === 0 ? `A rather long name that will not fit ${'x'.repeat(60)} ${i}` : `Customer ${i}`,
    status: i % 3 === 0 ? 'invited' : 'active',
  }))
}

async function cpuMs(isTTY: boolean): Promise<number> {
  const rows = records()
  const io = new IOStreams({env: {}, stderr: sink(false), stdout: sink(isTTY)})
  const before = process.cpuUsage()
  await renderListHuman(io, rows, {columns: COLUMNS})
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000
}

export async function run() {
  await cpuMs(true) // warm-up
  await cpuMs(false)
  const terminal = Math.min(await cpuMs(true), await cpuMs(true), await cpuMs(true))
  const pipe = Math.min(await cpuMs(false), await cpuMs(false), await cpuMs(false))
  const ratio = terminal / pipe
  console.log(
    `${ROWS} rows: terminal table ${terminal.toFixed(0)} ms CPU, pipe (TSV) ${pipe.toFixed(0)} ms CPU, ratio ${ratio.toFixed(2)}x (goal: under 1000 ms, within 3x)`,
  )
  return {pipeMs: pipe, ratio, rows: ROWS, terminalMs: terminal}
}
