/**
 * Every wait on something outside the CLI has a deadline that holds (docs/deadlines.md), proven here against
 * counterparts that accept a connection and then never answer: an API server, the token endpoint, and an HTTPS
 * proxy that takes CONNECT; a prompt whose terminal goes away; a config lock whose live holder never lets go; a
 * sandbox that runs and never answers `sandbox status`. (The keyring, --jq, the lock mechanism, tunnels, the
 * listener's probe and forwards, and the sandbox's start and stop have theirs beside the code they test; the
 * table in docs/deadlines.md names each test.)
 */
import {execFileSync, spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {type Server, type Socket, createServer} from 'node:net'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {refusedUrl, run, tempConfigDir} from '../helpers/cli.js'
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

  it('id completion (the scripts of `autocomplete` call completion-ids): nothing offered, nothing printed, exit 0 within its 1 s', async () => {
    const ids = (url: string) =>
      run(['completion-ids', 'customer'], {env: {COMMERCE_ACCESS_TOKEN: 'tok_test', COMMERCE_BASE_URL: url, COMMERCE_CONFIG_DIR: tmp.dir}})
    let started = Date.now()
    expect((await ids(await refusedUrl())).code).toBe(0)
    const startup = Date.now() - started
    started = Date.now()
    const r = await ids(silent.url)
    expect(r.signal, 'killed by the test: it hung').toBeNull()
    expect(r.code).toBe(0)
    expect(r.stdout + r.stderr).toBe('')
    expect(Date.now() - started - startup).toBeLessThan(1000 + 1500)
  })

  it('the token endpoint: exit 1 within the deadline; the key secret is not printed', async () => {
    const r = await timed(['customers', 'list'], {
      COMMERCE_BASE_URL: silent.url,
      COMMERCE_KEY_ID: 'key_1',
      COMMERCE_KEY_SECRET: 'secret_never_printed',
    })
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
    await term.hangUp()
    // At once, for a person; the bound leaves room for a loaded machine (a prompt would wait forever).
    await expect.poll(pids, {interval: 50, timeout: 5000}).toEqual([])
    await term.kill()
  })
})

describe('a lock whose holder is alive and never lets go', () => {
  it('the config lock: a change gives up after its 10 s wait with exit 1, naming the lock and the way out', async () => {
    const dir = tempConfigDir()
    const lockPath = `${dir.dir}/config.json.lock`
    // A live holder: it names itself, and keeps the lock's mtime fresh, as a real holder does, so it is never taken for stale.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('fs'); fs.mkdirSync(${JSON.stringify(lockPath)}, {recursive: true}); fs.writeFileSync(${JSON.stringify(lockPath)} + '/owner', require('os').hostname() + ' ' + process.pid); setInterval(() => { const t = new Date(); fs.utimesSync(${JSON.stringify(lockPath)}, t, t) }, 500); console.log('held')`,
      ],
      {stdio: ['ignore', 'pipe', 'ignore']},
    )
    try {
      await new Promise((resolve) => holder.stdout.once('data', resolve))
      const started = Date.now()
      const r = await run(['config', 'set', 'money_unit', 'major'], {env: {COMMERCE_CONFIG_DIR: dir.dir}, timeoutMs: 30_000})
      const elapsed = Date.now() - started
      expect(r.signal, 'killed by the test: it hung').toBeNull()
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toContain(`locked by another commerce process (${lockPath})`)
      expect(r.stderr).toContain(`remove ${lockPath}`)
      expect(elapsed).toBeGreaterThanOrEqual(9000)
      expect(elapsed).toBeLessThan(20_000)
    } finally {
      holder.kill('SIGKILL')
      dir.cleanup()
    }
  }, 40_000)
})

describe('a sandbox that is running and never answers', () => {
  it('sandbox status reports it within its 5 s control deadline, without counts', async () => {
    const dir = tempConfigDir()
    // The test runner itself stands in for the sandbox's process: alive, at a base URL that never answers.
    writeFileSync(`${dir.dir}/sandbox.json`, JSON.stringify({base_url: silent.url, keys: [], pid: process.pid}))
    try {
      const started = Date.now()
      const r = await run(['sandbox', 'status', '--json'], {env: {COMMERCE_CONFIG_DIR: dir.dir}})
      expect(r.signal, 'killed by the test: it hung').toBeNull()
      expect(r.code, r.stderr).toBe(0)
      expect(JSON.parse(r.stdout)).toMatchObject({base_url: silent.url, pid: process.pid})
      expect(Date.now() - started).toBeLessThan(12_000)
    } finally {
      dir.cleanup()
    }
  })
})
