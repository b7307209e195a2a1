import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {readSandboxState, sandboxStatePath} from '../../src/config/sandbox-state.js'
import {sandboxStatus, startDetached, stopSandbox} from '../../src/services/sandbox/process.js'

const FIXTURE = join(import.meta.dirname, 'fixtures', 'foreground.ts')
const NODE_OPTIONS = ['--import', 'tsx']

let dir: string
let env: NodeJS.ProcessEnv
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-process-'))
  env = {...process.env, COMMERCE_CONFIG_DIR: dir}
})
afterEach(async () => {
  await stopSandbox(env, 2_000)
  rmSync(dir, {force: true, recursive: true})
})

const detach = (options: object) => startDetached({args: [FIXTURE, JSON.stringify(options)], env, nodeOptions: NODE_OPTIONS})

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('sandbox process', () => {
  it('starts detached, reports status and counts, and stops cleanly; stop and status with none running', async () => {
    const state = await detach({dataFile: null, port: 0, seedDemoData: true})
    expect(state.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(state.keys.map((k) => k.scopes)).toEqual([['orders:read', 'orders:write', 'customers:read'], ['customers:read']])
    expect(alive(state.pid)).toBe(true)
    const products = await fetch(`${state.base_url}/api/v2/products`)
    expect(products.status).toBe(200)
    const status = await sandboxStatus(env)
    expect(status?.state.pid).toBe(state.pid)
    expect(status?.counts).toMatchObject({customers: 12, products: 24})
    await expect(detach({dataFile: null, port: 0})).rejects.toThrow(/already running at http/)

    const stopped = await stopSandbox(env)
    expect(stopped?.pid).toBe(state.pid)
    expect(alive(state.pid)).toBe(false)
    expect(existsSync(sandboxStatePath(env))).toBe(false)
    expect(await stopSandbox(env)).toBeUndefined()
    expect(await sandboxStatus(env)).toBeUndefined()
  })

  it('a stopped sandbox has written its data file; the next one keeps its keys', async () => {
    const dataFile = join(dir, 'data.json')
    const first = await detach({dataFile, port: 0})
    const {key_id, key_secret} = first.keys[0]
    const issued = await fetch(`${first.base_url}/api/v2/auth/tokens`, {
      body: JSON.stringify({key_id, key_secret}),
      headers: {'content-type': 'application/json'},
      method: 'POST',
    })
    const {access_token} = (await issued.json()) as {access_token: string}
    await fetch(`${first.base_url}/api/v2/customers`, {
      body: JSON.stringify({email: 'ada@example.com', name: 'Ada'}),
      headers: {authorization: `Bearer ${access_token}`, 'content-type': 'application/json'},
      method: 'POST',
    })
    await stopSandbox(env)
    expect(readFileSync(dataFile, 'utf8')).toContain('ada@example.com')
    const second = await detach({dataFile, port: 0})
    expect(second.keys).toEqual(first.keys)
    expect((await sandboxStatus(env))?.counts?.customers).toBe(1)
  })

  it('reports why a detached start failed (port in use), from its log', async () => {
    const busy: Server = createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    const port = (busy.address() as {port: number}).port
    try {
      await expect(detach({dataFile: null, port})).rejects.toThrow(new RegExp(`Port ${port} on 127.0.0.1 is in use`))
      expect(readSandboxState(env)).toBeUndefined()
    } finally {
      busy.close()
    }
  })

  it('treats a state file whose process is gone as no sandbox, and removes it', async () => {
    writeFileSync(sandboxStatePath(env), JSON.stringify({base_url: 'http://127.0.0.1:1', keys: [], pid: 2 ** 22 + 12_345}))
    expect(await sandboxStatus(env)).toBeUndefined()
    expect(existsSync(sandboxStatePath(env))).toBe(false)
    expect(await stopSandbox(env)).toBeUndefined()
  })

  it('in the foreground, SIGINT closes it, removes the state file and exits 0', async () => {
    const child = spawn(process.execPath, [...NODE_OPTIONS, FIXTURE, JSON.stringify({dataFile: join(dir, 'd.json'), port: 0})], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    await expect.poll(() => out, {interval: 50, timeout: 15_000}).toContain('ready')
    expect(readSandboxState(env)?.pid).toBe(child.pid)
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
    child.kill('SIGINT')
    expect(await exited).toBe(0)
    expect(out).toContain('stopped')
    expect(existsSync(sandboxStatePath(env))).toBe(false)
    expect(existsSync(join(dir, 'd.json'))).toBe(true)
  })

  it('a start that never becomes ready ends at its deadline, and the child is killed even if it ignores SIGTERM', async () => {
    const pidFile = join(dir, 'child.pid')
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)`
    const started = Date.now()
    await expect(startDetached({args: ['-e', script], env, nodeOptions: [], timeoutMs: 1000})).rejects.toThrow(/did not start within 1 s/)
    const pid = Number(readFileSync(pidFile, 'utf8'))
    await expect.poll(() => alive(pid), {interval: 50, timeout: 5000}).toBe(false)
    expect(Date.now() - started).toBeLessThan(8000)
  })

  it('stop ends a sandbox that ignores SIGTERM with SIGKILL at its deadline, and forgets it', async () => {
    const child = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); console.log('ready')"], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    await new Promise((resolve) => child.stdout.once('data', resolve))
    writeFileSync(sandboxStatePath(env), JSON.stringify({base_url: 'http://127.0.0.1:1', keys: [], pid: child.pid}))
    const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
    const started = Date.now()
    expect((await stopSandbox(env, 500))?.pid).toBe(child.pid)
    expect(await exited).toBe('SIGKILL')
    expect(Date.now() - started).toBeLessThan(5000)
    expect(existsSync(sandboxStatePath(env))).toBe(false)
  })
})
