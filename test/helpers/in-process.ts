/**
 * A command run in this process through its seam (BaseCommand.runWith, src/base/deps.ts): the real command class,
 * services, config store and client against a real server, with the environment and streams given here; no child
 * process. Standard output and error are collected as text; stdin is empty unless given. Not a terminal, like a
 * command in a pipe.
 */
import {tmpdir} from 'node:os'
import {PassThrough, Readable} from 'node:stream'

import {Config} from '@oclif/core'

import type {CommandDeps} from '../../src/base/deps.js'
import {ROOT} from './cli.js'

export interface InProcessResult {
  code: number
  stdout: string
  stderr: string
  json<T = any>(): T
}

let config: Promise<Config> | undefined

type Runnable = {runWith(id: string, argv: string[], config: Config, deps: CommandDeps): Promise<number>}

/** `id` is the command's as oclif knows it (`customers:get`), for the hints that name the command line. */
export async function runInProcess(
  command: Runnable,
  id: string,
  argv: string[],
  options: {env: NodeJS.ProcessEnv; stdin?: string; now?: () => number},
): Promise<InProcessResult> {
  config ??= Config.load({root: ROOT})
  const out = collect()
  const err = collect()
  const stdin = Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]) as unknown as NodeJS.ReadStream
  const code = await command.runWith(id, argv, await config, {
    env: {PATH: process.env.PATH, ...options.env},
    now: options.now ?? Date.now,
    stderr: err.stream,
    stdin,
    stdout: out.stream,
  })
  const stdout = out.text()
  return {code, json: () => JSON.parse(stdout), stderr: err.text(), stdout}
}

function collect(): {stream: NodeJS.WriteStream; text(): string} {
  const stream = new PassThrough()
  const chunks: Buffer[] = []
  stream.on('data', (chunk: Buffer) => chunks.push(chunk))
  return {stream: stream as unknown as NodeJS.WriteStream, text: () => Buffer.concat(chunks).toString('utf8')}
}

/**
 * A command line (`['customers', 'create', ...]`) run in this process: the command found as oclif finds it (the
 * manifest, the built bundle's class), then run through its seam. What a child process would do, minus the
 * process: for tests of the client and the services that need no terminal and no signals.
 */
export async function runArgvInProcess(
  argv: string[],
  options: {env: NodeJS.ProcessEnv; stdin?: string; now?: () => number},
): Promise<InProcessResult> {
  config ??= Config.load({root: ROOT})
  const loaded = await config
  let words = argv.findIndex((a) => a.startsWith('-'))
  if (words === -1) words = argv.length
  for (let n = words; n > 0; n--) {
    const id = argv.slice(0, n).join(':')
    const found = loaded.findCommand(id)
    if (found) return runInProcess((await found.load()) as unknown as Runnable, id, argv.slice(n), options)
  }
  throw new Error(`no command in ${JSON.stringify(argv)}`)
}

/**
 * `run` of test/helpers/cli.ts, in this process: the same arguments and result, for the e2e files whose tests
 * need no process of their own (no terminal, no signals, no start-up), so that they take milliseconds a command.
 */
export async function runHere(
  args: string[],
  options: {env?: Record<string, string | undefined>; input?: string | Buffer} = {},
): Promise<{code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; json<T = any>(): T}> {
  const env: NodeJS.ProcessEnv = {HOME: options.env?.HOME ?? tmpdir(), LANG: 'C.UTF-8'}
  for (const [k, v] of Object.entries(options.env ?? {})) if (v !== undefined) env[k] = v
  const r = await runArgvInProcess(args, {env, stdin: options.input?.toString()})
  return {
    ...r,
    json<T>(): T {
      try {
        return JSON.parse(r.stdout) as T
      } catch {
        throw new Error(`stdout is not JSON (exit ${r.code}):\n${r.stdout}\nstderr:\n${r.stderr}`)
      }
    },
    signal: null,
  }
}
