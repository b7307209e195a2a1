/**
 * The in-process level: a command line run in this process through its seam (BaseCommand.runWith, src/base/deps.ts),
 * the command class loaded from src/ through vitest's own transform (no build, no stale bundle): the real command,
 * services, config store and client against a real server, with the environment and streams given here; no child
 * process. Standard output and error are collected as text; stdin is empty unless given. Not a terminal, like a
 * command in a pipe. The process level is `run` (test/helpers/cli.ts); the terminal level `startInTmux`.
 */
import {existsSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
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

export interface InProcessOptions {
  /** The environment (HOME a temporary directory and LANG C.UTF-8 unless given; an undefined value is left out). */
  env?: Record<string, string | undefined>
  /** Standard input. */
  input?: string | Buffer
  now?: () => number
}

type Runnable = {runWith(id: string, argv: string[], config: Config, deps: CommandDeps): Promise<number>}

/** oclif's configuration of the package (its bin, name and manifest): how the command finds its words and hints. */
let config: Promise<Config> | undefined

function collect(): {stream: NodeJS.WriteStream; text(): string} {
  const stream = new PassThrough()
  const chunks: Buffer[] = []
  stream.on('data', (chunk: Buffer) => chunks.push(chunk))
  return {stream: stream as unknown as NodeJS.WriteStream, text: () => Buffer.concat(chunks).toString('utf8')}
}

/** A command line (`['customers', 'create', ...]`) run in this process, as a child process would run it. */
export async function runInProcess(argv: string[], options: InProcessOptions = {}): Promise<InProcessResult> {
  const loaded = await (config ??= Config.load({root: ROOT}))
  let words = argv.findIndex((a) => a.startsWith('-'))
  if (words === -1) words = argv.length
  for (let n = words; n > 0; n--) {
    const id = argv.slice(0, n).join(':')
    // The class from src/, transformed by vitest: what is tested is the source, whatever dist/ and the manifest hold
    // (a command written a minute ago runs before `npm run generate`).
    const file = join(ROOT, 'src', 'commands', ...argv.slice(0, n)) + '.ts'
    if (!existsSync(file)) continue
    const command = (await import(file)).default as Runnable
    const env: NodeJS.ProcessEnv = {HOME: tmpdir(), LANG: 'C.UTF-8', PATH: process.env.PATH}
    for (const [k, v] of Object.entries(options.env ?? {})) if (v !== undefined) env[k] = v
    const out = collect()
    const err = collect()
    const stdin = Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]) as unknown as NodeJS.ReadStream
    const code = await command.runWith(id, argv.slice(n), loaded, {env, now: options.now ?? Date.now, stderr: err.stream, stdin, stdout: out.stream})
    const stdout = out.text()
    return {
      code,
      json<T>(): T {
        try {
          return JSON.parse(stdout) as T
        } catch {
          throw new Error(`stdout is not JSON (exit ${code}):\n${stdout}\nstderr:\n${err.text()}`)
        }
      },
      stderr: err.text(),
      stdout,
    }
  }
  throw new Error(`no command in ${JSON.stringify(argv)}`)
}
