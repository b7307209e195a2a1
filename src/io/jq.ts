/**
 * `--jq EXPR`: the jq language itself, from jq-web (jq compiled to WebAssembly with Emscripten), run on the one
 * JSON document a command would print.
 *
 * jq runs in a worker thread, so that a deadline can stop it: a filter that never ends (`repeat(1)`) or grows
 * without bound (`[range(1e9)]`) blocks the thread it runs on, and only another thread can end it.
 * - Results stream to stdout as jq prints them (`--jq 'repeat(1)' | head -1` ends when head does), with
 *   backpressure: the worker waits while 1 MiB of its output is not yet written.
 * - COMMERCE_JQ_TIMEOUT (default 10 s) bounds the load, the compile check and each run; past it the worker is
 *   terminated and the command ends with exit 1 saying so. A filter that exhausts memory is the same kind of clear
 *   error; what the WebAssembly runtime prints itself (Emscripten's "Aborted()") never reaches the terminal.
 * - Ctrl-C stops it at once: the main thread is never blocked, so the one interrupt handler runs.
 * - The package is loaded only here, when --jq is used (about 2.8 MB of WebAssembly, ~0.1 s to instantiate).
 * - `compileJq` checks the expression before the command runs, by running jq on no input at all. A compile
 *   error (jq's exit status 3) is a UsageError (exit 2), before any request is sent.
 * - Each result prints like `jq -r`: strings raw, other values as JSON, indented on a terminal and compact in a
 *   pipe (as the CLI's own --json). A runtime error (jq's exit 5) is exit 1 with jq's message; `halt_error(N)`
 *   exits N with its value on stderr, as jq does; what jq writes to stderr while it succeeds reaches stderr as is.
 *
 * jq-web keeps what jq prints in a private buffer until jq ends. To stream it, the worker loads jq-web's script
 * with one line changed (JQ_OUTPUT_HOOK): each byte goes to a hook when one is installed. jq-web is pinned to an
 * exact version, and test/build/bundle.test.ts (through scripts/patches.mjs) fails plainly when the line moves.
 */
import {createRequire} from 'node:module'
import {Worker} from 'node:worker_threads'

import {secondsFromEnv} from '../domain/env.js'
import {CliError, EXIT, JqHaltError, UsageError} from '../errors.js'

export const JQ_TIMEOUT_MS = 10_000
/** Output of the worker not yet written to stdout, past which jq waits. */
const MAX_IN_FLIGHT = 1 << 20
/** The worker's JavaScript heap (the document and its copies); jq's own memory is WebAssembly's. */
const WORKER_HEAP_MB = 512

/** The line of jq-web's jq.js (0.6.2) that keeps each byte jq writes to stdout, and what the worker makes of it. */
export const JQ_OUTPUT_HOOK = {
  module: 'jq-web/jq.js',
  original: 'if (c) outBuffer.push(c)',
  patched: 'if (c) (globalThis.__commerceJqOut ? globalThis.__commerceJqOut(c) : outBuffer.push(c))',
}

/**
 * The worker: loads jq-web with the output hook, then answers `compile` and `run` requests. Output bytes are
 * gathered into chunks sent when 64 KiB are full, or at the end of a result line when 50 ms have passed since
 * the last one (so that slow results still show as they come).
 */
const WORKER = `
const {parentPort, workerData} = require('node:worker_threads')
const {readFileSync} = require('node:fs')
const {dirname} = require('node:path')
const {createRequire} = require('node:module')
const vm = require('node:vm')
const {file, hook, control, maxInFlight} = workerData
const inFlight = new Int32Array(control)
let source = readFileSync(file, 'utf8')
if (!source.includes(hook.original)) throw new Error('jq-web changed: ' + file + ' no longer has the line the --jq worker hooks (src/io/jq.ts)')
source = source.replace(hook.original, hook.patched)
const module = {exports: {}}
vm.runInThisContext('(function (exports, require, module, __filename, __dirname) {' + source + '\\n})', {filename: file})
  .call(module.exports, module.exports, createRequire(file), module, file, dirname(file))
let chunk = new Uint8Array(65536)
let used = 0
let last = Date.now()
function flush() {
  if (used === 0) return
  const out = chunk.slice(0, used)
  used = 0
  last = Date.now()
  Atomics.add(inFlight, 0, out.length)
  parentPort.postMessage({type: 'out', chunk: out}, [out.buffer])
  for (let now = Atomics.load(inFlight, 0); now > maxInFlight; now = Atomics.load(inFlight, 0)) Atomics.wait(inFlight, 0, now, 1000)
}
globalThis.__commerceJqOut = (c) => {
  chunk[used++] = c
  if (used === chunk.length || (c === 10 && Date.now() - last > 50)) flush()
}
// jq's own stderr on success (debug, stderr, halt_error(0)) is handed to jq-web's console.warn with a format of
// its own: sent to the main thread, which writes the text as jq would, instead of Node's formatting of that call.
const warn = console.warn
console.warn = (...args) => {
  if (args[0] === '%cstderr%c: %c%s' && args.length === 5) {
    flush()
    parentPort.postMessage({type: 'err', text: String(args[4])})
  } else warn(...args)
}
module.exports.then((jq) => {
  parentPort.on('message', (request) => {
    let failure
    try {
      jq.raw(request.json, request.expression, request.flags)
    } catch (error) {
      failure = {exitCode: error && error.exitCode, message: String((error && (error.stderr || error.message)) || error)}
    }
    flush()
    parentPort.postMessage({type: 'done', failure})
  })
  parentPort.postMessage({type: 'ready'})
})
`

