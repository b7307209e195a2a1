/**
 * The MCP server's stdio transport stopped by a signal that came before the server was ready (SIGTERM while
 * `commerce mcp` was still checking its key): it must close, reading nothing, rather than serve on until stdin ends.
 */
import {PassThrough} from 'node:stream'
import {describe, expect, it} from 'vitest'

import {PacedStdioTransport} from '../../src/services/mcp/stdio-transport.js'

describe('PacedStdioTransport', () => {
  it('stopped before it started, it closes at start and reads nothing', async () => {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const transport = new PacedStdioTransport(stdin, stdout, {graceMs: 60_000})
    transport.stop('SIGTERM')
    // As the SDK's Server.connect does: its handlers set, then start().
    const read: unknown[] = []
    transport.onmessage = (m) => read.push(m)
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve))
    stdin.write(`${JSON.stringify({id: 1, jsonrpc: '2.0', method: 'tools/list'})}\n`)
    await transport.start()
    await closed
    expect(read).toEqual([])
    expect(stdin.isPaused()).toBe(true)
  })

  it('stopped once started, it answers nothing more it reads and closes when nothing is in flight', async () => {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const transport = new PacedStdioTransport(stdin, stdout, {graceMs: 60_000})
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve))
    await transport.start()
    transport.stop('SIGTERM')
    await closed
  })
})
