/**
 * The sandbox as a process, for `commerce sandbox start|stop|status`: running it in the foreground until a
 * signal, starting it detached, stopping it by its recorded pid, and reading its status. The state file
 * (src/config/sandbox-state.ts) records base URL, pid and key pairs; it is how other commands find the sandbox.
 * No CLI error types here: failures are plain Errors with a readable message, which the commands map.
 */
import {spawn} from 'node:child_process'
import {closeSync, existsSync, mkdirSync} from 'node:fs'
import {dirname, resolve} from 'node:path'

import {readSandboxState, removeSandboxState, type SandboxState} from '../../config/sandbox-state.js'
import {writeSandboxState} from '../../config/sandbox-state-write.js'
import {configPath, SANDBOX_DATA_FILE} from '../../config/paths.js'
import {isProcessAlive} from '../../domain/processes.js'
import {CONTROL_PREFIX, isLoopback, type Limit, type Sandbox, type SandboxCounts} from '../../sandbox/index.js'
import {openOwnFileSync, readOwnFileSync} from '../../domain/own-file.js'
import {option, phrase, type Text} from '../../domain/phrase.js'
import {CliError, UsageError} from '../../errors.js'
import type {ScenarioIds} from './scenarios.js'

/** `sandbox start` without `--port`: a fixed port, so that a profile's base URL survives restarts. */
export const DEFAULT_PORT = 4242
export const DEFAULT_HOST = '127.0.0.1'
/** Where a detached sandbox writes its stderr (in the config directory). */
export const SANDBOX_LOG_FILE = 'sandbox.log'
/** Where `sandbox snapshot save` keeps snapshots of a sandbox with a data file (in the config directory). */
export const SANDBOX_SNAPSHOT_DIR = 'sandbox-snapshots'

/** The warning `sandbox start` prints when it listens beyond loopback: its control path has no authentication. */
export function exposureWarning(host: string): Text | undefined {
  if (isLoopback(host.replace(/^\[|\]$/g, ''))) return undefined
  return phrase`The sandbox will listen on ${host}, beyond this machine's loopback: anyone who can reach it can use its control path (${CONTROL_PREFIX}/...), which has no authentication, and its test keys. Use ${option('host')} 127.0.0.1 unless you mean that.`
}

export interface StartOptions {
  host?: string
  port?: number
  /** A data file path; `null` for in-memory; undefined for the default file in the config directory. */
  dataFile?: string | null
  tokenTtlSeconds?: number
  seedDemoData?: boolean
  /** Days of past customers and orders in a new data store (seed.ts seedHistory). */
  seedHistoryDays?: number
  orderLimit?: Limit
  /** A parsed scenario applied once the sandbox listens (a bad one stops it: nothing is recorded). */
  seed?: unknown
  /** Stop when this process ends (`--exit-with PID`). */
  exitWith?: number
}

/** What `start --json` and `status --json` print (the contract's object). */
export interface SandboxInfo {
  base_url: string
  pid: number
  keys: SandboxState['keys']
}

export function infoOf(state: SandboxState): SandboxInfo {
  return {base_url: state.base_url, pid: state.pid, keys: state.keys}
}

export function resolveDataFile(dataFile: string | null | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (dataFile === null) return undefined
  return dataFile === undefined ? configPath(SANDBOX_DATA_FILE, env) : resolve(dataFile)
}

/**
 * What a start will not do, to say so: --history and --demo-data fill a new data file only, and one that exists
 * already is loaded as it is (the path a newcomer takes: log in first, which starts it, then ask for a history).
 */
export function seedNotApplied(options: StartOptions, env: NodeJS.ProcessEnv): Text | undefined {
  if (!options.seedHistoryDays && !options.seedDemoData) return undefined
  const dataFile = resolveDataFile(options.dataFile, env)
  if (dataFile === undefined || !existsSync(dataFile)) return undefined
  const what = options.seedHistoryDays ? option('history') : option('demoData')
  return phrase`${what} fills a new data file only, and ${dataFile} exists: it is loaded as it is, with nothing added. For the seeded data, start with ${option('inMemory')}, or ${option('data')} and a new file.`
}

