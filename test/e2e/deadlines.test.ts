/**
 * Every wait on something outside the CLI has a deadline that holds (docs/deadlines.md), proven here against
 * counterparts that accept a connection and then never answer: an API server, the token endpoint, and an HTTPS
 * proxy that takes CONNECT; and a prompt whose terminal goes away. (The keyring, --jq, the locks, tunnels, the
 * listener's probe and forwards, and the sandbox's start and stop have theirs beside the code they test; the
 * table in docs/deadlines.md names each test.)
 */
import {execFileSync} from 'node:child_process'
import {type Server, type Socket, createServer} from 'node:net'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {run, tempConfigDir} from '../helpers/cli.js'
import {killAllSessions, startInTmux} from '../helpers/tmux.js'

/** A TCP server that accepts every connection, reads what is sent, and never writes a byte. */
async function silentServer(): Promise<{url: string; connections: () => number; received: () => string; close: () => Promise<void>}> {
  const sockets = new Set<Socket>()
  let connections = 0
  let received = ''
  const server: Server = createServer((socket) => {
    connections++
    sockets.add(socket)
    socket.on('data', (d) => (received += d.toString('latin1')))
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as {port: number}
  return {
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
    connections: () => connections,
    received: () => received,
    url: `http://127.0.0.1:${port}`,
  }
}

let silent: Awaited<ReturnType<typeof silentServer>>
const tmp = tempConfigDir()
beforeAll(async () => {
  silent = await silentServer()
})
afterAll(async () => {
  await silent.close()
  tmp.cleanup()
})
afterEach(() => killAllSessions())

/** The CLI with a 1 s HTTP deadline; the test's own kill comes at 20 s. */
async function timed(args: string[], env: Record<string, string>) {
  const started = Date.now()
  const r = await run(args, {env: {COMMERCE_CONFIG_DIR: tmp.dir, COMMERCE_HTTP_TIMEOUT: '1', ...env}})
  return {...r, elapsed: Date.now() - started}
}

describe('a counterpart that accepts and never answers', () => {
  it('the API server, on a GET: exit 1 within COMMERCE_HTTP_TIMEOUT, saying so (retries do not multiply it)', async () => {
    const r = await timed(['customers', 'list'], {COMMERCE_ACCESS_TOKEN: 'tok_test', COMMERCE_BASE_URL: silent.url})
    expect(r.signal, 'killed by the test: it hung').toBeNull()
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).toMatch(/timed out.*COMMERCE_HTTP_TIMEOUT/)
    expect(r.elapsed).toBeLessThan(8000)
  })

  it('the token endpoint: exit 1 within the deadline; the key secret is not printed', async () => {
    const r = await timed(['customers', 'list'], {COMMERCE_BASE_URL: silent.url, COMMERCE_KEY_ID: 'key_1', COMMERCE_KEY_SECRET: 'secret_never_printed'})
    expect(r.signal, 'killed by the test: it hung').toBeNull()
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).toMatch(/token request/)
    expect(r.stderr).not.toContain('secret_never_printed')
    expect(r.elapsed).toBeLessThan(8000)
  })

  it('an HTTPS proxy that takes CONNECT and never answers: exit 1 within the deadline', async () => {
    const before = silent.connections()
    const r = await timed(['products', 'list'], {COMMERCE_BASE_URL: 'https://commerce.example.test', HTTPS_PROXY: silent.url})
    expect(r.signal, 'killed by the test: it hung').toBeNull()
    expect(r.code, r.stderr).toBe(1)
    expect(silent.connections()).toBeGreaterThan(before)
    expect(silent.received()).toContain('CONNECT commerce.example.test:443')
    expect(r.elapsed).toBeLessThan(8000)
  })
})

describe('a prompt whose terminal goes away', () => {
  it('ends the CLI at once (no process left waiting for a person who cannot answer)', async () => {
    const marker = `hangup-${process.pid}-${Date.now()}`
    const term = await startInTmux(['auth', 'login', '--profile', marker], {env: {COMMERCE_CONFIG_DIR: tmp.dir}})
    await term.waitFor('Base URL')
    const pids = () => {
      try {
        return execFileSync('pgrep', ['-f', marker], {encoding: 'utf8'}).trim().split('\n').filter(Boolean)
      } catch {
        return []
      }
    }
    expect(pids().length).toBeGreaterThan(0)
    await term.kill()
    await expect.poll(pids, {interval: 50, timeout: 3000}).toEqual([])
  })
})
