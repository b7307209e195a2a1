/**
 * The keyring under a deadline that holds: session buses that accept and never answer, close at once, or answer
 * garbage. Every keyring call runs in a child process that is killed at the deadline (src/config/keyring.ts), so
 * no command hangs: login falls back to the file with a warning, a read of a secret kept in the keyring is exit 3
 * saying how to fix it, status says which, logout and config remove forget what they can and say what they could
 * not. COMMERCE_KEYRING_TIMEOUT sets the deadline.
 */
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {run, tempConfigDir} from '../helpers/cli.js'
import {type BusMode, type FakeBus, startFakeBus} from '../helpers/fake-bus.js'
import {readConfig, storeProfile} from '../helpers/login.js'
import {type TestSandbox, startTestSandbox} from '../helpers/sandbox.js'

let sb: TestSandbox
let tmp: {dir: string; cleanup: () => void}
const buses: Partial<Record<BusMode, FakeBus>> = {}

beforeAll(async () => {
  sb = await startTestSandbox()
  for (const mode of ['silent', 'close', 'garbage'] as const) buses[mode] = await startFakeBus(mode)
})
afterAll(async () => {
  for (const bus of Object.values(buses)) await bus.close()
  await sb.close()
})
beforeEach(() => {
  tmp = tempConfigDir()
})
afterEach(() => tmp.cleanup())

const key = () => sb.keys[0]
/** The CLI with its session bus at `mode`, a 1 s keyring deadline, and a kill of our own well past it. */
const cli = (mode: BusMode, args: string[], extra: {input?: string; env?: Record<string, string>} = {}) => {
  const started = Date.now()
  return run(args, {
    env: {COMMERCE_CONFIG_DIR: tmp.dir, COMMERCE_KEYRING_TIMEOUT: '1', DBUS_SESSION_BUS_ADDRESS: buses[mode]!.address, ...extra.env},
    input: extra.input,
    timeoutMs: 15_000,
  }).then((r) => ({...r, elapsed: Date.now() - started}))
}
/** A profile whose key secret lives in the keyring (as `auth login --storage keyring` leaves it), with no token. */
const keyringProfile = () => storeProfile(tmp.dir, 'default', {base_url: sb.baseUrl, key_id: key().key_id, storage: 'keyring'}, {choose: true})

describe.each(['silent', 'close', 'garbage'] as const)('a session bus that is %s', (mode) => {
  it('auth login --storage keyring stores the secret in the file with a warning, within the deadline', async () => {
    const r = await cli(
      mode,
      ['auth', 'login', '--base-url', sb.baseUrl, '--key-id', key().key_id, '--key-secret-stdin', '--storage', 'keyring', '--json'],
      {
        input: key().key_secret,
      },
    )
    expect(r.signal, 'killed by the test: it hung').toBeNull()
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({storage: 'file'})
    expect(r.stderr).toMatch(/Warning: could not keep the key secret in the OS keyring/)
    expect(r.stderr).not.toContain(key().key_secret)
    expect(readConfig(tmp.dir).profiles?.default).toMatchObject({key_secret: key().key_secret, storage: 'file'})
    expect(r.elapsed).toBeLessThan(10_000)
  })

  it('a command that must read the secret from the keyring is exit 3 saying the keyring failed and how to fix it', async () => {
    await keyringProfile()
    const r = await cli(mode, ['customers', 'list', '--json'])
    expect(r.signal, 'killed by the test: it hung').toBeNull()
    expect(r.code, r.stderr).toBe(3)
    expect(r.json()).toMatchObject({error: {message: expect.stringMatching(/kept in the OS keyring, but/)}})
    expect(r.stderr).toMatch(/DBUS_SESSION_BUS_ADDRESS/)
    expect(r.stderr).toMatch(/--storage file/)
  })

  it('auth status says the keyring failed; logout and config remove forget the profile and say what stays', async () => {
    await keyringProfile()
    const status = await cli(mode, ['auth', 'status', '--json'])
    expect(status.code, status.stderr).toBe(3)
    expect(status.json()).toMatchObject({logged_in: false, storage: 'keyring'})
    const said = await cli(mode, ['auth', 'status'])
    expect(said.code, said.stderr).toBe(3)
    expect(said.stderr).toMatch(/Not logged in.*kept in the OS keyring, but/s)

    const logout = await cli(mode, ['auth', 'logout'])
    expect(logout.code, logout.stderr).toBe(0)
    expect(logout.stderr).toMatch(/could not remove the key secret from the OS keyring.*account "default:/s)
    expect(readConfig(tmp.dir).profiles?.default?.key_id).toBeUndefined()

    await keyringProfile()
    const remove = await cli(mode, ['config', 'remove', 'default'])
    expect(remove.code, remove.stderr).toBe(0)
    expect(remove.stderr).toMatch(/could not remove the key secret from the OS keyring/)
    expect(readConfig(tmp.dir).profiles?.default).toBeUndefined()
  })
})

describe('COMMERCE_KEYRING_TIMEOUT', () => {
  it('sets the deadline against a bus that never answers', async () => {
    await keyringProfile()
    const r = await cli('silent', ['customers', 'list'], {env: {COMMERCE_KEYRING_TIMEOUT: '2'}})
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toMatch(/did not answer within 2 s/)
    expect(r.elapsed).toBeGreaterThanOrEqual(2000)
    expect(r.elapsed).toBeLessThan(10_000)
  })

  it('that is not a positive number is exit 2 naming it', async () => {
    await keyringProfile()
    const r = await cli('silent', ['customers', 'list'], {env: {COMMERCE_KEYRING_TIMEOUT: 'soon'}})
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toMatch(/COMMERCE_KEYRING_TIMEOUT must be a positive number of seconds/)
  })
})

describe('no session bus at all', () => {
  it('the warning says that no Secret Service session was found', async () => {
    const r = await run(['auth', 'login', '--base-url', sb.baseUrl, '--key-id', key().key_id, '--key-secret-stdin', '--storage', 'keyring'], {
      env: {COMMERCE_CONFIG_DIR: tmp.dir, XDG_RUNTIME_DIR: tmp.dir},
      input: key().key_secret,
    })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/no Secret Service session was found/)
    expect(r.stderr).not.toMatch(/AccessDenied/)
  })
})