function alreadyRunning(state: SandboxState): Error {
  return new Error(`A sandbox is already running at ${state.base_url} (pid ${state.pid}); stop it with \`commerce sandbox stop\` first.`)
}

export interface Foreground {
  sandbox: Sandbox
  state: SandboxState
  /** The seed's names and ids, when a scenario was applied. */
  ids?: ScenarioIds
  /** Resolves after `signal` aborts (the command's Ctrl-C or SIGTERM), once the sandbox is closed and the state file removed. */
  stopped: Promise<void>
}

/** Starts the sandbox in this process and records it; stops cleanly when `signal` aborts. */
export async function runForeground(options: StartOptions, signal: AbortSignal, env: NodeJS.ProcessEnv): Promise<Foreground> {
  const running = readSandboxState(env)
  if (running) throw alreadyRunning(running)
  const dataFile = resolveDataFile(options.dataFile, env)
  mkdirSync(dirname(configPath(SANDBOX_LOG_FILE, env)), {mode: 0o700, recursive: true})
  // Loaded here so that `status` and `stop` do not pay for the emulator.
  const {startSandbox} = await import('../../sandbox/server.js')
  const sandbox = await startSandbox({
    dataFile,
    host: options.host ?? DEFAULT_HOST,
    requestLogFile: configPath(SANDBOX_LOG_FILE, env),
    snapshotDir: dataFile ? configPath(SANDBOX_SNAPSHOT_DIR, env) : undefined,
    orderLimit: options.orderLimit,
    port: options.port ?? DEFAULT_PORT,
    seedDemoData: options.seedDemoData,
    seedHistoryDays: options.seedHistoryDays,
    tokenTtlSeconds: options.tokenTtlSeconds,
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE')
      throw new CliError(
        phrase`Port ${options.port ?? DEFAULT_PORT} on ${options.host ?? DEFAULT_HOST} is in use; pick another with ${option('port')} (0: any free port).`,
      )
    throw error
  })
  let ids: ScenarioIds | undefined
  if (options.seed !== undefined) {
    try {
      ids = await sandbox.seed(options.seed)
    } catch (error) {
      await sandbox.close()
      const e = error as Error & {errors?: Record<string, string[]>}
      // The same failure, and exit code, as `sandbox seed` of the same file (validation_failed, exit 2).
      throw new UsageError(`The scenario was not applied (nothing was created): ${e.message}`, {code: 'validation_failed', fieldErrors: e.errors})
    }
  }
  const state: SandboxState = {
    base_url: sandbox.baseUrl,
    data_file: dataFile ?? null,
    keys: sandbox.keys.map((k) => ({key_id: k.key_id, key_secret: k.key_secret, scopes: [...k.scopes]})),
    money_unit: sandbox.moneyUnit,
    pid: process.pid,
    ...(ids ? {seeded: ids} : {}),
    started_at: new Date().toISOString(),
  }
  writeSandboxState(state, env)
  const stopped = new Promise<void>((resolveStopped) => {
    // --exit-with PID: that process gone, the sandbox stops as on SIGTERM (checked twice a second).
    const watch =
      options.exitWith === undefined
        ? undefined
        : setInterval(() => {
            if (!isProcessAlive(options.exitWith!)) stop()
          }, 500)
    const stop = () => {
      if (watch) clearInterval(watch)
      void sandbox
        .close()
        .finally(() => removeSandboxState(env, process.pid))
        .then(resolveStopped)
    }
    if (signal.aborted) stop()
    else signal.addEventListener('abort', stop, {once: true})
  })
  return {ids, sandbox, state, stopped}
}

export interface DetachOptions {
  /** Script and arguments that run the sandbox in the foreground (the CLI's `sandbox start` without --detach). */
  args: string[]
  /** Node's own options for the child; default this process's (e.g. `--import tsx` under bin/dev.js). */
  nodeOptions?: string[]
  /** The child's environment, which also says where the config directory is. */
  env: NodeJS.ProcessEnv
  timeoutMs?: number
}

