/** `commerce sandbox start|stop|status` as users run them: the built CLI as a child process. */
import {spawn} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {BIN, ROOT, run, tempConfigDir} from '../helpers/cli.js'

let config: {dir: string; cleanup: () => void}
let env: Record<string, string>
beforeEach(() => {
  config = tempConfigDir()
  env = {COMMERCE_CONFIG_DIR: config.dir}
})
afterEach(async () => {
  await run(['sandbox', 'stop'], {env})
  config.cleanup()
})

describe('sandbox commands', () => {
  it('start --detach --json, status, auth login --sandbox, stop; then status exits 1 and stop exits 0', async () => {
    const started = await run(['sandbox', 'start', '--detach', '--json', '--port', '0', '--in-memory', '--demo-data'], {env})
    expect(started.code, started.stderr).toBe(0)
    const info = started.json()
    expect(Object.keys(info)).toEqual(['base_url', 'pid', 'keys'])
    expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(info.keys).toHaveLength(2)

    const status = await run(['sandbox', 'status', '--json'], {env})
    expect(status.code).toBe(0)
    // Exactly the contract's object, as `start --detach --json` prints it (the counts are for humans).
    expect(status.json()).toEqual(info)
    const human = await run(['sandbox', 'status'], {env})
    expect(human.stdout).toContain(`Sandbox running at ${info.base_url} (pid ${info.pid})`)
    expect(human.stdout).toMatch(/12 customers/)
    // Every line fits 80 columns (each key's secret on a line of its own); the banner points to the inspector page.
    for (const line of human.stdout.trimEnd().split('\n')) expect(line.length, line).toBeLessThanOrEqual(80)
    expect(human.stdout).toContain(`Inspector: ${info.base_url}/_sandbox/ui (\`commerce sandbox open\`)`)
    for (const key of info.keys) expect(human.stdout).toContain(`    secret ${key.key_secret}`)
    // Which scope each operation needs is the sandbox's choice (the spec does not say): the banner says it.
    expect(human.stdout).toContain("Scopes (this sandbox's choice; the spec does not say, and a service may differ):")
    expect(human.stdout).toMatch(/^ {2}orders:write {4}create customer, update customer, delete customer,$/m)

    const login = await run(['auth', 'login', '--sandbox', '--json'], {env})
    expect(login.code, login.stderr).toBe(0)
    expect(login.json()).toMatchObject({base_url: info.base_url, key_id: info.keys[0].key_id})
    // The sandbox counts money in cents (its README decision), so its profile says so: terminals show €131.12.
    const unit = await run(['config', 'get', 'money_unit'], {env})
    expect(unit.stdout.trim()).toBe('minor')
    // Logged in now: status names the profile instead of telling how to log in.
    expect(human.stdout).toContain('Log in with `commerce auth login --sandbox`.')
    const after = await run(['sandbox', 'status'], {env})
    expect(after.stdout).toContain('Logged in here: profile "default".')
    expect(after.stdout).not.toContain('Log in with')

    // The detached sandbox's log holds its requests (one JSON line each), secrets masked.
    const log = readFileSync(join(config.dir, 'sandbox.log'), 'utf8')
    const tokenLine = log.split('\n').find((l) => l.includes('"path":"/api/v2/auth/tokens"'))
    expect(JSON.parse(tokenLine!)).toMatchObject({method: 'POST', status: 201, key_id: info.keys[0].key_id, request_body: {key_secret: '********'}})
    expect(log).not.toContain(info.keys[0].key_secret)

    // A set-up run again finds the sandbox it started: exit 0, its details; one that asks for new data is refused.
    const again = await run(['sandbox', 'start', '--detach', '--port', '0', '--in-memory', '--json'], {env})
    expect(again.code, again.stderr).toBe(0)
    expect(again.json()).toMatchObject({already_running: true, base_url: info.base_url, pid: info.pid})
    const seeded = await run(['sandbox', 'start', '--detach', '--port', '0', '--history', '3'], {env})
    expect(seeded.code).toBe(1)
    expect(seeded.stderr).toContain('already running')

    const stop = await run(['sandbox', 'stop'], {env})
    expect(stop.code).toBe(0)
    expect(stop.stdout).toContain(`pid ${info.pid}`)
    const none = await run(['sandbox', 'status', '--json'], {env})
    expect(none.code).toBe(1)
    expect(none.json().error.message).toMatch(/No local sandbox/)
    const stopNone = await run(['sandbox', 'stop'], {env})
    expect(stopNone.code).toBe(0)
    expect(stopNone.stdout).toMatch(/nothing to stop/)
  })

  it('in the foreground it prints the URL and keys, and SIGTERM stops it with exit 0 and keeps the data', async () => {
    const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0'], {
      cwd: ROOT,
      env: {HOME: config.dir, PATH: process.env.PATH ?? '', ...env},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    await expect.poll(() => out, {interval: 50, timeout: 15_000}).toMatch(/sbx_read_\w+ +customers:read\n +secret sbx_secret_\w+/)
    expect(out).toMatch(/^Sandbox running at http:\/\/127\.0\.0\.1:\d+ \(pid \d+\)/)
    expect(existsSync(join(config.dir, 'sandbox.json'))).toBe(true)
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(existsSync(join(config.dir, 'sandbox.json'))).toBe(false)
    expect(existsSync(join(config.dir, 'sandbox-data.json'))).toBe(true)
  })

  it('rejects bad flags with exit 2', async () => {
    const r = await run(['sandbox', 'start', '--port', '70000'], {env})
    expect(r.code).toBe(2)
    const both = await run(['sandbox', 'start', '--data', 'x.json', '--in-memory'], {env})
    expect(both.code).toBe(2)
  })

  it('warns on stderr that the control path is unauthenticated when --host is not loopback (and not on loopback)', async () => {
    // 192.0.2.1 (TEST-NET-1) is not an address of this machine: the bind fails, after the warning, and nothing listens.
    const r = await run(['sandbox', 'start', '--host', '192.0.2.1', '--port', '0', '--in-memory'], {env})
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/192\.0\.2\.1.*control path.*no authentication/s)
    const quiet = await run(['sandbox', 'start', '--detach', '--host', '127.0.0.1', '--port', '0', '--in-memory'], {env})
    expect(quiet.code, quiet.stderr).toBe(0)
    expect(quiet.stderr).not.toMatch(/no authentication/)
  })
})
