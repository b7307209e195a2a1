/**
 * `commerce sandbox exec` as a CI job runs it: under setsid (a session and process group of its own, as a runner
 * starts a job), CI=true, no terminal. The app under test is given the sandbox through the environment alone: it
 * creates an order with the key pair, receives the signed order.paid delivery on its own receiver and verifies it
 * with the seeded webhook's secret. The exit status passes through; a cancelled job (SIGTERM to the group, SIGKILL of
 * exec) leaves no process and frees every port.
 */
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {isProcessAlive} from '../../src/domain/processes.js'
import {BIN, eventually} from '../helpers/cli.js'

const work = mkdtempSync(join(tmpdir(), 'commerce-exec-test-'))
afterAll(() => rmSync(work, {force: true, recursive: true}))

/** A port free now (the receiver's, named in the scenario before the app starts). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as {port: number}
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** The app under test: everything it knows of the sandbox comes from its environment. */
const APP = `
import {execFileSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
const {COMMERCE_BASE_URL: base, COMMERCE_KEY_ID: key_id, COMMERCE_KEY_SECRET: key_secret, COMMERCE_ID_ALICE: alice} = process.env
const cli = (...args) => execFileSync(process.execPath, [process.env.BIN, ...args], {encoding: 'utf8'})
const delivered = new Promise((resolve) => {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d)).on('end', () => { res.end('ok'); server.close(); resolve({body, signature: req.headers['x-service-signature']}) })
  }).listen(Number(process.env.RECEIVER_PORT), '127.0.0.1')
})
if (process.env.APP_WRITE_PID) writeFileSync(process.env.APP_WRITE_PID, String(process.pid))
if (process.env.APP_HANG) { setInterval(() => {}, 1000); await new Promise(() => {}) }
const {access_token} = await (await fetch(base + '/api/v2/auth/tokens', {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({key_id, key_secret})})).json()
const order = await (await fetch(base + '/api/v2/orders', {method: 'POST', headers: {authorization: 'Bearer ' + access_token, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID()}, body: JSON.stringify({customer_id: Number(alice), currency: 'USD', items: [{product_id: 1, quantity: 2}]})})).json()
cli('webhooks', 'trigger', 'order.paid', '--order', String(order.id))
const {body, signature} = await delivered
writeFileSync('payload.json', body)
// The seeded webhook's secret arrives as COMMERCE_WEBHOOK_SECRET: verify exits 0 only for a good signature.
cli('webhooks', 'verify', '--signature', signature, '--payload-file', 'payload.json')
const event = JSON.parse(body)
if (event.type !== 'order.paid' || event.data.id !== order.id) process.exit(3)
process.exit(Number(process.env.APP_EXIT ?? 0))
`

interface Job {
  code: number | null
  signal: string | null
  stderr: string
}

/** Runs `sandbox exec` as a CI job: setsid, CI=true, no terminal, stdin closed. */
function job(args: string[], env: Record<string, string> = {}, onStart?: (pid: number) => void): Promise<Job> {
  const child = spawn('setsid', ['--wait', process.execPath, BIN, 'sandbox', 'exec', ...args], {
    cwd: work,
    env: {BIN, CI: 'true', HOME: work, PATH: process.env.PATH ?? '', ...env},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  child.stdout.resume()
  onStart?.(child.pid!)
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({code, signal, stderr})
    }),
  )
}

async function scenario(receiver: number): Promise<string> {
  const file = join(work, `s-${receiver}.json`)
  writeFileSync(
    file,
    JSON.stringify({
      customers: {alice: {email: `alice-${receiver}@example.com`, name: 'Alice'}},
      webhooks: {hook: {events: ['order.paid'], url: 'http://127.0.0.1:1/placeholder'}},
    }),
  )
  return file
}

/** The port `sandbox exec` said it listens on (its ready line on stderr). */
const sandboxPort = (stderr: string) => Number(/Sandbox at http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1])

