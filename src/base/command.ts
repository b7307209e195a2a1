/**
 * BaseCommand: parses flags, owns the IOStreams and the lazily built Context, and maps every failure to the
 * contract's exit code and error output in one place (`catch`). Commands stay thin: parse -> service -> render.
 *
 * - BaseCommand: `--json` and `--debug` (commands that never call the service: sign, verify, sandbox...).
 * - ApiCommand: adds `--profile`, `--base-url`, `--max-wait` and the Context/client.
 */
import {Command, Errors, type Interfaces} from '@oclif/core'

import {LOGIN_HINT} from '../api/auth.js'
import {CliError, EXIT, UsageError} from '../errors.js'
import {IOStreams} from '../io/streams.js'
import {Context} from './context.js'
import {apiFlags, outputFlags} from './flags.js'

export type FlagsOf<T extends typeof Command> = Interfaces.InferredFlags<T['flags'] & T['baseFlags']>
export type ArgsOf<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

interface ErrorShape {
  exitCode: number
  status: number | null
  message: string
  errors?: Record<string, string[]>
  hint?: string
}

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static baseFlags = outputFlags
  /** Service field name -> the flag that sets it, for naming flags in validation errors. */
  static fieldFlags: Record<string, string> = {}

  protected flags!: FlagsOf<T>
  protected args!: ArgsOf<T>
  protected io!: IOStreams

  public async init(): Promise<void> {
    await super.init()
    this.io = new IOStreams()
    this.exitOnInterrupt()
    // Known before parsing, so that a parse error is rendered as JSON too.
    this.io.json = this.argv.some((a) => a === '--json' || a === '--jq' || a.startsWith('--jq='))
    const {args, flags} = await this.parse({
      args: this.ctor.args,
      baseFlags: (this.ctor as typeof BaseCommand).baseFlags,
      flags: this.ctor.flags,
      strict: this.ctor.strict,
    }).catch((error: unknown) => {
      throw this.usageFromParse(error)
    })
    this.flags = flags as FlagsOf<T>
    this.args = args as ArgsOf<T>
    this.io.json = Boolean((flags as {json?: boolean}).json)
    await this.initFilters(flags as {fields?: string[]; jq?: string})
  }

  /** Why this invocation cannot take --jq (its output streams and memory stays flat), if it cannot. */
  protected jqRefusal(): string | undefined {
    return undefined
  }

  /** --fields and --jq (src/io/fields.ts, src/io/jq.ts): --jq compiled here, before any request. */
  private async initFilters(flags: {fields?: string[]; jq?: string}): Promise<void> {
    this.io.fields = flags.fields
    if (flags.jq === undefined) return
    this.io.json = true
    const refusal = this.jqRefusal()
    if (refusal) throw new UsageError(`--jq cannot be used here: ${refusal}`)
    const {compileJq} = await import('../io/jq.js')
    this.io.jq = await compileJq(flags.jq, {pretty: this.io.isStdoutTTY})
  }

  /**
   * Ctrl-C is exit 130 (rather than death by signal, which a parent process sees as no exit code), unless the
   * command handles SIGINT itself (bulk commands, `webhooks listen`, `sandbox start`) or conf's dependency
   * when-exit has a listener: it re-raises the signal once, and that echo, left to this listener, ends here.
   */
  private exitOnInterrupt(): void {
    const before = new Set(process.listeners('SIGINT'))
    const onInterrupt = () => {
      if (process.listeners('SIGINT').some((l) => l !== onInterrupt && !before.has(l))) return
      this.io?.interrupted()
      process.exit(EXIT.interrupted)
    }
    process.on('SIGINT', onInterrupt)
  }

  /**
   * Any failure to parse the command line is invalid usage (exit 2): oclif gives some parse errors its default
   * exit code (1), and a flag's own parse function throws a plain Error. The flag stays named in the message.
   */
  private usageFromParse(error: unknown): unknown {
    if (!(error instanceof Error) || error instanceof CliError || error instanceof Errors.ExitError) return error
    const message = error.message
      .replace(/\n\s*See more help with --help\s*$/, '')
      .replace(/^Parsing (--[\w-]+) *\n\s*/, '$1: ')
      .trim()
    return new UsageError(message, {hint: `See \`${this.commandLine()} --help\`.`})
  }

  /** The `commerce ...` line that runs this command (for hints). */
  protected commandLine(): string {
    return `commerce ${this.id?.replaceAll(':', ' ') ?? ''}`.trim()
  }

  protected async catch(error: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<never> {
    if (error instanceof Errors.ExitError) throw error
    const shape = this.describe(error)
    // Once a result has begun streaming to stdout (a long --json list), the error goes to stderr instead.
    if (this.io?.json && !this.io.resultStarted) {
      const body: Record<string, unknown> = {message: shape.message, status: shape.status}
      if (shape.errors) body.errors = shape.errors
      process.stdout.write(JSON.stringify({error: body}) + '\n')
      if (shape.hint && this.io) this.io.info(shape.hint)
    } else {
      const io = this.io ?? new IOStreams()
      const lines = [io.chalk.red('Error: ') + shape.message]
      const flagsMap = (this.ctor as typeof BaseCommand).fieldFlags
      for (const [field, messages] of Object.entries(shape.errors ?? {})) {
        const flag = flagsMap[field] ?? flagsMap[field.replace(/\.\d+(\..*)?$/, '')]
        for (const m of messages) lines.push(`  ${field}${flag ? ` (${flag})` : ''}: ${m}`)
      }
      if (shape.hint) lines.push(io.chalk.dim(shape.hint))
      if (this.argv.includes('--debug') && error.stack) lines.push(io.chalk.dim(error.stack))
      io.info(lines.join('\n'))
    }
    throw new Errors.ExitError(shape.exitCode)
  }

  private describe(error: Error & {exitCode?: number; oclif?: {exit?: number}}): ErrorShape {
    if (error instanceof CliError) {
      let hint = error.hint
      if (!hint && error.status === 401) hint = `The token was rejected (expired, revoked or invalid). ${LOGIN_HINT}`
      if (!hint && error.status === 403) hint = 'The credentials lack the permission (scope) this operation needs; log in with a key that has it.'
      if (!hint && error.status === 422 && error.fieldErrors) hint = 'Fix the values above and run the command again.'
      return {errors: error.fieldErrors, exitCode: error.exitCode, hint, message: error.message, status: error.status}
    }
    if (error.name === 'ExitPromptError') return {exitCode: EXIT.interrupted, message: 'Interrupted.', status: null}
    // oclif's own errors (parsing, unknown flags, missing args): usage, exit 2 via package.json exitCodes.
    if (error instanceof Errors.CLIError) {
      const exitCode = error.oclif?.exit ?? EXIT.usage
      const message = error.message.replace(/\n\s*See more help with --help$/, '').trim()
      return {exitCode, hint: exitCode === EXIT.usage ? `See \`${this.commandLine()} --help\`.` : undefined, message, status: null}
    }
    return {exitCode: EXIT.failure, hint: this.argv.includes('--debug') ? undefined : 'Run again with --debug for details.', message: error.message || String(error), status: null}
  }
}

export abstract class ApiCommand<T extends typeof Command> extends BaseCommand<T> {
  static baseFlags = apiFlags
  private context?: Context

  /** The v2 command to suggest in the v1 deprecation warning; by default this same command in v2. */
  protected v2Hint(): string {
    return this.commandLine()
  }

  protected get ctx(): Context {
    this.context ??= new Context({
      env: process.env,
      flags: this.flags as never,
      io: this.io,
      userAgent: `commerce-cli/${this.config.version} node/${process.version}`,
      v2Hint: this.v2Hint(),
    })
    return this.context
  }

  protected async finally(error: Error | undefined): Promise<void> {
    await this.context?.close()
    return super.finally(error)
  }
}
