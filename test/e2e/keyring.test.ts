/**
 * The key secret in the OS keyring, against a real Secret Service (gnome-keyring in a private D-Bus
 * session, test/helpers/keyring.ts): login puts it there and nowhere in the config directory, commands read it
 * when a token must be issued (20 parallel renewals still issue one token), status says where it is, logout and
 * `config remove` delete it; with no keyring reachable, login falls back to the file with a warning, quickly.
 */
import {readFileSync, readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {run, tempConfigDir} from '../helpers/cli.js'
import {type FaultyServer, startFaultyServer} from '../helpers/faulty-server.js'
import {type TestKeyring, startTestKeyring} from '../helpers/keyring.js'
import {readConfig, requestsTo} from '../helpers/login.js'
import {type TestSandbox, startTestSandbox} from '../helpers/sandbox.js'
import {killAllSessions, startInTmux} from '../helpers/tmux.js'
import {keyringHintWanted} from '../../src/services/credentials.js'

let sb: TestSandbox
let proxy: FaultyServer
let keyring: TestKeyring
let tmp: {dir: string; cleanup: () => void}

beforeAll(async () => {
  sb = await startTestSandbox()
  proxy = await startFaultyServer(() => ({forward: true}), {upstream: sb.baseUrl})
  keyring = await startTestKeyring()
  if (!keyring.available) console.warn(`keyring tests skipped: ${keyring.reason}`)
})
afterAll(async () => {
  await keyring.close()
  await proxy.close()
  await sb.close()
})
beforeEach(() => {
  tmp = tempConfigDir()
})
afterEach(async () => {
  await killAllSessions()
  tmp.cleanup()
})

const key = () => sb.keys[0]
const cli = (args: string[], env: Record<string, string | undefined> = {}) =>
  run(args, {env: {COMMERCE_CONFIG_DIR: tmp.dir, ...keyring.env, ...env}, timeoutMs: 30_000})
/** Every file under the config directory, as text. */
function everyFile(dir: string): string {
  let text = ''
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    text += statSync(path).isDirectory() ? everyFile(path) : readFileSync(path, 'utf8')
  }
  return text
}

function loginWithStdin(extra: string[], env: Record<string, string | undefined> = {}) {
  return run(['auth', 'login', '--base-url', proxy.url, '--key-id', key().key_id, '--key-secret-stdin', '--json', ...extra], {
    env: {COMMERCE_CONFIG_DIR: tmp.dir, ...keyring.env, ...env},
    input: key().key_secret,
    timeoutMs: 30_000,
  })
}

