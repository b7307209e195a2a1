/**
 * `commerce sandbox exec -- COMMAND`: a sandbox in memory in this process on a free loopback port, for the life of
 * COMMAND, which runs with the environment an app needs (execEnv). Nothing outlives it:
 * - the sandbox is this process's, so it ends with it, SIGKILL included (the kernel frees its port);
 * - without a terminal, COMMAND runs in a process group of its own, and a watchdog (a small node process in a group
 *   of its own too, reading a pipe only this process writes) ends that group when the pipe closes: when `exec`
 *   ends, however it ends. A job cancelled with SIGKILL of `exec` alone, or of `exec`'s group, leaves nothing;
 * - SIGINT, SIGTERM and SIGHUP to `exec` are passed to COMMAND, and `exec` exits with COMMAND's status (128+N when a
 *   signal ended it).
 * On a terminal COMMAND stays in `exec`'s process group, so that it can read the terminal and Ctrl-C reaches it.
 * A process COMMAND starts in a session of its own (`setsid`) leaves that group, and is not ended with it.
 *
 * The config directory handed to COMMAND (`commerce-exec-<pid>-…` in the temp folder: a cached token, the sandbox's
 * key secrets, its log) is removed when exec ends, by the watchdog when exec was killed, and otherwise by the next
 * exec, which removes any left by a process that no longer runs.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {lstatSync, mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {constants, tmpdir} from 'node:os'
import {join} from 'node:path'

import {writeSandboxState} from '../../config/sandbox-state-write.js'
import {option, phrase} from '../../domain/phrase.js'
import {isProcessAlive} from '../../domain/processes.js'
import {CliError, UsageError} from '../../errors.js'
import type {Sandbox} from '../../sandbox/index.js'
import {checkExportDir, writeExport} from './exec-export.js'
import {SANDBOX_LOG_FILE} from './process.js'
import type {ScenarioIds} from './scenarios.js'

export interface ExecOptions {
  command: string[]
  port: number
  seed?: unknown
  historyDays?: number
  exportDir?: string
  /** The environment COMMAND inherits (this process's), before execEnv adds the sandbox's. */
  env: NodeJS.ProcessEnv
  /** COMMAND in a process group of its own, ended with it by the watchdog (no terminal to share). */
  ownGroup: boolean
  /** Told once the sandbox answers, before COMMAND starts (a line on stderr). */
  onReady?: (sandbox: Sandbox, ids: ScenarioIds) => void
  /** Told what went wrong after COMMAND ended (an export that failed): exec still ends with COMMAND's status. */
  onWarning?: (message: string) => void
}

/** The variable holding a seeded name's id or a seeded webhook's secret: `COMMERCE_ID_ALICE`, `COMMERCE_WEBHOOK_SECRET_HOOK`. */
function variableFor(prefix: 'COMMERCE_ID_' | 'COMMERCE_WEBHOOK_SECRET_', name: string): string {
  return prefix + name.toUpperCase().replace(/[^A-Z0-9]/g, '_')
}

/**
 * What COMMAND is given: the CLI's own variables (so `commerce …` inside it uses the sandbox), a config directory of
 * its own holding the sandbox's state (so `commerce webhooks trigger` finds it), the seed's names and ids, and each
 * seeded webhook's signing secret. COMMERCE_ACCESS_TOKEN and COMMERCE_PROFILE are removed: they would take
 * precedence over the sandbox's key pair; COMMERCE_WEBHOOK_SECRET too, the caller's (a production secret has no
 * business in a test job). The sandbox's host is added to NO_PROXY and no_proxy: its loopback traffic, the key
 * secret included, never goes to a proxy.
 */
function execEnv(base: NodeJS.ProcessEnv, sandbox: Sandbox, ids: ScenarioIds, configDir: string): NodeJS.ProcessEnv {
  const {COMMERCE_ACCESS_TOKEN: _token, COMMERCE_PROFILE: _profile, COMMERCE_WEBHOOK_SECRET: _secret, ...rest} = base
  const key = sandbox.keys[0]
  const host = new URL(sandbox.baseUrl).hostname
  const bypass = (list: string | undefined) => [...(list ?? '').split(',').filter((h) => h.trim() !== ''), host].join(',')
  const env: NodeJS.ProcessEnv = {
    ...rest,
    NO_PROXY: bypass(base.NO_PROXY),
    no_proxy: bypass(base.no_proxy),
    COMMERCE_BASE_URL: sandbox.baseUrl,
    COMMERCE_CONFIG_DIR: configDir,
    COMMERCE_KEY_ID: key.key_id,
    COMMERCE_KEY_SECRET: key.key_secret,
    COMMERCE_SANDBOX_IDS: JSON.stringify(ids),
  }
  const secrets: string[] = []
  for (const [name, id] of Object.entries(ids)) {
    env[variableFor('COMMERCE_ID_', name)] = String(id)
    const secret = typeof id === 'string' ? sandbox.webhookSecret(id) : undefined
    if (secret === undefined) continue
    env[variableFor('COMMERCE_WEBHOOK_SECRET_', name)] = secret
    secrets.push(secret)
  }
  // One seeded endpoint: its secret is also where `webhooks listen|verify` look for one.
  if (secrets.length === 1) env.COMMERCE_WEBHOOK_SECRET = secrets[0]
  return env
}

/**
 * The watchdog: on EOF of its stdin (exec ended), SIGTERM to COMMAND's group, then SIGKILL after 2 s if it is alive,
 * and the config directory removed.
 */