async function portFree(port: number): Promise<boolean> {
  const server = createServer()
  return new Promise((resolve) => {
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

describe('sandbox exec, as a CI job', () => {
  writeFileSync(join(work, 'app.mjs'), APP)

  it('the app creates an order and verifies the signed delivery with what exec gave it; exit 0, and 7 when the app fails', async () => {
    const receiver = await freePort()
    const seed = await scenario(receiver)
    const set = ['--set', `hook.url=http://127.0.0.1:${receiver}/hooks`]
    const ok = await job(['--seed', seed, ...set, '--', process.execPath, 'app.mjs'], {RECEIVER_PORT: String(receiver)})
    expect(ok.code, ok.stderr).toBe(0)
    const failing = await job(['--seed', seed, ...set, '--', process.execPath, 'app.mjs'], {APP_EXIT: '7', RECEIVER_PORT: String(receiver)})
    expect(failing.code, failing.stderr).toBe(7)
    // A command that is not there is exit 2 saying so (the sandbox stopped all the same); no command at all too.
    const missing = await job(['--', 'no-such-command-of-commerce-tests'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('no-such-command-of-commerce-tests: no such command (not found on PATH)')
    const none = await job([])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('Name the command to run after --')
    // A bad --set is exit 2 before anything runs.
    const bad = await job(['--seed', seed, '--set', 'nobody.email=x', '--', 'true'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--set .*nobody/)
  })

  it('--export-on-exit writes the request log, the deliveries and the final records', async () => {
    const out = join(work, 'artifacts')
    const r = await job([
      '--export-on-exit',
      out,
      '--',
      process.execPath,
      BIN,
      'customers',
      'create',
      '--email',
      'e@example.com',
      '--name',
      'E',
      '--json',
    ])
    expect(r.code, r.stderr).toBe(0)
    const requests = readFileSync(join(out, 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as {method: string; path: string})
    expect(requests).toContainEqual(expect.objectContaining({method: 'POST', path: '/api/v2/customers'}))
    expect(JSON.parse(readFileSync(join(out, 'state.json'), 'utf8')).customers).toHaveLength(1)
    expect(Array.isArray(JSON.parse(readFileSync(join(out, 'deliveries.json'), 'utf8')))).toBe(true)
  })

  it('SIGTERM to the job’s process group mid-run: exec passes it on, exits 143, and leaves no process and a free port', async () => {
    const pidFile = join(work, 'app-term.pid')
    let group = 0
    const ran = job(
      ['--', process.execPath, 'app.mjs'],
      {APP_HANG: '1', APP_WRITE_PID: pidFile, RECEIVER_PORT: String(await freePort())},
      (pid) => (group = pid),
    )
    expect(await eventually(() => existsSync(pidFile), 10_000)).toBe(true)
    const app = Number(readFileSync(pidFile, 'utf8'))
    process.kill(-group, 'SIGTERM')
    const r = await ran
    expect(r.code, r.stderr).toBe(143)
    expect(await eventually(() => !isProcessAlive(app), 5000)).toBe(true)
    expect(await portFree(sandboxPort(r.stderr))).toBe(true)
  })

  it('SIGKILL of exec alone: the app and the sandbox end with it within 5 s', async () => {
    const pidFile = join(work, 'app-kill.pid')
    const exec = spawn(process.execPath, [BIN, 'sandbox', 'exec', '--', process.execPath, 'app.mjs'], {
      cwd: work,
      env: {
        APP_HANG: '1',
        APP_WRITE_PID: pidFile,
        BIN,
        CI: 'true',
        HOME: work,
        PATH: process.env.PATH ?? '',
        RECEIVER_PORT: String(await freePort()),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    exec.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    expect(await eventually(() => existsSync(pidFile), 10_000)).toBe(true)
    const app = Number(readFileSync(pidFile, 'utf8'))
    exec.kill('SIGKILL')
    expect(await eventually(() => !isProcessAlive(app), 5000), 'the app outlived exec').toBe(true)
    expect(await portFree(sandboxPort(stderr))).toBe(true)
  })
})
