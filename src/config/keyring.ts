/**
 * The key secret in the OS keyring (macOS Keychain, Windows Credential Manager, the Secret Service on Linux)
 * through `@napi-rs/keyring`, a maintained native binding with prebuilt binaries (keytar is archived).
 *
 * Every call runs in a short-lived child process that is killed when the deadline passes (3 s, or
 * COMMERCE_KEYRING_TIMEOUT seconds). In-process calls cannot be bounded: on Linux, constructing an entry connects
 * to the D-Bus session bus synchronously, so a bus that accepts a connection and never answers (a stuck
 * gnome-keyring-daemon, a stale DBUS_SESSION_BUS_ADDRESS left in a tmux or ssh session) blocks the event loop and
 * no timer ever fires; a worker thread blocked in native code cannot be terminated either. A process can always be
 * killed. The secret travels on the child's stdin and stdout, never in its arguments (the process list).
 *
 * Any failure is a KeyringError: callers fall back to the config file with a warning, or fail with a clear
 * message, never hang or crash. The child costs a Node start (~40 ms), paid only when a secret is read (a token
 * must be issued: at most once an hour), written or deleted.
 *
 * Entries: service `commerce-cli`, account `<profile>:<key_id>`.
 */

import {secondsFromEnv} from '../domain/env.js'

export const KEYRING_SERVICE = 'commerce-cli'
export const KEYRING_TIMEOUT_MS = 3000
/** A probe (is there a keyring at all?) gives up sooner: it only decides whether to mention `--storage keyring`. */
export const KEYRING_PROBE_TIMEOUT_MS = 1000

export type Storage = 'file' | 'keyring'
export const STORAGES: readonly Storage[] = ['file', 'keyring']

export class KeyringError extends Error {}

/** What to do when the keyring does not give a secret that should be there (a hint under an exit-3 message). */
export const KEYRING_FIX_HINT =
  'Unlock the keyring; or, where DBUS_SESSION_BUS_ADDRESS names a bus that is gone (an old tmux or ssh session), unset it; or keep the secret in the config file: `commerce auth login --storage file`. COMMERCE_KEYRING_TIMEOUT sets the wait in seconds.'

export function keyringAccount(profile: string, keyId: string): string {
  return `${profile}:${keyId}`
}

type Operation = {op: 'get'; account: string} | {op: 'set'; account: string; secret: string} | {op: 'delete'; account: string} | {op: 'probe'}

/**
 * The child: reads one request as JSON on stdin, answers `{ok, value}` or `{error, unreachable}` on stdout. A
 * missing entry and an unreachable keyring look alike to the binding (a read answers null, a delete false), so
 * such an answer is checked with a search, which fails when no keyring is reachable.
 */
const CHILD = `
const k = require(process.argv[1])
let input = ''
process.stdin.setEncoding('utf8').on('data', (d) => (input += d)).on('end', () => {
  const req = JSON.parse(input)
  const reachable = () => { k.findCredentials(req.service) }
  let answer
  try {
    if (req.op === 'probe') { reachable(); answer = {ok: true, value: true} }
    else {
      const entry = new k.Entry(req.service, req.account)
      if (req.op === 'get') { const value = entry.getPassword(); if (value == null) reachable(); answer = {ok: true, value: value ?? null} }
      else if (req.op === 'set') { entry.setPassword(req.secret); answer = {ok: true, value: null} }
      else { const value = entry.deletePassword(); if (!value) reachable(); answer = {ok: true, value} }
    }
  } catch (error) {
    // A refusal (AccessDenied) often only means that no keyring is reachable: say that instead when it is so.
    let cause = error
    try { reachable() } catch (unreachable) { cause = unreachable }
    answer = {error: String(cause && cause.message || cause)}
  }
  process.stdout.write(JSON.stringify(answer), () => process.exit(0))
})
`

/** The binding's entry file, resolved here so that the child needs no module resolution of its own. */
function bindingPath(): string {
  // The bundle is CommonJS; under tsx (tests) this module is an ES module. node:module is not imported at the top:
  // this module loads with every command that reads credentials, and node:module brings Node's ES module loader.
  const req = typeof require === 'function' ? require : process.getBuiltinModule('node:module').createRequire(import.meta.url)
  try {
    return req.resolve('@napi-rs/keyring')
  } catch (error) {
    throw new KeyringError(`the keyring binding could not be loaded (${(error as Error).message})`)
  }
}

/** The deadline of one keyring call: COMMERCE_KEYRING_TIMEOUT seconds, else `fallback` ms. */
export function keyringTimeoutMs(env: NodeJS.ProcessEnv = process.env, fallback = KEYRING_TIMEOUT_MS): number {
  return secondsFromEnv(env, 'COMMERCE_KEYRING_TIMEOUT') ?? fallback
}

/** A binding's failure in words a person can act on. */
function describe(message: string): string {
  if (/Failed to connect to address|DBUS_SESSION_BUS_ADDRESS|No such file or directory \(os error 2\)/i.test(message))
    return 'no Secret Service session was found (no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is unset or names no bus)'
  if (/Connection reset|Broken pipe|connection closed|unexpected end|EOF/i.test(message))
    return `the D-Bus session bus closed the connection (${message})`
  return `the OS keyring refused (${message})`
}

interface ChildAnswer {
  ok?: boolean
  value?: unknown
  error?: string
}

async function call(operation: Operation, timeoutMs: number): Promise<unknown> {
  const binding = bindingPath()
  return new Promise((resolve, reject) => {
    // node:child_process on first use: with node:net and node:dgram it costs every command 2 to 3 ms to load.
    const {spawn} = process.getBuiltinModule('node:child_process')
    const child = spawn(process.execPath, ['-e', CHILD, binding], {stdio: ['pipe', 'pipe', 'ignore'], windowsHide: true})
    let out = ''
    let settled = false
    const settle = (fn: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      fn()
    }
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      settle(() => reject(new KeyringError(`the OS keyring did not answer within ${timeoutMs / 1000} s`)))
    }, timeoutMs)
    child.on('error', (error) => settle(() => reject(new KeyringError(`the keyring helper could not start (${error.message})`))))
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    child.on('close', () => {
      let answer: ChildAnswer
      try {
        answer = JSON.parse(out) as ChildAnswer
      } catch {
        settle(() => reject(new KeyringError('the keyring helper ended without an answer')))
        return
      }
      if (answer.ok) settle(() => resolve(answer.value))
      else settle(() => reject(new KeyringError(describe(answer.error ?? 'unknown error'))))
    })
    // A child that died before reading its request closes stdin: the 'close' handler above reports it.
    child.stdin.on('error', () => {})
    child.stdin.end(JSON.stringify({...operation, service: KEYRING_SERVICE}))
  })
}

/** The secret stored for `account`, or undefined when there is none. */
export async function keyringGet(account: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const value = await call({account, op: 'get'}, keyringTimeoutMs(env))
  return typeof value === 'string' ? value : undefined
}

export async function keyringSet(account: string, secret: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await call({account, op: 'set', secret}, keyringTimeoutMs(env))
}

/** Removes the entry; true when there was one. */
export async function keyringDelete(account: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  return (await call({account, op: 'delete'}, keyringTimeoutMs(env))) === true
}

/**
 * Whether an OS keyring answers at all (a search of this CLI's entries), given up after `timeoutMs`. Never throws;
 * false on any failure or timeout.
 */
export async function keyringAnswers(timeoutMs = KEYRING_PROBE_TIMEOUT_MS): Promise<boolean> {
  try {
    return (await call({op: 'probe'}, timeoutMs)) === true
  } catch {
    return false
  }
}
