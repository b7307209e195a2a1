/**
 * `commerce mcp` as a process under pressure: a SIGTERM while a call waits on a service that never answers (the call
 * is answered, the server exits 143, stdout carries protocol only), a client that stops reading (the server stops
 * reading too, its memory bounded, every call answered once the client reads again), and the resources it offers.
 */
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {describe, expect, it} from 'vitest'

import {BIN, eventually, tempConfigDir} from '../helpers/cli.js'
import {startFaultyServer} from '../helpers/faulty-server.js'

const INITIALIZE = {
  id: 0,
  jsonrpc: '2.0',
  method: 'initialize',
  params: {capabilities: {}, clientInfo: {name: 't', version: '1'}, protocolVersion: '2025-06-18'},
}

function server(env: Record<string, string>, args: string[] = []): {child: ChildProcessWithoutNullStreams; stderr: () => string} {
  const {dir} = tempConfigDir()
  const child = spawn(process.execPath, [BIN, 'mcp', ...args], {
    env: {COMMERCE_CONFIG_DIR: dir, HOME: dir, PATH: process.env.PATH ?? '', ...env},
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  return {child, stderr: () => stderr}
}

const exited = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((resolve) => (child.exitCode === null ? child.once('exit', (code) => resolve(code)) : resolve(child.exitCode)))

/** Resident memory of a process, in bytes (Linux). */
const rss = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) * 1024

describe('commerce mcp, a signal and a slow client', () => {
  it('SIGTERM with a call waiting on a service that never answers: the call is answered (terminated), exit 143, stdout protocol only', async () => {
    const silent = await startFaultyServer(() => new Promise(() => {}))
    const {child, stderr} = server({COMMERCE_ACCESS_TOKEN: 'tok_static_for_test', COMMERCE_BASE_URL: silent.url})
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    try {
      child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`)
      expect(await eventually(() => stdout.includes('"id":0'), 15_000), stderr()).toBe(true)
      child.stdin.write(
        [
          {jsonrpc: '2.0', method: 'notifications/initialized'},
          {id: 1, jsonrpc: '2.0', method: 'tools/call', params: {arguments: {}, name: 'orders_list'}},
        ]
          .map((m) => `${JSON.stringify(m)}\n`)
          .join(''),
      )
      // The request reached the service, which holds it.
      expect(await eventually(() => silent.requests.length > 0, 15_000), stderr()).toBe(true)
      child.kill('SIGTERM')
      expect(await exited(child)).toBe(143)
      const lines = stdout.trim().split('\n')
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({jsonrpc: '2.0'})
      const answer = lines
        .map((l) => JSON.parse(l) as {id?: number; result?: {isError?: boolean; structuredContent?: {error?: {code: string}}}})
        .find((m) => m.id === 1)
      expect(answer?.result?.isError, stdout).toBe(true)
      expect(answer?.result?.structuredContent?.error?.code).toBe('terminated')
      expect(stderr()).toContain('SIGTERM')
    } finally {
      child.kill('SIGKILL')
      await silent.close()
    }
  }, 30_000)

  it('SIGTERM before the server is ready (its key still being checked): it exits 143 without waiting for stdin to close', async () => {
    const silent = await startFaultyServer(() => new Promise(() => {}))
    const {child, stderr} = server({COMMERCE_BASE_URL: silent.url, COMMERCE_KEY_ID: 'key_test', COMMERCE_KEY_SECRET: 'secret_test'})
    try {
      // The start-up check of what the key may do (its token first) reached the service, which holds it: not ready yet.
      expect(await eventually(() => silent.requests.length > 0, 15_000), stderr()).toBe(true)
      child.kill('SIGTERM')
      // stdin stays open: only the signal can end it.
      const code = await Promise.race([exited(child), new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 20_000))])
      expect(code, stderr()).toBe(143)
    } finally {
      child.kill('SIGKILL')
      await silent.close()
    }
  }, 40_000)

  it('a client that stops reading: the server stops reading too, its memory within 50 MB over 5,000 calls, then every call answered', async () => {
    const {child, stderr} = server({COMMERCE_BASE_URL: 'http://127.0.0.1:9'}, ['--allow-writes'])
    const answered = new Set<number>()
    let pending = ''
    const readAnswers = (chunk: string) => {
      pending += chunk
      const lines = pending.split('\n')
      pending = lines.pop() ?? ''
      for (const line of lines) {
        const id = (JSON.parse(line) as {id?: number}).id
        if (typeof id === 'number') answered.add(id)
      }
    }
    child.stdout.setEncoding('utf8').on('data', readAnswers)
    try {
      child.stdin.write(`${JSON.stringify(INITIALIZE)}\n${JSON.stringify({jsonrpc: '2.0', method: 'notifications/initialized'})}\n`)
      child.stdin.write(`${JSON.stringify({id: 1, jsonrpc: '2.0', method: 'tools/list'})}\n`)
      expect(await eventually(() => answered.has(1), 15_000), stderr()).toBe(true)
      // The client stops reading: each tools/list answer (about 24 KB with the writes) stays with the server or the pipe.
      child.stdout.pause()
      const start = rss(child.pid!)
      const CALLS = 5000
      for (let id = 2; id < CALLS + 2; id++) child.stdin.write(`${JSON.stringify({id, jsonrpc: '2.0', method: 'tools/list'})}\n`)
      // Until the server has stopped taking requests: what the client wrote stays in its own buffer, unchanged.
      let last = -1
      let same = 0
      const settled = await eventually(() => {
        const left = child.stdin.writableLength
        same = left === last && left > 0 ? same + 1 : 0
        last = left
        return same >= 10
      }, 20_000)
      expect(settled, 'the server went on reading requests it could not answer').toBe(true)
      const grown = rss(child.pid!) - start
      expect(grown, `grew ${(grown / 1e6).toFixed(1)} MB`).toBeLessThan(50 * 1024 * 1024)
      expect(answered.size).toBeLessThan(CALLS / 10)
      // The client reads again: every call is answered, once.
      child.stdout.resume()
      expect(await eventually(() => answered.size === CALLS + 2, 60_000), `${answered.size} answered`).toBe(true)
      child.stdin.end()
      expect(await exited(child)).toBe(0)
      expect(stderr()).not.toContain('MaxListenersExceededWarning')
    } finally {
      child.kill('SIGKILL')
    }
  }, 120_000)
})

describe('commerce mcp, its resources', () => {
  it('offers the OpenAPI document and the docs pages, and reads them; a URI it does not list is an error', async () => {
    const {dir} = tempConfigDir()
    const transport = new StdioClientTransport({
      args: [BIN, 'mcp'],
      command: process.execPath,
      env: {COMMERCE_BASE_URL: 'http://127.0.0.1:9', COMMERCE_CONFIG_DIR: dir, HOME: dir, PATH: process.env.PATH ?? ''},
      stderr: 'pipe',
    })
    const client = new Client({name: 'resources', version: '1.0.0'})
    await client.connect(transport)
    try {
      const {resources} = await client.listResources()
      const uris = resources.map((r) => r.uri)
      expect(uris).toContain('commerce://openapi.json')
      expect(uris).toContain('commerce://docs/errors.md')
      expect(resources.find((r) => r.uri === 'commerce://docs/errors.md')?.title).toMatch(/^Errors/)
      const openapi = await client.readResource({uri: 'commerce://openapi.json'})
      const document = JSON.parse((openapi.contents[0] as {text: string}).text) as {openapi: string; components: {schemas: Record<string, unknown>}}
      expect(document.openapi).toMatch(/^3\.1/)
      expect(Object.keys(document.components.schemas)).toContain('Currency')
      expect(Object.keys(document.components.schemas)).not.toContain('Error')
      const page = await client.readResource({uri: 'commerce://docs/errors.md'})
      expect((page.contents[0] as {text: string}).text).toContain('exit')
      await expect(client.readResource({uri: 'commerce://docs/../package.json'})).rejects.toThrow(/No resource/)
    } finally {
      await client.close()
    }
  }, 30_000)
})
