/**
 * `--jq EXPR`: the jq language itself, from jq-web (jq compiled to WebAssembly with Emscripten), run on the one
 * JSON document a command would print.
 *
 * - The package is loaded only here, when --jq is used (about 2.8 MB of WebAssembly, ~0.1 s to instantiate), so
 *   the start-up of every other command is unchanged.
 * - `compileJq` checks the expression before the command runs, by running jq on no input at all: jq compiles
 *   the program, then has nothing to run it on. A compile error (jq's exit status 3) is a UsageError (exit 2),
 *   before any request is sent.
 * - The compiled filter prints like `jq -r`: each result on its own line, strings raw; other values as JSON,
 *   indented on a terminal and compact in a pipe (as the CLI's own --json). A runtime error (jq's exit 5) is
 *   a CliError (exit 1) with jq's message.
 */
import {createRequire} from 'node:module'

import {CliError, EXIT, UsageError} from '../errors.js'

interface JqWeb {
  raw(json: string, filter: string, flags?: string[]): string | undefined
}

interface JqFailure {
  exitCode?: number
  stderr?: string
  message?: string
}

let loading: Promise<JqWeb> | undefined

/**
 * jq-web is required from node_modules as it ships (not bundled): its script reads jq.wasm beside itself, and
 * its module.exports is a promise of the instantiated module. In the shipped CommonJS bundle `require` is
 * Node's own; under ES modules (tests) one is made from this file's URL.
 */
async function load(): Promise<JqWeb> {
  loading ??= (async () => {
    const req = typeof require === 'function' ? require : createRequire(import.meta.url)
    return (req as NodeJS.Require)('jq-web') as Promise<JqWeb>
  })()
  return loading
}

/** jq's own message, without jq-web's "Non-zero exit code" line nor the "jq: N compile error" trailer. */
function jqMessage(error: unknown): string {
  const failure = error as JqFailure
  const text = (failure.stderr ?? failure.message ?? String(error)).replace(/^Non-zero exit code: \d+\n?/, '')
  return (
    text
      .split('\n')
      .filter((line) => !/^jq: \d+ compile errors?$/.test(line.trim()))
      .join('\n')
      .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
      .trim() || 'jq failed'
  )
}

export interface JqOptions {
  /** Indent non-string results (stdout is a terminal). */
  pretty?: boolean
}

/** A compiled --jq expression: the text jq prints for one JSON document (each result ending in a newline). */
export type JqFilter = (json: string) => string

/** Loads jq and checks that `expression` compiles; a compile error is exit 2 with jq's message. */
export async function compileJq(expression: string, options: JqOptions = {}): Promise<JqFilter> {
  if (expression.trim() === '') throw new UsageError('--jq: the expression is empty')
  const jq = await load()
  try {
    jq.raw('', expression, [])
  } catch (error) {
    const failure = error as JqFailure
    if (failure.exitCode === 3 || failure.exitCode === 2) throw new UsageError(`--jq: ${jqMessage(error)}`)
    throw new CliError(`--jq: ${jqMessage(error)}`)
  }
  const flags = options.pretty ? ['-r'] : ['-r', '-c']
  return (json: string) => {
    try {
      // jq-web drops the newline that ends jq's last result.
      const text = jq.raw(json, expression, flags) ?? ''
      return text === '' || text.endsWith('\n') ? text : text + '\n'
    } catch (error) {
      throw new CliError(`--jq: ${jqMessage(error)}`, {exitCode: EXIT.failure})
    }
  }
}
