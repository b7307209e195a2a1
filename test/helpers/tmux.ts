/**
 * Drives the built CLI (`bin/run.js`) inside a real terminal: a detached tmux session of a fixed size, so that
 * stdin, stdout and stderr are all TTYs, exactly as for a person at a keyboard.
 *
 *   const term = await startInTmux(['customers', 'delete', '7'], {env: {COMMERCE_BASE_URL: url}})
 *   try { await term.waitFor('Delete customer 7?'); await term.type('y'); await term.sendKeys('Enter')
 *         expect(await term.waitForExit()).toBe(0) } finally { await term.kill() }
 *
 * Every session runs on its own tmux server, on a socket in a private temp directory (`tmux -S`), so tests never
 * touch a user's tmux server and leave no socket behind. The CLI runs under `env -i`: only PATH, HOME (the
 * config dir), LANG, TERM=xterm-256color, COMMERCE_SKIP_UPDATE_CHECK=1 (a test may pass it as undefined to unset it)
 * and what the test passes; in particular CI is unset unless given.
 * After the CLI the shell prints `[tty-exit N]`, and the pane stays after that (remain-on-exit), so the last
 * screen and the exit status can be read.
 */
import {execFile} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll} from 'vitest'

import {BIN, ROOT} from './cli.js'

const exec = promisify(execFile)
const POLL_MS = 50
const DEFAULT_TIMEOUT_MS = 10_000
const TARGET = 'cli'
/** The line the shell prints when the CLI has exited: `[tty-exit N]` (N is 128 + signal number for a signal). */
const EXIT_MARKER = '[tty-exit'
/**
 * The last `[tty-exit N]` on the screen. Not anchored to the screen's end: tmux may add its own "Pane is dead
 * (status …)" line after it, which wraps to several rows in a narrow window.
 */