describe('with a Secret Service', () => {
  it('login --storage keyring -> the secret is in the keyring only -> a renewal reads it -> logout removes it', async (t) => {
    if (!keyring.available) return t.skip(keyring.reason)
    const account = `default:${key().key_id}`
    const r = await loginWithStdin(['--storage', 'keyring'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({storage: 'keyring'})
    expect(keyring.lookup(account)).toBe(key().key_secret)
    expect(everyFile(tmp.dir)).not.toContain(key().key_secret)
    expect(readConfig(tmp.dir).profiles?.default).toMatchObject({key_id: key().key_id, storage: 'keyring'})

    // The service expires the token: the next command meets a 401 and issues one with the secret read from the keyring.
    sb.clock.advance(3601_000)
    const issued = requestsTo(proxy.requests, 'POST', '/auth/tokens').length
    const list = await cli(['customers', 'list', '--json'])
    expect(list.code, list.stderr).toBe(0)
    expect(requestsTo(proxy.requests, 'POST', '/auth/tokens').length - issued).toBe(1)
    expect(requestsTo(proxy.requests, 'POST', '/auth/tokens').at(-1)!.body).toContain(key().key_secret)
    expect(everyFile(tmp.dir)).not.toContain(key().key_secret)
    const status = await cli(['auth', 'status', '--json'])
    expect(status.code, status.stderr).toBe(0)
    expect(status.json()).toMatchObject({logged_in: true, source: 'profile', storage: 'keyring'})

    const out = await cli(['auth', 'logout'])
    expect(out.code, out.stderr).toBe(0)
    expect(keyring.lookup(account)).toBeNull()
  })

  it('20 processes renewing an expired token of a keyring profile: all succeed, one token is issued', {timeout: 120_000}, async (t) => {
    if (!keyring.available) return t.skip(keyring.reason)
    expect((await loginWithStdin(['--storage', 'keyring'])).code).toBe(0)
    sb.clock.advance(3601_000)
    const issued = requestsTo(proxy.requests, 'POST', '/auth/tokens').length
    const results = await Promise.all(
      Array.from({length: 20}, () =>
        run(['customers', 'list', '--per-page', '2', '--json'], {env: {COMMERCE_CONFIG_DIR: tmp.dir, ...keyring.env}, timeoutMs: 90_000}),
      ),
    )
    for (const r of results) expect(r.code, r.stderr).toBe(0)
    expect(requestsTo(proxy.requests, 'POST', '/auth/tokens').length - issued).toBe(1)
    await cli(['auth', 'logout'])
  })

  it('config remove deletes the keyring entry; config set storage moves the secret both ways', async (t) => {
    if (!keyring.available) return t.skip(keyring.reason)
    const account = `work:${key().key_id}`
    expect((await loginWithStdin(['--profile', 'work'])).json()).toMatchObject({storage: 'file'})
    expect(keyring.lookup(account)).toBeNull()
    let r = await cli(['config', 'set', 'storage', 'keyring', '--profile', 'work'])
    expect(r.code, r.stderr).toBe(0)
    expect(keyring.lookup(account)).toBe(key().key_secret)
    expect(everyFile(tmp.dir)).not.toContain(key().key_secret)
    r = await cli(['config', 'set', 'storage', 'file', '--profile', 'work'])
    expect(r.code, r.stderr).toBe(0)
    expect(keyring.lookup(account)).toBeNull()
    expect(readConfig(tmp.dir).profiles?.work?.key_secret).toBe(key().key_secret)
    await cli(['config', 'set', 'storage', 'keyring', '--profile', 'work'])
    expect(keyring.lookup(account)).toBe(key().key_secret)
    r = await cli(['config', 'remove', 'work'])
    expect(r.code, r.stderr).toBe(0)
    expect(keyring.lookup(account)).toBeNull()
  })
})

describe('with no keyring reachable (no D-Bus session)', () => {
  it('login --storage keyring falls back to the file with a warning, the keyring given up within 3 s', async () => {
    const noBus = {DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: ''}
    const started = Date.now()
    const r = await run(
      ['auth', 'login', '--base-url', proxy.url, '--key-id', key().key_id, '--key-secret-stdin', '--json', '--storage', 'keyring'],
      {
        env: {COMMERCE_CONFIG_DIR: tmp.dir, ...noBus},
        input: key().key_secret,
      },
    )
    const elapsed = Date.now() - started
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({storage: 'file'})
    expect(r.stderr).toMatch(/Warning: could not keep the key secret in the OS keyring.*config\.json/s)
    expect(r.stderr).not.toContain(key().key_secret)
    expect(readConfig(tmp.dir).profiles?.default).toMatchObject({key_secret: key().key_secret, storage: 'file'})
    expect(elapsed).toBeLessThan(10_000) // 3 s for the keyring at most, plus start-up and one token request
    const status = await run(['auth', 'status', '--json'], {env: {COMMERCE_CONFIG_DIR: tmp.dir, ...noBus}})
    expect(status.json()).toMatchObject({logged_in: true, storage: 'file'})
  })
})

describe('the one-time tip about --storage keyring', () => {
  const base = {interactive: true, json: false, shown: false, storage: 'file' as const, storageFlag: undefined}
  it('is wanted only for a default file login of a person at a terminal, without --json, never shown before', () => {
    expect(keyringHintWanted(base)).toBe(true)
    expect(keyringHintWanted({...base, interactive: false})).toBe(false) // no TTY, or CI set
    expect(keyringHintWanted({...base, json: true})).toBe(false)
    expect(keyringHintWanted({...base, shown: true})).toBe(false)
    expect(keyringHintWanted({...base, storageFlag: 'file'})).toBe(false)
    expect(keyringHintWanted({...base, storage: 'keyring'})).toBe(false)
  })

  const loginArgs = () => ['auth', 'login', '--base-url', proxy.url, '--key-id', key().key_id, '--key-secret', key().key_secret]

  it('on a terminal where a keyring answers: shown once, remembered in config.json, never repeated', {timeout: 60_000}, async (t) => {
    if (!keyring.available) return t.skip(keyring.reason)
    const env = {COMMERCE_CONFIG_DIR: tmp.dir, ...keyring.env}
    const first = await startInTmux(loginArgs(), {env})
    expect(await first.waitForExit(30_000)).toBe(0)
    const screen = await first.capture()
    expect(screen).toContain('--storage keyring')
    expect(screen).toContain('shown once')
    expect(readConfig(tmp.dir)).toMatchObject({keyring_hint_shown: true})
    expect(readConfig(tmp.dir).profiles?.default).toMatchObject({storage: 'file'})
    const second = await startInTmux(loginArgs(), {env})
    expect(await second.waitForExit(30_000)).toBe(0)
    const again = await second.capture()
    expect(again).toContain('Logged in')
    expect(again).not.toContain('--storage keyring')
  })

  it('not under CI, nor with --json, nor with --storage given, even on a terminal with a keyring', {timeout: 60_000}, async (t) => {
    if (!keyring.available) return t.skip(keyring.reason)
    for (const [extra, env] of [
      [[], {CI: 'true'}],
      [['--json'], {}],
      [['--storage', 'file'], {}],
    ] as Array<[string[], Record<string, string>]>) {
      const term = await startInTmux([...loginArgs(), ...extra], {env: {COMMERCE_CONFIG_DIR: tmp.dir, ...keyring.env, ...env}})
      expect(await term.waitForExit(30_000)).toBe(0)
      expect(await term.capture()).not.toContain('--storage keyring')
      await term.kill()
    }
    expect(readConfig(tmp.dir).keyring_hint_shown).toBeUndefined()
  })

  it('not without a TTY, even where a keyring answers', async () => {
    const r = await loginWithStdin([])
    const human = await run(['auth', 'login', '--base-url', proxy.url, '--key-id', key().key_id, '--key-secret-stdin'], {
      env: {COMMERCE_CONFIG_DIR: tmp.dir, ...keyring.env},
      input: key().key_secret,
      timeoutMs: 30_000,
    })
    expect(r.code, r.stderr).toBe(0)
    expect(human.code, human.stderr).toBe(0)
    expect(human.stderr).toContain('Logged in')
    expect(human.stderr + r.stderr).not.toContain('--storage keyring')
    expect(readConfig(tmp.dir).keyring_hint_shown).toBeUndefined()
  })

  it('a terminal with no keyring reachable: no tip, and the login is not slowed past the probe bound', {timeout: 60_000}, async () => {
    const term = await startInTmux(loginArgs(), {env: {COMMERCE_CONFIG_DIR: tmp.dir, XDG_RUNTIME_DIR: ''}})
    const started = Date.now()
    expect(await term.waitForExit(30_000)).toBe(0)
    expect(Date.now() - started).toBeLessThan(10_000)
    const screen = await term.capture()
    expect(screen).toContain('Logged in')
    expect(screen).not.toContain('--storage keyring')
    expect(readConfig(tmp.dir).keyring_hint_shown).toBeUndefined()
  })
})