/**
 * Spawns node with `args` detached, its stdout discarded and its stderr in the log file, and waits until the
 * child has recorded itself in the state file.
 */
export async function startDetached(options: DetachOptions & {reuse?: boolean}): Promise<SandboxState & {reused?: true}> {
  const {env, timeoutMs = 20_000} = options
  const running = readSandboxState(env)
  // A set-up run again (`reuse`: nothing asked of a new one, no seed, no data file) finds the one it started.
  if (running && options.reuse) return {...running, reused: true}
  if (running) throw alreadyRunning(running)
  const logPath = configPath(SANDBOX_LOG_FILE, env)
  mkdirSync(dirname(logPath), {mode: 0o700, recursive: true})
  // Opened for appending and emptied (after the check that it is a file of ours, never through a link or a FIFO):
  // the child's stderr and its request log share the file.
  const log = openOwnFileSync(logPath, 'append', {truncate: true})
  const child = spawn(process.execPath, [...(options.nodeOptions ?? process.execArgv), ...options.args], {
    detached: true,
    env,
    stdio: ['ignore', 'ignore', log],
  })
  closeSync(log)
  let exited: number | null | undefined
  child.on('exit', (code) => (exited = code))
  child.unref()
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const state = readSandboxState(env)
    if (state && state.pid === child.pid) return state
    if (exited !== undefined) break
    await new Promise((r) => setTimeout(r, 50))
  }
  // A child that never got ready may be stuck where its SIGTERM handler cannot run: SIGKILL after a grace.
  if (exited === undefined && child.pid !== undefined) await terminate(child.pid, 2000)
  const why = readTail(logPath)
  throw new Error(`The sandbox did not start${exited === undefined ? ` within ${timeoutMs / 1000} s` : ''}${why ? `: ${why}` : '.'}`)
}

/** The log of a sandbox that did not start is its stderr: a few lines, far under this. */
const LOG_TAIL_BYTES = 1024 * 1024

/** The child's last error line (`Error: ...`), else its last line. */
function readTail(path: string): string {
  let lines: string[]
  try {
    lines = readOwnFileSync(path, LOG_TAIL_BYTES)
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
  } catch {
    return ''
  }
  const error = lines.findLast((l) => /^\w*Error: /.test(l))
  return (error ?? lines.at(-1) ?? '').replace(/^\w*Error: /, '')
}

/** Stops the recorded sandbox (SIGTERM, then SIGKILL after `timeoutMs`); undefined when none runs. */
export async function stopSandbox(env: NodeJS.ProcessEnv, timeoutMs = 10_000): Promise<SandboxState | undefined> {
  const state = readSandboxState(env)
  if (!state) return undefined
  await terminate(state.pid, timeoutMs)
  removeSandboxState(env, state.pid)
  return state
}

/** SIGTERM, then SIGKILL when the process is still alive after `graceMs`. */
async function terminate(pid: number, graceMs: number): Promise<void> {
  signal(pid, 'SIGTERM')
  const deadline = Date.now() + graceMs
  while (isProcessAlive(pid)) {
    if (Date.now() >= deadline) {
      signal(pid, 'SIGKILL')
      return
    }
    await new Promise((r) => setTimeout(r, 50))
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}

export interface Status {
  state: SandboxState
  /** From the control path; null when the sandbox did not answer. */
  counts: SandboxCounts | null
}

/** The recorded sandbox and its counts; undefined when none runs (a stale state file is removed). */
export async function sandboxStatus(env: NodeJS.ProcessEnv): Promise<Status | undefined> {
  const state = readSandboxState(env)
  if (!state) return undefined
  try {
    const res = await fetch(`${state.base_url.replace(/\/+$/, '')}${CONTROL_PREFIX}`, {
      headers: {accept: 'application/json'},
      signal: AbortSignal.timeout(5_000),
    })
    const body = (await res.json()) as {counts?: SandboxCounts}
    return {counts: res.ok && body.counts ? body.counts : null, state}
  } catch {
    return {counts: null, state}
  }
}
