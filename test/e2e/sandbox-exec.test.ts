/**
 * `commerce sandbox exec` as a CI job runs it: under setsid (a session and process group of its own, as a runner
 * starts a job), CI=true, no terminal. The app under test is given the sandbox through the environment alone: it
 * creates an order with the key pair, receives the signed order.paid delivery on its own receiver and verifies it
 * with the seeded webhook's secret. The exit status passes through; a cancelled job (SIGTERM to the group, SIGKILL of
 * exec) leaves no process and frees every port.
 */
import {spawn} from 'node:child_process'
import {existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
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
    // A command that is not there is 127 as a shell says (the sandbox stopped all the same), one that cannot run 126;
    // no command at all is exit 2.
    const missing = await job(['--', 'no-such-command-of-commerce-tests'])
    expect(missing.code).toBe(127)
    expect(missing.stderr).toContain('no-such-command-of-commerce-tests: no such command (not found on PATH)')
    const absolute = await job(['--', '/nonexistent/cmd'])
    expect(absolute.code).toBe(127)
    writeFileSync(join(work, 'not-executable.sh'), 'echo hi\n', {mode: 0o644})
    expect((await job(['--', './not-executable.sh'])).code).toBe(126)
    const none = await job([])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('Name the command to run after --')
    // A bad --set is exit 2 before anything runs.
    const bad = await job(['--seed', seed, '--set', 'nobody.email=x', '--', 'true'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--set .*nobody/)
  })

  it('--export-on-exit writes the request log, the deliveries and the final records, 0600, secrets masked', async () => {
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
    const state = JSON.parse(readFileSync(join(out, 'state.json'), 'utf8')) as {customers: unknown[]; keys: Array<{key_secret: string}>}
    expect(state.customers).toHaveLength(1)
    expect(state.keys.length).toBeGreaterThan(0)
    for (const key of state.keys) expect(key.key_secret).toBe('[redacted]')
    expect(Array.isArray(JSON.parse(readFileSync(join(out, 'deliveries.json'), 'utf8')))).toBe(true)
    for (const name of ['requests.jsonl', 'deliveries.json', 'state.json']) expect(statSync(join(out, name)).mode & 0o777, name).toBe(0o600)
  })

  it('--export-on-exit: links planted in DIR are replaced, never written through; a DIR that is a file is exit 2 before COMMAND', async () => {
    const out = join(work, 'planted')
    mkdirSync(out)
    const victims = ['state.json', 'requests.jsonl', 'deliveries.json'].map((name) => {
      const victim = join(work, `victim-${name}`)
      writeFileSync(victim, 'precious\n')
      symlinkSync(victim, join(out, name))
      return victim
    })
    const r = await job(['--export-on-exit', out, '--', process.execPath, BIN, 'customers', 'list', '--json'])
    expect(r.code, r.stderr).toBe(0)
    for (const victim of victims) expect(readFileSync(victim, 'utf8')).toBe('precious\n')
    for (const name of ['state.json', 'requests.jsonl', 'deliveries.json']) expect(lstatSync(join(out, name)).isSymbolicLink(), name).toBe(false)
    // A file where DIR should be, or a link to a directory: refused before COMMAND runs.
    const marker = join(work, 'ran')
    const file = join(work, 'a-file')
    writeFileSync(file, '')
    symlinkSync(out, join(work, 'dir-link'))
    for (const dir of [file, join(work, 'dir-link')]) {
      const refused = await job(['--export-on-exit', dir, '--', 'touch', marker])
      expect(refused.code, refused.stderr).toBe(2)
      expect(refused.stderr).toContain('--export-on-exit')
      expect(existsSync(marker)).toBe(false)
    }
    // DIR taken away while COMMAND runs: a warning, and exec ends with COMMAND's own status.
    const gone = join(work, 'gone')
    const late = await job(['--export-on-exit', gone, '--', 'sh', '-c', `rm -rf ${gone} && touch ${gone} && exit 7`])
    expect(late.code, late.stderr).toBe(7)
    expect(late.stderr).toMatch(/Warning: .*not all written/)
  })

  it('COMMAND gets no COMMERCE_WEBHOOK_SECRET of the caller, and the sandbox is never reached through a proxy', async () => {
    const product = join(work, 'product.json')
    const r = await job(['--', 'sh', '-c', `env > ${join(work, 'env.txt')} && ${process.execPath} ${BIN} products get 1 --json > ${product}`], {
      COMMERCE_WEBHOOK_SECRET: 'whsec_production',
      HTTP_PROXY: 'http://127.0.0.1:9',
      http_proxy: 'http://127.0.0.1:9',
      NO_PROXY: 'internal.example',
    })
    expect(r.code, r.stderr).toBe(0)
    const env = readFileSync(join(work, 'env.txt'), 'utf8')
    expect(env).not.toContain('whsec_production')
    expect(env).toMatch(/^NO_PROXY=internal\.example,127\.0\.0\.1$/m)
    expect(env).toMatch(/^no_proxy=127\.0\.0\.1$/m)
    // Inside exec the unit of the sandbox's amounts is known (its state is in COMMAND's config directory).
    expect(JSON.parse(readFileSync(product, 'utf8'))).toMatchObject({money_unit: 'minor', price: expect.any(Number)})
  })

  it('the config directory handed to COMMAND is removed when exec is killed, or by the next exec', async () => {
    const temp = join(work, 'tmp')
    mkdirSync(temp, {recursive: true})
    // One left by an exec that died where no watchdog runs (a terminal): the next exec removes it.
    const left = join(temp, 'commerce-exec-999999999-abcdef')
    mkdirSync(left)
    writeFileSync(join(left, 'config.json'), '{}')
    const r = await job(['--', 'true'], {TMPDIR: temp})
    expect(r.code, r.stderr).toBe(0)
    expect(existsSync(left)).toBe(false)
    expect(readdirSync(temp).filter((n) => n.startsWith('commerce-exec-'))).toEqual([])
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

  it('SIGKILL of exec alone: the app, the sandbox and its config directory end with it within 5 s', async () => {
    const pidFile = join(work, 'app-kill.pid')
    const temp = join(work, 'tmp-kill')
    mkdirSync(temp, {recursive: true})
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
        TMPDIR: temp,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    exec.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    expect(await eventually(() => existsSync(pidFile), 10_000)).toBe(true)
    const app = Number(readFileSync(pidFile, 'utf8'))
    const dirs = () => readdirSync(temp).filter((n) => n.startsWith(`commerce-exec-${exec.pid}-`))
    expect(dirs()).toHaveLength(1)
    exec.kill('SIGKILL')
    expect(await eventually(() => !isProcessAlive(app), 5000), 'the app outlived exec').toBe(true)
    expect(await portFree(sandboxPort(stderr))).toBe(true)
    // Its config directory (a cached token, the sandbox's key secrets) went with it: the watchdog removed it.
    expect(await eventually(() => dirs().length === 0, 5000), 'the config directory outlived exec').toBe(true)
  })
})
