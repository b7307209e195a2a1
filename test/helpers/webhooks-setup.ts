/**
 * Shared by the webhooks e2e tests: a test sandbox with its state file in a private config directory and the
 * CLI logged in to it; long-running CLI processes (`webhooks listen`) read line by line; receivers on loopback.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {expect} from 'vitest'

import {writeSandboxState} from '../../src/config/sandbox-state-write.js'
import type {SandboxOptions} from '../../src/sandbox/index.js'
import {BIN, ROOT, run, type RunOptions, tempConfigDir} from './cli.js'
import {startTestSandbox, type TestSandbox} from './sandbox.js'

export interface Session {
  sandbox: TestSandbox
  dir: string
  env: Record<string, string>
  /** Runs the CLI to completion with this session's config directory. */
  cli(args: string[], options?: RunOptions): ReturnType<typeof run>
  /** The profile's stored webhook signing secrets, read from config.json. */
  secrets(): Record<string, string>
  close(): Promise<void>
}

/** A sandbox recorded in a fresh config directory (as `sandbox start` would), and `auth login --sandbox` done. */
export async function startSession(options: Omit<SandboxOptions, 'now'> = {}): Promise<Session> {
  const sandbox = await startTestSandbox(options)
  const tmp = tempConfigDir()
  const env = {COMMERCE_CONFIG_DIR: tmp.dir}
  writeSandboxState({base_url: sandbox.baseUrl, keys: sandbox.keys.map((k) => ({...k, scopes: [...k.scopes]})), pid: process.pid}, env)
  const session: Session = {
    cli: (args, opts = {}) => run(args, {...opts, env: {...env, ...opts.env}}),
    async close() {
      await sandbox.close()
      tmp.cleanup()
    },
    dir: tmp.dir,
    env,
    sandbox,
    secrets: () => JSON.parse(readFileSync(join(tmp.dir, 'config.json'), 'utf8')).profiles.default.webhook_secrets ?? {},
  }
  const login = await session.cli(['auth', 'login', '--sandbox'])
  expect(login.code, login.stderr).toBe(0)
  return session
}

export interface Spawned {
  child: ChildProcess
  /** stdout lines so far. */
  lines: string[]
  stderr(): string
  /** Waits for stdout line `index` (0-based); rejects when the process ends first. */
  line(index: number): Promise<string>
  json<T = any>(index: number): Promise<T>
  exited: Promise<{code: number | null; signal: NodeJS.Signals | null}>
  /** Whether the process is still running. */
  running(): boolean
}

const spawned = new Set<Spawned>()

/** Starts a long-running CLI process; `killAll()` in teardown ends whatever is left. */
export function spawnCli(args: string[], env: Record<string, string | undefined>): Spawned {
  const fullEnv: Record<string, string> = {HOME: tmpdir(), LANG: 'C.UTF-8', PATH: process.env.PATH ?? ''}
  for (const [k, v] of Object.entries(env)) if (v !== undefined) fullEnv[k] = v
  const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe']})
  const lines: string[] = []
  let stderr = ''
  let done = false
  const waiters: Array<() => void> = []
  const wake = () => {
    for (const w of waiters.splice(0)) w()
  }
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  createInterface({input: child.stdout}).on('line', (line) => {
    lines.push(line)
    wake()
  })
  const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) =>
    child.on('close', (code, signal) => {
      done = true
      wake()
      resolve({code, signal})
    }),
  )
  const proc: Spawned = {
    child,
    exited,
    async json(index) {
      return JSON.parse(await proc.line(index))
    },
    async line(index) {
      while (lines.length <= index) {
        if (done)
          throw new Error(`the process ended (code ${child.exitCode}) before stdout line ${index}.\nstdout:\n${lines.join('\n')}\nstderr:\n${stderr}`)
        await new Promise<void>((resolve) => waiters.push(resolve))
      }
      return lines[index]
    },
    lines,
    running: () => !done,
    stderr: () => stderr,
  }
  spawned.add(proc)
  void exited.then(() => spawned.delete(proc))
  return proc
}

/**
 * Ends every process spawnCli started that is still running: SIGTERM first, so that a `webhooks listen` stops
 * the tunnel it runs (SIGKILL would leave it behind), then SIGKILL after a grace period.
 */
export async function killAll(graceMs = 3000): Promise<void> {
  await Promise.all(
    [...spawned].map(async (p) => {
      if (!p.running()) return p.exited
      p.child.kill('SIGTERM')
      const timer = setTimeout(() => p.child.kill('SIGKILL'), graceMs)
      await p.exited
      clearTimeout(timer)
    }),
  )
}

// Receivers and dead ports are the webhook unit tests' (one copy for both suites).
export {deadPort, type Received, type Receiver, startReceiver} from './webhooks.js'

/** Polls `check` every 10 ms until it is true (at most `ms`). */
export async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
