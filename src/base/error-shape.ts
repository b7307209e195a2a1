/**
 * What a failure says, the same for every command: its stable code (src/errors.ts ERROR_CODES), message, exit code,
 * HTTP status, hint, when to retry, and field errors. BaseCommand.catch renders it (Output.error): under --json as the
 * one error document `{"error": {"code", "message", "service_message", "exit_code", "status", "hint", "retry_after", "errors"}}`
 * (schemas/error.schema.json), else as readable lines on stderr.
 */
import {Errors} from '@oclif/core'

import {LOGIN_HINT} from '../api/auth.js'
import {spell} from '../domain/phrase.js'
import {CliError, type ErrorCode, errorCode, EXIT, JqHaltError, RateLimitError} from '../errors.js'
import {checked, DryRunStop, dryRunDocument} from '../api/dry-run.js'
import {redactBody} from '../api/redact.js'
import {type ErrorRendering, jsonMode, Output, plainError} from '../io/output.js'
import {sanitize} from '../io/sanitize.js'
import {IOStreams} from '../io/streams.js'

export interface ErrorShape extends Omit<ErrorRendering, 'fieldFlags' | 'stack'> {
  /** Not an error the CLI raised on purpose: a defect, whose stack --debug shows. */
  internal?: boolean
}

export interface DescribeContext {
  /** The flag that sets a service's option, for messages that name options. */
  flagOf: (option: string) => string
  /** Field errors are in the JSON document, not said in the hint. */
  json: boolean
  debug: boolean
  /** `commerce topic command`, for usage hints. */
  commandLine: string
  now: () => number
}

const shape = (code: ErrorCode, message: string, hint?: string | null): ErrorShape => plainError(code, message, hint)

export function describeError(error: Error & {exitCode?: number; oclif?: {exit?: number}}, c: DescribeContext): ErrorShape {
  if (error instanceof CliError) {
    let hint = spell(error.hintText, c.flagOf) ?? null
    if (!hint && error.status === 401) hint = `The token was rejected (expired, revoked or invalid). ${LOGIN_HINT}`
    if (!hint && error.status === 403) hint = 'The credentials lack the permission (scope) this operation needs; log in with a key that has it.'
    if (!hint && error.status === 422 && error.fieldErrors && !c.json) hint = 'Fix the values above and run the command again.'
    const retryAt = error instanceof RateLimitError ? error.retryAt : undefined
    return {
      code: errorCode(error),
      errors: error.fieldErrors ?? {},
      exit_code: error.exitCode,
      hint,
      message: spell(error.text, c.flagOf),
      service_message: error.serviceMessage ?? null,
      retry_after: retryAt ? Math.max(0, Math.ceil((retryAt.getTime() - c.now()) / 1000)) : null,
      status: error.status,
    }
  }
  if (error.name === 'ExitPromptError') return shape('interrupted', 'Interrupted.')
  // Esc at a picker (io/prompt.ts promptSearch): cancelled, nothing sent.
  if (error.name === 'AbortPromptError') return shape('interrupted', 'Cancelled: nothing was sent.')
  // oclif's own errors (parsing, unknown flags, missing args): usage, exit 2 via package.json exitCodes.
  if (error instanceof Errors.CLIError) {
    const exitCode = error.oclif?.exit ?? EXIT.usage
    const message = error.message.replace(/\n\s*See more help with --help$/, '').trim()
    const usage = exitCode === EXIT.usage
    return {...shape(usage ? 'usage' : 'failed', message, usage ? `See \`${c.commandLine} --help\`.` : null), exit_code: exitCode}
  }
  return {...shape('internal', error.message || String(error), c.debug ? null : 'Run again with --debug for details.'), internal: true}
}

/** A dry run's result (api/dry-run.ts's one document): as JSON under --json, else in words; nothing was sent. */
export async function renderDryRun(output: Output, stop: DryRunStop): Promise<void> {
  const {io} = output
  const document = dryRunDocument(stop)
  const planned = stop.planned
  await output.result(document, () => {
    io.out(`Dry run: nothing was sent. It would send ${planned.method} ${sanitize(planned.url, 'terminal')}`)
    for (const [name, value] of Object.entries(planned.headers)) io.out(`${name}: ${sanitize(value, 'terminal')}`)
    if (planned.body !== null) io.out(sanitize(redactBody(JSON.stringify(planned.body, null, 2)), 'terminal'))
    const checks = Object.entries(document.checks)
    if (checks.length > 0) io.out(`Checked: ${checks.map(([name, value]) => `${name} ${sanitize(String(value), 'cell')}`).join(', ')}`)
  })
}
export {checked, DryRunStop}

export interface FailingCommand {
  argv: readonly string[]
  commandLine: string
  fieldFlags: Record<string, string>
  flagOf: (option: string) => string
  /** Unset when the command failed before its streams were made (a parse error). */
  io?: IOStreams
  output?: Output
  now: () => number
}

/** How every command ends on an error (BaseCommand.catch): a dry run's plan, jq's own words, or the error rendered. */
export async function failWith(error: Error, c: FailingCommand): Promise<never> {
  if (error instanceof Errors.ExitError) throw error
  // --dry-run came to the first request that would change something: that request is the result (exit 0).
  if (error instanceof DryRunStop) {
    await renderDryRun(c.output!, error)
    throw new Errors.ExitError(0)
  }
  if (error instanceof JqHaltError) {
    ;(c.io ?? new IOStreams({json: false})).stderr.write(sanitize(error.stderrText, 'terminal').replace(/(.)\n?$/s, '$1\n'))
    throw new Errors.ExitError(error.exitCode)
  }
  const debug = c.argv.includes('--debug')
  const {internal, ...shape} = describeError(error, {
    commandLine: c.commandLine,
    debug,
    flagOf: c.flagOf,
    json: c.io?.jsonErrors ?? jsonMode(c.argv).json,
    now: c.now,
  })
  const output = c.output ?? new Output(new IOStreams(jsonMode(c.argv)))
  // A stack tells a maintainer where a defect is; an error raised on purpose has said all it knows.
  output.error({...shape, fieldFlags: c.fieldFlags, stack: internal && debug ? error.stack : undefined})
  // oclif exits at once on an error: a large error document written to a pipe would be cut. Flushed first.
  await Promise.all([output.io.stdout, output.io.stderr].map((s) => new Promise<void>((resolve) => s.write('', () => resolve()))))
  throw new Errors.ExitError(shape.exit_code)
}
