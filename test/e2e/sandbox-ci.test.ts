/**
 * The sandbox for CI jobs (issue 48): a detached sandbox that ends with the process it was told to exit with; a
 * seed that says its ids, takes --set, and fails the same way (exit 2) whichever command applies it; a seeded
 * webhook's signing secret through `webhooks secret --reveal`; the demo ended by a signal leaves no sandbox.
 */
import {spawn} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {isProcessAlive} from '../../src/domain/processes.js'
import {eventually, ROOT, run, tempConfigDir} from '../helpers/cli.js'

const dirs: Array<{dir: string; cleanup: () => void}> = []
afterEach(async () => {
  for (const d of dirs.splice(0)) {
    await run(['sandbox', 'stop'], {env: {COMMERCE_CONFIG_DIR: d.dir}})
    d.cleanup()
  }
})

function configDir(): string {
  const d = tempConfigDir()
  dirs.push(d)
  return d.dir
}

const SCENARIO = {
  customers: {alice: {email: 'alice@example.com', name: 'Alice'}},
  webhooks: {hook: {events: ['order.paid'], url: 'http://127.0.0.1:1/placeholder'}},
}

describe('the sandbox for CI jobs', () => {
  it('start --detach --seed --set --json: the ids in the document; the seeded webhook’s secret through webhooks secret --reveal', async () => {
    const dir = configDir()
    const file = join(dir, 's.json')
    writeFileSync(file, JSON.stringify(SCENARIO))
    const env = {COMMERCE_CONFIG_DIR: dir}
    const r = await run(
      ['sandbox', 'start', '--detach', '--in-memory', '--port', '0', '--seed', file, '--set', 'hook.url=http://127.0.0.1:2/hooks', '--json'],
      {env},
    )
    expect(r.code, r.stderr).toBe(0)
    const started = r.json<{ids: {alice: number; hook: string}}>()
    expect(started.ids).toEqual({alice: 1, hook: expect.stringMatching(/^we_/)})
    const secret = await run(['webhooks', 'secret', started.ids.hook, '--reveal', '--json'], {env})
    expect(secret.code, secret.stderr).toBe(0)
    expect(secret.json().signing_secret).toMatch(/^whsec_/)
    const masked = await run(['webhooks', 'secret', started.ids.hook], {env})
    expect(masked.stdout).not.toContain(secret.json().signing_secret)
    // sandbox seed takes --set as well.
    const again = await run(
      ['sandbox', 'seed', file, '--set', 'alice.email=alice2@example.com', '--set', 'hook.url=http://127.0.0.1:3/h', '--json'],
      {env},
    )
    expect(again.code, again.stderr).toBe(0)
    expect(again.json()).toMatchObject({alice: 2})
  })

  it('a bad scenario is exit 2 (validation_failed) from sandbox seed, start --seed and start --detach --seed alike', async () => {
    const dir = configDir()
    const file = join(dir, 'bad.json')
    writeFileSync(file, JSON.stringify({customers: {bob: {email: 'not an email', name: 'Bob'}}}))
    const env = {COMMERCE_CONFIG_DIR: dir}
    for (const args of [
      ['sandbox', 'start', '--in-memory', '--port', '0', '--seed', file],
      ['sandbox', 'start', '--detach', '--in-memory', '--port', '0', '--seed', file],
    ]) {
      const r = await run([...args, '--json'], {env})
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.json().error.code, args.join(' ')).toBe('validation_failed')
    }
    expect((await run(['sandbox', 'start', '--detach', '--in-memory', '--port', '0'], {env})).code).toBe(0)
    const seeded = await run(['sandbox', 'seed', file, '--json'], {env})
    expect(seeded.code).toBe(2)
    expect(seeded.json().error.code).toBe('validation_failed')
  })

  it('start --history over an existing data file says it adds nothing, and how to get the history', async () => {
    const dir = configDir()
    const env = {COMMERCE_CONFIG_DIR: dir}
    expect((await run(['sandbox', 'start', '--detach', '--port', '0'], {env})).code).toBe(0)
    await run(['sandbox', 'stop'], {env})
    const again = await run(['sandbox', 'start', '--detach', '--port', '0', '--history', '5'], {env})
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toMatch(/--history fills a new data file only, and .*sandbox-data\.json exists/)
    expect(again.stderr).toContain('--in-memory')
    await run(['sandbox', 'stop'], {env})
    const fresh = await run(['sandbox', 'start', '--detach', '--port', '0', '--in-memory', '--history', '5'], {env})
    expect(fresh.stderr).not.toMatch(/fills a new data file only/)
  })

  it('start --detach --exit-with PID: the sandbox stops by itself when that process ends', async () => {
    const dir = configDir()
    const job = spawn('sleep', ['30'], {stdio: 'ignore'})
    const r = await run(['sandbox', 'start', '--detach', '--in-memory', '--port', '0', '--exit-with', String(job.pid), '--json'], {
      env: {COMMERCE_CONFIG_DIR: dir},
    })
    expect(r.code, r.stderr).toBe(0)
    const {pid} = r.json<{pid: number}>()
    expect(isProcessAlive(pid)).toBe(true)
    job.kill('SIGKILL')
    expect(await eventually(() => !isProcessAlive(pid), 5000), 'the sandbox outlived the process it was to exit with').toBe(true)
    expect((await run(['sandbox', 'status'], {env: {COMMERCE_CONFIG_DIR: dir}})).code).toBe(1)
  })

  it('the demo ended by SIGTERM stops its sandbox and exits 143', async () => {
    const dir = configDir()
    const demo = spawn(process.execPath, [join(ROOT, 'scripts', 'demo.js')], {
      env: {COMMERCE_DEMO_DIR: dir, HOME: dir, PATH: process.env.PATH},
      stdio: ['ignore', 'ignore', 'ignore'],
    })
    const state = join(dir, 'sandbox.json')
    expect(await eventually(() => existsSync(state), 15_000)).toBe(true)
    const {pid} = JSON.parse(readFileSync(state, 'utf8')) as {pid: number}
    demo.kill('SIGTERM')
    const code = await new Promise<number | null>((resolve) => demo.on('close', (c) => resolve(c)))
    expect(code).toBe(143)
    expect(await eventually(() => !isProcessAlive(pid), 5000)).toBe(true)
  })
})
