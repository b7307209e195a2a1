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
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {constants, tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {writeSandboxState} from '../../config/sandbox-state.js'
import {option, phrase} from '../../domain/phrase.js'
import {UsageError} from '../../errors.js'
import type {Sandbox} from '../../sandbox/index.js'
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
}

/** The variable holding a seeded name's id or a seeded webhook's secret: `COMMERCE_ID_ALICE`, `COMMERCE_WEBHOOK_SECRET_HOOK`. */
function variableFor(prefix: 'COMMERCE_ID_' | 'COMMERCE_WEBHOOK_SECRET_', name: string): string {
  return prefix + name.toUpperCase().replace(/[^A-Z0-9]/g, '_')
}

/**
 * What COMMAND is given: the CLI's own variables (so `commerce …` inside it uses the sandbox), a config directory of
 * its own holding the sandbox's state (so `commerce webhooks trigger` finds it), the seed's names and ids, and each
 * seeded webhook's signing secret. COMMERCE_ACCESS_TOKEN and COMMERCE_PROFILE are removed: they would take
 * precedence over the sandbox's key pair.
 */
function execEnv(base: NodeJS.ProcessEnv, sandbox: Sandbox, ids: ScenarioIds, configDir: string): NodeJS.ProcessEnv {
  const {COMMERCE_ACCESS_TOKEN: _token, COMMERCE_PROFILE: _profile, ...rest} = base
  const key = sandbox.keys[0]
  const env: NodeJS.ProcessEnv = {
    ...rest,
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

/** The watchdog: on EOF of its stdin (exec ended), SIGTERM to COMMAND's group, then SIGKILL after 2 s if it is alive. */
const WATCHDOG = `
const target = -Number(process.argv[1])
const alive = () => { try { process.kill(target, 0); return true } catch { return false } }
const end = () => {
  try { process.kill(target, 'SIGTERM') } catch {}
  const deadline = Date.now() + 2000
  const poll = setInterval(() => {
    if (!alive()) process.exit(0)
    if (Date.now() > deadline) { try { process.kill(target, 'SIGKILL') } catch {} ; process.exit(0) }
  }, 50)
}
require('node:fs').createReadStream('', {fd: 0}).on('end', end).on('error', end).on('close', end).resume()
`

function watchdog(pid: number): ChildProcess {
  const dog = spawn(process.execPath, ['-e', WATCHDOG, String(pid)], {detached: true, stdio: ['pipe', 'ignore', 'ignore']})
  dog.unref()
  return dog
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/** Runs COMMAND against a fresh sandbox; resolves with the exit status `exec` ends with. */
export async function execWithSandbox(o: ExecOptions): Promise<number> {
  const configDir = mkdtempSync(join(tmpdir(), 'commerce-exec-'))
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
      child.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new UsageError(
            error.code === 'ENOENT' ? `${file}: no such command (not found on PATH).` : `${file} could not be started: ${error.message}.`,
          ),
        ),
      )
    })
    const ended = new Promise<number>((resolveEnd) =>
      child.once('exit', (code, signal) => resolveEnd(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0))),
    )
    await started
    if (o.ownGroup && child.pid !== undefined) dog = watchdog(child.pid)
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
    if (o.exportDir) exportRun(o.exportDir, sandbox, configDir)
    return status
  } finally {
    for (const [name, forward] of forwarders) process.removeListener(name, forward)
    // The pipe closes: the watchdog ends what is left of COMMAND's group (its stray children), then itself.
    dog?.stdin?.end()
    await sandbox?.close()
    rmSync(configDir, {force: true, recursive: true})
  }
}

/** `--export-on-exit DIR`: the request log, the webhook deliveries and the final records, for a job's artifacts. */
function exportRun(dir: string, sandbox: Sandbox, configDir: string): void {
  const out = resolve(dir)
  mkdirSync(out, {recursive: true})
  const log = join(configDir, SANDBOX_LOG_FILE)
  if (existsSync(log)) copyFileSync(log, join(out, 'requests.jsonl'))
  writeFileSync(join(out, 'deliveries.json'), `${JSON.stringify(sandbox.deliveries(), null, 2)}\n`)
  writeFileSync(join(out, 'state.json'), `${JSON.stringify(sandbox.snapshot(), null, 2)}\n`)
}