interface Failure {
  exitCode?: number
  message: string
}

type Message = {type: 'ready'} | {type: 'out'; chunk: Uint8Array} | {type: 'err'; text: string} | {type: 'done'; failure?: Failure}

/** jq's own message, without jq-web's "Non-zero exit code" line nor the "jq: N compile error" trailer. */
function jqMessage(text: string): string {
  return (
    withoutExitLine(text)
      // jq-web's build reports \`input\` past the last input as "break" (at <unknown>); jq says "No more inputs".
      .replace(/^jq: error \(at <unknown>\): break$/m, 'jq: error (at <unknown>): No more inputs')
      .split('\n')
      .filter((line) => !/^jq: \d+ compile errors?$/.test(line.trim()))
      .join('\n')
      .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
      .trim() || 'jq failed'
  )
}

const withoutExitLine = (text: string) => text.replace(/^Non-zero exit code: \d+\n?/, '')

/**
 * \`halt_error(N)\` (and \`halt_error\`, N 5): jq exits N with the value on stderr as it is, not as an error of its
 * own (those begin "jq: error"). Undefined for any other failure.
 */
function haltOf(failure: Failure): JqHaltError | undefined {
  const text = withoutExitLine(failure.message)
  // Run on a document that parsed, after the expression compiled: exit 2 or 3 here can only be halt_error's.
  if (failure.exitCode === undefined || text.startsWith('jq: error')) return undefined
  if (outOfMemory(text)) return undefined
  return new JqHaltError(text, failure.exitCode)
}

/** Emscripten's words for memory that could not grow, or a heap limit the worker reached. */
function outOfMemory(text: string): boolean {
  return /Aborted|\bOOM\b|out of memory|cannot allocate memory|Cannot enlarge memory|allocation failed|ERR_WORKER_OUT_OF_MEMORY/i.test(text)
}

export interface JqOptions {
  /** Indent non-string results (stdout is a terminal). */
  pretty?: boolean
  env?: NodeJS.ProcessEnv
  /** What jq writes to its stderr while it succeeds (debug, stderr, halt_error(0)). */
  stderr?: (text: string) => void
}

/** A compiled --jq expression, running in its worker. */
export interface JqFilter {
  /** Runs the filter on one JSON document, handing each piece of jq's output to `write` as it comes. */
  run(json: string, write: (text: string) => void): Promise<void>
  /** Ends the worker. */
  close(): Promise<void>
}

class JqWorker implements JqFilter {
  private readonly worker: Worker
  private readonly control = new SharedArrayBuffer(4)
  private readonly inFlight = new Int32Array(this.control)
  private pending?: {resolve: (m: Message) => void; reject: (e: Error) => void; onOut?: (chunk: Uint8Array) => void}
  private dead?: Error