const WATCHDOG = `
const target = -Number(process.argv[1])
const alive = () => { try { process.kill(target, 0); return true } catch { return false } }
const done = () => { try { require('node:fs').rmSync(process.argv[2], {force: true, recursive: true}) } catch {} ; process.exit(0) }
const end = () => {
  try { process.kill(target, 'SIGTERM') } catch {}
  const deadline = Date.now() + 2000
  const poll = setInterval(() => {
    if (!alive()) done()
    if (Date.now() > deadline) { try { process.kill(target, 'SIGKILL') } catch {} ; done() }
  }, 50)
}
require('node:fs').createReadStream('', {fd: 0}).on('end', end).on('error', end).on('close', end).resume()
`

function watchdog(pid: number, configDir: string): ChildProcess {
  const dog = spawn(process.execPath, ['-e', WATCHDOG, String(pid), configDir], {detached: true, stdio: ['pipe', 'ignore', 'ignore']})
  dog.unref()
  return dog
}

const EXEC_DIR_PREFIX = 'commerce-exec-'

/** Removes the config directories of execs that no longer run (killed where no watchdog was: on a terminal). */
function removeLeftDirs(): void {
  let names: string[]
  try {
    names = readdirSync(tmpdir())
  } catch {
    return
  }
  for (const name of names) {
    const pid = Number(new RegExp(`^${EXEC_DIR_PREFIX}(\\d+)-`).exec(name)?.[1])
    if (!Number.isInteger(pid) || pid === process.pid || isProcessAlive(pid)) continue
    const path = join(tmpdir(), name)
    try {
      const stat = lstatSync(path)
      if (stat.isDirectory() && (process.getuid === undefined || stat.uid === process.getuid())) rmSync(path, {force: true, recursive: true})
    } catch {}
  }
}

/** The status a shell gives a command it cannot start: 127 not found, 126 found but not runnable. */
function notStarted(file: string, error: NodeJS.ErrnoException): CliError {
  return error.code === 'ENOENT'
    ? new CliError(`${file}: no such command (not found on PATH).`, {code: 'command_not_found'})
    : new CliError(`${file} could not be started: ${error.message}.`, {code: 'command_not_runnable'})
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/** Runs COMMAND against a fresh sandbox; resolves with the exit status `exec` ends with. */
export async function execWithSandbox(o: ExecOptions): Promise<number> {
  const exportDir = o.exportDir === undefined ? undefined : checkExportDir(o.exportDir)
  removeLeftDirs()
  const configDir = mkdtempSync(join(tmpdir(), `${EXEC_DIR_PREFIX}${process.pid}-`))
  const {startSandbox} = await import('../../sandbox/server.js')
  let sandbox: Sandbox | undefined
  let dog: ChildProcess | undefined
  const forwarders: Array<[NodeJS.Signals, () => void]> = []
  try {
    sandbox = await startSandbox({
      host: '127.0.0.1',
      port: o.port,
      requestLogFile: join(configDir, SANDBOX_LOG_FILE),
      seedHistoryDays: o.historyDays,
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        throw new UsageError(phrase`Port ${o.port} on 127.0.0.1 is in use: pick another with ${option('port')} (0: any free port).`)
      throw error
    })
    let ids: ScenarioIds = {}
    if (o.seed !== undefined) {
      try {
        ids = await sandbox.seed(o.seed)
      } catch (error) {
        const e = error as Error & {errors?: Record<string, string[]>}
        throw new UsageError(`The scenario was not applied (nothing was created): ${e.message}`, {code: 'validation_failed', fieldErrors: e.errors})
      }
    }
    const state = {
      base_url: sandbox.baseUrl,
      data_file: null,
      keys: sandbox.keys.map((k) => ({key_id: k.key_id, key_secret: k.key_secret, scopes: [...k.scopes]})),
      money_unit: sandbox.moneyUnit,
      pid: process.pid,
      started_at: new Date().toISOString(),
    }
    writeSandboxState(state, {COMMERCE_CONFIG_DIR: configDir})
    o.onReady?.(sandbox, ids)
    const [file, ...args] = o.command
    const child = spawn(file, args, {detached: o.ownGroup, env: execEnv(o.env, sandbox, ids, configDir), stdio: 'inherit'})
    const started = new Promise<void>((resolveStart, reject) => {
      child.once('spawn', resolveStart)
      child.once('error', (error: NodeJS.ErrnoException) => reject(notStarted(file, error)))
    })
    const ended = new Promise<number>((resolveEnd) =>
      child.once('exit', (code, signal) => resolveEnd(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0))),
    )
    await started
    if (o.ownGroup && child.pid !== undefined) dog = watchdog(child.pid, configDir)
    for (const name of SIGNALS) {
      const forward = () => {
        try {
          if (o.ownGroup) process.kill(-child.pid!, name)
          // On a terminal, Ctrl-C already reached COMMAND (one process group): only the others are passed on.
          else if (name !== 'SIGINT') child.kill(name)
        } catch {
          // Gone already.
        }
      }
      process.on(name, forward)
      forwarders.push([name, forward])
    }
    const status = await ended
    // Closed first, so that the request log is whole.
    await sandbox.close()
    if (exportDir)
      await writeExport(exportDir, sandbox, join(configDir, SANDBOX_LOG_FILE)).catch((error: unknown) =>
        o.onWarning?.(`The sandbox's records were not all written to ${exportDir}: ${(error as Error).message}.`),
      )
    return status
  } finally {
    for (const [name, forward] of forwarders) process.removeListener(name, forward)
    // The pipe closes: the watchdog ends what is left of COMMAND's group (its stray children), then itself.
    dog?.stdin?.end()
    await sandbox?.close()
    rmSync(configDir, {force: true, recursive: true})
  }
}
