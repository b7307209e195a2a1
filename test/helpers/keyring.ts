/**
 * A real Secret Service for the keyring tests: a private D-Bus session (`dbus-run-session`) running
 * `gnome-keyring-daemon --unlock --components=secrets`, which creates and unlocks a test keyring with the password
 * given on its stdin, in a temporary HOME. The CLI children get its bus address. `.ci/run` installs the packages
 * (gnome-keyring, dbus); where they are missing, `available` is false and `reason` says why (the tests then skip
 * with that message).
 */
import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {ROOT} from './cli.js'

export interface TestKeyring {
  available: boolean
  reason?: string
  /** The environment a process needs to reach this keyring. */
  env: Record<string, string>
  /** The secret stored for an account of service `commerce-cli`, read with the same binding the CLI uses. */
  lookup(account: string): string | null
  close(): Promise<void>
}

const INNER = `printf 'test-keyring-password' | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
echo "ADDR=$DBUS_SESSION_BUS_ADDRESS"
exec sleep 600`

function missing(): string | undefined {
  for (const bin of ['dbus-run-session', 'gnome-keyring-daemon'])
    if (spawnSync('sh', ['-c', `command -v ${bin}`]).status !== 0) return `${bin} is not installed (apt-get install dbus gnome-keyring; .ci/run does)`
  return undefined
}

export async function startTestKeyring(): Promise<TestKeyring> {
  const home = mkdtempSync(join(tmpdir(), 'commerce-keyring-'))
  const cleanup = () => rmSync(home, {force: true, recursive: true})
  const reason = missing()
  if (reason) {
    cleanup()
    return {available: false, close: async () => {}, env: {}, lookup: () => null, reason}
  }
  const runtime = join(home, 'run')
  mkdirSync(runtime, {mode: 0o700})
  const child: ChildProcess = spawn('dbus-run-session', ['--', 'sh', '-c', INNER], {
    detached: true,
    env: {HOME: home, PATH: process.env.PATH ?? '', XDG_DATA_HOME: join(home, 'data'), XDG_RUNTIME_DIR: runtime},
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  const address = await new Promise<string | undefined>((resolve) => {
    let out = ''
    const timer = setTimeout(() => resolve(undefined), 10_000)
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d
      const m = /^ADDR=(.+)$/m.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(m[1])
      }
    })
    child.on('exit', () => resolve(undefined))
  })
  const close = async () => {
    try {
      process.kill(-child.pid!, 'SIGTERM')
    } catch {}
    cleanup()
  }
  if (!address) {
    await close()
    return {available: false, close: async () => {}, env: {}, lookup: () => null, reason: 'the test D-Bus session did not start'}
  }
  const env = {DBUS_SESSION_BUS_ADDRESS: address, XDG_RUNTIME_DIR: runtime}
  return {
    available: true,
    close,
    env,
    lookup(account) {
      const script = `require('@napi-rs/keyring').AsyncEntry && new (require('@napi-rs/keyring').AsyncEntry)('commerce-cli', ${JSON.stringify(account)}).getPassword().then((p) => process.stdout.write(JSON.stringify(p ?? null)))`
      const r = spawnSync(process.execPath, ['-e', script], {
        cwd: ROOT,
        encoding: 'utf8',
        env: {...env, PATH: process.env.PATH ?? ''},
        timeout: 10_000,
      })
      if (r.status !== 0) throw new Error(`keyring lookup failed: ${r.stderr}`)
      return JSON.parse(r.stdout) as string | null
    },
  }
}