const EXIT_LINE = /\[tty-exit (\d+)\](?![\s\S]*\[tty-exit)/

export interface TmuxOptions {
  /**
   * Added to the clean environment; `undefined` values are left out (COMMERCE_SKIP_UPDATE_CHECK: undefined and
   * COMMERCE_PAGER: undefined unset the helper's defaults, which turn the update check and the pager off).
   */
  env?: Record<string, string | undefined>
  /** Run this program (and its arguments) in the terminal instead of the CLI with `args`: a shell, for completion. */
  program?: string[]
  /** Terminal size; default 120 x 40. */
  width?: number
  height?: number
  /**
   * Every byte the program writes to the terminal, as written (tmux's pipe-pane), goes to this file: what reached the
   * terminal raw, before tmux interprets it. The program starts once the pipe is in place.
   */
  rawOutput?: string
}

export interface CaptureOptions {
  /** Keep colour and attribute escapes (`capture-pane -e`). */
  escapes?: boolean
}

export interface TmuxSession {
  /** tmux key names, e.g. 'Enter', 'C-c', 'BSpace'. */
  sendKeys(...keys: string[]): Promise<void>
  /** A tmux format of the pane (`wrap_flag`: 1 while the terminal wraps long lines), e.g. a mode the CLI left set. */
  paneFormat(format: string): Promise<string>
  /** Literal text, as typed. */
  type(text: string): Promise<void>
  /** Types a line and Enter: a reply to the prompt that is open. */
  reply(text: string): Promise<void>
  /** In the picker that is open: types `text`, waits for the entry it should bring to the top, and chooses it. */
  choose(text: string, top: string | RegExp): Promise<void>
  /** Waits for a question, types the reply and Enter; resolves with the exit code once the CLI ends. */
  answer(question: string | RegExp, reply: string): Promise<number>
  /**
   * The whole pane, scroll-back included, wrapped lines joined; without tmux's own "Pane is dead" line, but with
   * the `[tty-exit N]` line once the CLI has exited.
   */
  capture(options?: CaptureOptions): Promise<string>
  /** Polls the pane until it contains `pattern`; resolves with that capture, or rejects showing the last one. */
  waitFor(pattern: string | RegExp, options?: CaptureOptions & {timeoutMs?: number}): Promise<string>
  /** Waits for the CLI to exit; resolves with its exit status (128 + signal number when killed by a signal). */
  waitForExit(timeoutMs?: number): Promise<number>
  /**
   * The terminal goes away (its tmux server is stopped, the CLI gets SIGHUP), the directory stays: the CLI may
   * still write below its HOME as it exits. `kill` removes it afterwards.
   */
  hangUp(): Promise<void>
  /** Stops the tmux server and removes its socket; safe to call twice. */
  kill(): Promise<void>
}

const live = new Set<TmuxSession>()

/** Kills every session still running: for afterEach, so that a failed test leaves nothing behind. */
export async function killAllSessions(): Promise<void> {
  await Promise.all([...live].map((s) => s.kill()))
}

// Every file that starts terminals ends them, whether or not its tests do (a tmux server outlives its test otherwise:
// test/helpers/global-setup.ts fails the run on one left alive).
afterAll(killAllSessions)

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`
}

export async function startInTmux(args: string[], options: TmuxOptions = {}): Promise<TmuxSession> {
  const socketDir = mkdtempSync(join(tmpdir(), 'commerce-tmux-'))
  const socket = join(socketDir, 'socket')
  // tmux itself must not see a TMUX variable (a test run from inside tmux) nor anything else surprising.
  const tmuxEnv = {LANG: 'C.UTF-8', PATH: process.env.PATH ?? '/usr/bin:/bin'}
  const tmux = async (...tmuxArgs: string[]) => (await exec('tmux', ['-S', socket, ...tmuxArgs], {env: tmuxEnv})).stdout

  // The update notice's daily check would ask the npm registry: off, unless a test turns it on (its own registry).
  // A long table would wait in the pager for a key: off, unless a test turns it on (COMMERCE_PAGER: undefined).
  const env: Record<string, string> = {
    COMMERCE_PAGER: 'cat',
    COMMERCE_SKIP_UPDATE_CHECK: '1',
    HOME: socketDir,
    LANG: 'C.UTF-8',
    PATH: tmuxEnv.PATH,
    TERM: 'xterm-256color',
  }
  for (const name of ['COMMERCE_SKIP_UPDATE_CHECK', 'COMMERCE_PAGER'])
    if (options.env && name in options.env && options.env[name] === undefined) delete env[name]
  for (const [k, v] of Object.entries(options.env ?? {})) if (v !== undefined) env[k] = v
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`)
  // `env -i` drops the test runner's environment (CI included; `-u CI` is kept to say so explicitly). The shell
  // prints the exit status after the CLI: tmux's own #{pane_dead_status} is not reliable (under load tmux can
  // see the pane close without reaping the process, and the status stays empty).
  const cli = ['env', '-u', 'CI', '-i', ...assignments, ...(options.program ?? [process.execPath, BIN, ...args]).map(shellQuote)].join(' ')
  // `trap : INT`: Ctrl-C reaches the CLI (which gets the default disposition back on exec) but not this shell.
  const go = join(socketDir, 'go')
  const wait = options.rawOutput ? `while [ ! -e ${shellQuote(go)} ]; do sleep 0.02; done; ` : ''
  const command = `trap : INT; ${wait}cd ${shellQuote(ROOT)} && ${cli}; echo "${EXIT_MARKER} $?]"`

  let killed = false
  const session: TmuxSession = {
    async capture(capture = {}) {
      const text = await tmux('capture-pane', '-p', '-J', '-S', '-', ...(capture.escapes ? ['-e'] : []), '-t', TARGET)
      return text.replace(/\n?(\x1b\[[0-9;]*m)*Pane is dead \(.*\)(\x1b\[[0-9;]*m)*\s*$/, '\n').trimEnd()
    },
    async hangUp() {
      await tmux('kill-server').catch(() => {})
    },
    async kill() {
      if (killed) return
      killed = true
      live.delete(session)
      await tmux('kill-server').catch(() => {})
      // The CLI may still be writing below its HOME (the code cache, at exit) as the server goes: retry a moment.
      rmSync(socketDir, {force: true, maxRetries: 10, recursive: true, retryDelay: 50})
    },
    async paneFormat(format) {
      return (await tmux('display-message', '-p', '-t', TARGET, format)).trim()
    },
    async sendKeys(...keys) {
      await tmux('send-keys', '-t', TARGET, ...keys)
    },
    async type(text) {
      await tmux('send-keys', '-t', TARGET, '-l', text)
    },
    async reply(text) {
      await session.type(text)
      await session.sendKeys('Enter')
    },
    async choose(text, top) {
      await session.type(text)
      await session.waitFor(top)
      await session.sendKeys('Enter')
    },
    async answer(question, reply) {
      await session.waitFor(question)
      await session.reply(reply)
      return session.waitForExit()
    },
    async waitFor(pattern, wait = {}) {
      let last = ''
      const found = await poll(wait.timeoutMs, async () => {
        last = await session.capture(wait)
        return typeof pattern === 'string' ? last.includes(pattern) : pattern.test(last)
      })
      if (!found) throw new Error(`Timed out waiting for ${String(pattern)} in the terminal. Last screen:\n${last}`)
      return last
    },
    async waitForExit(timeoutMs) {
      const screen = await session.waitFor(EXIT_LINE, {timeoutMs}).catch(async () => {
        throw new Error(`The CLI did not exit in time. Last screen:\n${await session.capture()}`)
      })
      return Number(EXIT_LINE.exec(screen)![1])
    },
  }
  live.add(session)
  try {
    const width = String(options.width ?? 120)
    const height = String(options.height ?? 40)
    await tmux(
      '-f',
      '/dev/null',
      'start-server',
      ';',
      'set-option',
      '-g',
      'remain-on-exit',
      'on',
      ';',
      'set-option',
      '-g',
      'history-limit',
      '10000',
      ';',
      'new-session',
      '-d',
      '-s',
      TARGET,
      '-x',
      width,
      '-y',
      height,
      command,
    )
    if (options.rawOutput) {
      await tmux('pipe-pane', '-o', '-t', TARGET, `cat > ${shellQuote(options.rawOutput)}`)
      writeFileSync(go, '')
    }
  } catch (error) {
    await session.kill()
    throw error
  }
  return session
}

/** Calls `check` every POLL_MS until it returns true or the time is up. */
async function poll(timeoutMs = DEFAULT_TIMEOUT_MS, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return true
    if (Date.now() >= deadline) return false
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}