  constructor(
    private readonly expression: string,
    private readonly flags: string[],
    private readonly timeoutMs: number,
    private readonly stderr?: (text: string) => void,
  ) {
    const req = typeof require === 'function' ? require : createRequire(import.meta.url)
    this.worker = new Worker(WORKER, {
      eval: true,
      resourceLimits: {maxOldGenerationSizeMb: WORKER_HEAP_MB},
      // What the WebAssembly runtime prints on its own (an abort) is kept from the terminal.
      stderr: true,
      stdout: true,
      workerData: {control: this.control, file: req.resolve(JQ_OUTPUT_HOOK.module), hook: JQ_OUTPUT_HOOK, maxInFlight: MAX_IN_FLIGHT},
    })
    this.worker.stderr.resume()
    this.worker.stdout.resume()
    this.worker.on('message', (m: Message) => {
      if (m.type === 'out') this.pending?.onOut?.(m.chunk)
      else if (m.type === 'err') this.stderr?.(`${m.text}\n`)
      else this.settle((p) => p.resolve(m))
    })
    this.worker.on('error', (error) => this.fail(error))
    this.worker.on('exit', () => this.fail(new Error('the jq runtime stopped')))
    this.worker.unref()
  }

  /** Waits for the worker's next answer under the deadline; output chunks go to `onOut` meanwhile. */
  private async next(what: string, onOut?: (chunk: Uint8Array) => void): Promise<Message> {
    if (this.dead) throw this.dead
    this.worker.ref()
    try {
      return await new Promise<Message>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.fail(
            new CliError(`--jq: ${what} took longer than ${this.timeoutMs / 1000} s and was stopped.`, {
              hint: 'COMMERCE_JQ_TIMEOUT sets the limit in seconds.',
            }),
          )
          void this.worker.terminate()
        }, this.timeoutMs)
        this.pending = {
          onOut,
          reject: (e) => {
            clearTimeout(timer)
            reject(e)
          },
          resolve: (m) => {
            clearTimeout(timer)
            resolve(m)
          },
        }
      })
    } finally {
      this.worker.unref()
    }
  }

  private settle(fn: (p: NonNullable<JqWorker['pending']>) => void): void {
    const p = this.pending
    this.pending = undefined
    if (p) fn(p)
  }

  private fail(error: Error): void {
    if (!this.dead) {
      const text = `${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}`
      this.dead = error instanceof CliError ? error : outOfMemory(text) ? memoryError() : new CliError(`--jq: ${error.message}.`)
    }
    const dead = this.dead
    this.settle((p) => p.reject(dead))
  }

  async load(): Promise<void> {
    await this.next('loading jq')
  }

  async compile(): Promise<void> {
    const done = this.next('compiling the expression')
    this.worker.postMessage({expression: this.expression, flags: [], json: ''})
    const m = await done
    const failure = m.type === 'done' ? m.failure : undefined
    if (!failure) return
    if (failure.exitCode === 3 || failure.exitCode === 2) throw new UsageError(`--jq: ${jqMessage(failure.message)}`)
    throw outOfMemory(failure.message) ? memoryError() : new CliError(`--jq: ${jqMessage(failure.message)}`)
  }

  async run(json: string, write: (text: string) => void): Promise<void> {
    const decoder = new TextDecoder()
    const done = this.next('the filter', (chunk) => {
      try {
        const text = decoder.decode(chunk, {stream: true})
        if (text) write(text)
      } finally {
        Atomics.sub(this.inFlight, 0, chunk.length)
        Atomics.notify(this.inFlight, 0)
      }
    })
    this.worker.postMessage({expression: this.expression, flags: this.flags, json})
    const m = await done
    const rest = decoder.decode()
    if (rest) write(rest)
    const failure = m.type === 'done' ? m.failure : undefined
    if (!failure) return
    const halt = haltOf(failure)
    if (halt) throw halt
    throw outOfMemory(failure.message) ? memoryError() : new CliError(`--jq: ${jqMessage(failure.message)}`, {exitCode: EXIT.failure})
  }

  async close(): Promise<void> {
    this.dead ??= new CliError('--jq: closed')
    await this.worker.terminate()
  }
}

function memoryError(): CliError {
  return new CliError('--jq: the filter ran out of memory and was stopped.', {hint: 'Narrow the input (--fields, --limit) or the filter.'})
}

/** Loads jq in its worker and checks that `expression` compiles; a compile error is exit 2 with jq's message. */
export async function compileJq(expression: string, options: JqOptions = {}): Promise<JqFilter> {
  if (expression.trim() === '') throw new UsageError('--jq: the expression is empty')
  const timeoutMs = secondsFromEnv(options.env ?? process.env, 'COMMERCE_JQ_TIMEOUT') ?? JQ_TIMEOUT_MS
  const jq = new JqWorker(expression, options.pretty ? ['-r'] : ['-r', '-c'], timeoutMs, options.stderr)
  try {
    await jq.load()
    await jq.compile()
  } catch (error) {
    await jq.close()
    throw error
  }
  return jq
}
