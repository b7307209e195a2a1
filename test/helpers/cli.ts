/**
 * Runs the built CLI (`bin/run.js`, built by `npm test` before vitest starts) as a child process, the way users
 * and scripts do: no TTY, a clean environment (only what the test passes, plus PATH), a private config dir.
 */
import {spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync} from 'node:fs'
import {type AddressInfo, createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {checkRequestLog} from './openapi-check.js'

export const ROOT = resolve(import.meta.dirname, '..', '..')
export const BIN = join(ROOT, 'bin', 'run.js')

export interface RunResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** stdout parsed as JSON (throws with the output when it is not). */
  json<T = any>(): T
}

export interface RunOptions {
  env?: Record<string, string | undefined>
  input?: string | Buffer
  timeoutMs?: number
  cwd?: string
}

/**
 * A temporary config directory per test (or per file), removed by `cleanup`. A sandbox started as a process with it
 * (`sandbox start`) logs its answers there: `cleanup` checks each against the OpenAPI document first, and one that
 * breaks it fails the test (test/helpers/openapi-setup.ts), as an in-process sandbox's answers do as they are given.
 */
export function tempConfigDir(): {dir: string; cleanup: () => void} {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-test-'))
  return {
    cleanup: () => {
      checkRequestLog(dir)
      rmSync(dir, {force: true, recursive: true})
    },
    dir,
  }
}

export function run(args: string[], options: RunOptions = {}): Promise<RunResult> {
  const env: Record<string, string> = {HOME: options.env?.HOME ?? tmpdir(), LANG: 'C.UTF-8', PATH: process.env.PATH ?? ''}
  for (const [k, v] of Object.entries(options.env ?? {})) if (v !== undefined) env[k] = v
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {cwd: options.cwd ?? ROOT, env, stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolvePromise({
        code,
        json() {
          try {
            return JSON.parse(stdout)
          } catch {
            throw new Error(`stdout is not JSON (exit ${code}):\n${stdout}\nstderr:\n${stderr}`)
          }
        },
        signal,
        stderr,
        stdout,
      })
    })
    child.stdin.on('error', () => {})
    child.stdin.end(options.input ?? '')
  })
}

/**
 * The URL of a loopback port nobody listens on (bound, then closed): a request to it is refused at once. Deadline
 * tests run the same command against it first, to learn what starting the CLI costs on this machine now, so that
 * their bound measures the wait alone and a loaded CI machine does not move it.
 */
export async function refusedUrl(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}

/**
 * A config directory the CLI cannot create or write, even as root (tests run as root here, where permission
 * bits do not stop writes): under /sys, where mkdir fails with EPERM; for other users, inside a 0500 dir.
 */
export function unwritableConfigDir(parent: string): string {
  if (process.getuid?.() === 0) return `/sys/commerce-test-${process.pid}/conf`
  const dir = join(parent, 'read-only')
  mkdirSync(dir, {mode: 0o500})
  return join(dir, 'conf')
}

/** Polls `what` every 50 ms until it holds or `ms` pass; whether it held. */
export async function eventually(what: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (what()) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return what()
}
