/**
 * BaseCommand: parses flags, owns the IOStreams and the lazily built Context, and maps every failure to the
 * contract's exit code and error output in one place (`catch`). Commands stay thin: parse -> service -> render.
 *
 * BaseCommand has `--json` and `--debug`; ApiCommand adds `--profile`, `--base-url`, `--max-wait` and the Context.
 */
import {Command, type Config, Errors, type Interfaces} from '@oclif/core'

import {CliError, errorCode, interruptedBy, UsageError} from '../errors.js'
import {failWith} from './error-shape.js'
import {jsonMode, Output, plainError} from '../io/output.js'
import {sanitize} from '../io/sanitize.js'
import {IOStreams} from '../io/streams.js'
import {kebabFlag, spell, type Text} from '../domain/phrase.js'
import {type Currency, type MoneyUnit, type OperationId} from '../domain/schema.js'
import {Context} from './context.js'
import type {PickKind} from '../services/pickers.js'
import type {ApiClient} from '../api/client.js'
import {type CommandDeps, processDeps} from './deps.js'
import {usageFromParse} from './parse-errors.js'
import {listenForInterrupts} from './interrupts.js'
import {commandSource} from './history-recorder.js'
import type {Surface} from '../config/history.js'
import {apiFlags, normalizeEnumValues, outputFlags} from './flags.js'
import type {Effect} from '../services/command-catalogue.js'

export type FlagsOf<T extends typeof Command> = Interfaces.InferredFlags<T['flags'] & T['baseFlags']>
export type ArgsOf<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static baseFlags = outputFlags
  /**
   * Service field or option name -> the flag that sets it, for naming flags in errors: an API field in a 422's
   * field errors, an option a service names in a Phrase. An option not listed is `--` and its name in kebab case.
   */
  static fieldFlags: Record<string, string> = {}
  /** Stops gracefully (finishes what is in progress, prints a summary): Ctrl-C, SIGTERM abort `this.interrupted`. */
  static interruptible = false
  /** Stdout carries a protocol (`commerce mcp`): never a document of ours, whatever the command line says; errors go to stderr. */
  static stdoutIsProtocol = false
  /**
   * The kind of record its id argument names, when it has one a person may pick (`this.pick()` asks on a terminal) and
   * a shell completes from the account. Declared here only: completion and the docs' lists are generated from it.
   */
  static pick?: PickKind
  /**
   * The service's operations it makes (src/domain/schema.ts OPERATIONS), besides those of its picker: what
   * `commands --json` and docs/operations.md say of it, and whether it changes the account (any operation but a read
   * or a token's). Declared here only: `npm run generate` writes the lists from it.
   */
  static operations: readonly OperationId[] = []
  /**
   * What it changes, when its operations do not say (services/command-catalogue.ts `effectOf` decides it for every
   * surface): `reads` nothing; `local` state only (config, aliases, the local sandbox, the inbox, caches); the
   * `account`. A mistyped command's guess runs on Enter only when it reads (hooks/command-not-found.ts).
   */
  static effect?: Effect
  /** Exit codes it ends with besides the error codes every command shares (docs/errors.md), and what each means. */
  static exitCodes: Readonly<Record<string, string>> = {}
  /**
   * Whether it reads oclif's whole command table (its commands, topics or plugins, or runs another). Otherwise it runs
   * with only its own manifest entry when no plugin is installed (bin/lean.js); test/build/lean-start.test.ts checks it.
   */
  static readsAllCommands = false

  protected flags!: FlagsOf<T>
  protected args!: ArgsOf<T>
  /** Every positional argument as given: more than `args` declares when the command is not `strict`. */
  protected positionals: string[] = []
  protected io!: IOStreams
  /** The one path a result takes to stdout: `this.output.result(value, () => render...)`, `list`, `record`. */
  protected output!: Output
  private readonly interruption = new AbortController()
  /** Environment, streams and clock: the process's, unless a test gave its own (runWith). */
  protected deps: CommandDeps = processDeps()
  private signalListeners: Array<[NodeJS.Signals, () => void]> = []
  /** The --jq worker, ended when the command ends. */
  private jq?: import('../io/jq.js').JqFilter

  /** Aborted on the first Ctrl-C (or SIGTERM) when the command is `interruptible`; never otherwise. */
  protected get interrupted(): AbortSignal {
    return this.interruption.signal
  }

  /**
   * Runs the command in this process with `deps` for its environment and streams: the seam tests use to run a
   * command without a process. Resolves with the exit code (0, or the code of the error that ended it).
   */
  static async runWith(
    this: new (argv: string[], config: Config) => BaseCommand<typeof Command>,
    id: string,
    argv: string[],
    config: Config,
    deps: CommandDeps,
  ): Promise<number> {
    const command = new this(argv, config)
    command.id = id
    command.deps = deps
    try {
      await command._run()
      return 0
    } catch (error) {
      if (error instanceof Errors.ExitError) return error.oclif.exit ?? 1
      throw error
    }
  }

  public async init(): Promise<void> {
    await super.init()
    // Decided once, before parsing, so that a parse error is rendered as JSON too.
    const {env, stderr, stdout} = this.deps
    const mode = (this.ctor as typeof BaseCommand).stdoutIsProtocol ? {jqOnly: false, json: false} : jsonMode(this.argv)
    this.io = new IOStreams({env, ...mode, stderr, stdin: () => this.deps.stdin, stdout})
    this.io.values.now = this.deps.now()
    this.output = new Output(this.io)
    this.handleInterrupts()
    const allFlags = {...(this.ctor as typeof BaseCommand).baseFlags, ...this.ctor.flags}
    const argv = normalizeEnumValues(this.argv, allFlags)
    const {
      args,
      argv: positionals,
      flags,
    } = await this.parse(
      {
        args: this.ctor.args,
        baseFlags: (this.ctor as typeof BaseCommand).baseFlags,
        flags: this.ctor.flags,
        strict: this.ctor.strict,
      },
      argv,
    ).catch((error: unknown) => {
      throw this.usageFromParse(error)
    })
    this.flags = flags as FlagsOf<T>
    // As parsed (not a word of argv: `sandbox exec -- cmd --dry-run` is no dry run). Questions are then not asked, their
    // checks still run (io/prompt.ts confirmAfterCheck); the client stops at the first write (base/context.ts).
    this.io.dryRun = (flags as {'dry-run'?: boolean})['dry-run'] === true
    this.args = args as ArgsOf<T>
    this.positionals = positionals as string[]
    await this.initFilters(flags)
  }

  /** Why this invocation cannot take --jq (its output streams and memory stays flat), if it cannot. */
  protected jqRefusal(): string | undefined {
    return undefined
  }

  /**
   * --fields and --jq (src/io/fields.ts, src/io/jq.ts) as the Output's filter: fields first, then the expression, which
   * prints its own results; --jq is compiled here, before any request (a compile error is exit 2), and implies --json.
   */
  private async initFilters(flags: {fields?: string[]; jq?: string; 'no-pager'?: boolean}): Promise<void> {
    const {io} = this
    io.pagerOff = flags['no-pager'] === true
    io.fields = flags.fields
    const f = this.ctor.flags?.fields as {options?: readonly string[]; wholeRecord?: readonly string[]} | undefined
    ;[io.knownFields, io.wholeRecordFields] = [[...(f?.options ?? [])], f?.wholeRecord ?? []]
    if (flags.jq === undefined) {
      if (flags.fields) this.output.setFilter((document) => io.projected(document))
      return
    }
    const refusal = this.jqRefusal()
    if (refusal) throw new UsageError(`--jq cannot be used here: ${refusal}`)
    const {compileJq} = await import('../io/jq.js')
    const jq = await compileJq(flags.jq, {env: this.deps.env, pretty: io.isStdoutTTY, stderr: (text) => io.stderr.write(sanitize(text, 'terminal'))})
    this.jq = jq
    this.output.setFilter(async (document) => {
      await io.outJq(jq, JSON.stringify(io.projected(document)))
      return undefined
    })
  }

  /** The signal handlers go, and the --jq worker ends, however the command ended. */
  protected async finally(error: Error | undefined): Promise<void> {
    for (const [signal, listener] of this.signalListeners.splice(0)) process.removeListener(signal, listener)
    await this.jq?.close()
    await super.finally(error)
  }

  /** The one SIGINT (and SIGTERM, SIGHUP) handler (interrupts.ts). */
  private handleInterrupts(): void {
    const interruptible = (this.ctor as typeof BaseCommand).interruptible
    this.signalListeners.push(...listenForInterrupts(interruptible ? this.interruption : () => this.stopNow()))
  }

  /** What a command that is not `interruptible` says on a signal before it exits (130, 143, 129). */
  private stopNow(): (signal: NodeJS.Signals) => void {
    return (name) => {
      const error = interruptedBy(name)
      try {
        this.io?.interrupted()
        if (this.io?.jsonErrors && !this.io.resultStarted) this.output.error(plainError(errorCode(error), error.message))
      } catch {
        // A terminal that closed (SIGHUP) cannot be written to: the exit code still says why.
      }
      // process.exit runs the exit handlers: locks and the command's temp files go (src/config/signals.ts).
      process.exit(error.exitCode)
    }
  }

  /** Any failure to parse the command line is invalid usage (exit 2), in our words (parse-errors.ts). */
  private usageFromParse(error: unknown): unknown {
    if (!(error instanceof Error) || error instanceof CliError || error instanceof Errors.ExitError) return error
    const flags = Object.keys({...(this.ctor as typeof BaseCommand).baseFlags, ...this.ctor.flags}).map((n) => `--${n}`)
    return usageFromParse(error, flags, `See \`${this.commandLine()} --help\`.`)
  }

  /** The flag that sets a service's option (fieldFlags, else `--kebab-case`). */
  protected flagOf(option: string): string {
    return (this.ctor as typeof BaseCommand).fieldFlags[option] ?? kebabFlag(option)
  }

  /** A service's text as this command says it: each option it names spelled as the flag that sets it. */
  protected say(text: Text): string {
    return spell(text, (option) => this.flagOf(option))
  }

  /** An id left out: a picker on a terminal (base/pick.ts), else exit 2 naming it. */
  protected async pick(client?: () => Promise<ApiClient>, o: {missing?: string; currency?: Currency} = {}): Promise<number | string> {
    const kind = (this.ctor as typeof BaseCommand).pick
    if (kind === undefined) throw new Error(`${this.id} picks an id but declares no \`static pick\` kind.`)
    const {pickId} = await import('./pick.js')
    const source = {client, currency: o.currency, env: this.deps.env}
    return pickId({io: this.io, kind, missing: o.missing, now: this.deps.now, source, usage: `${this.commandLine()} ID`})
  }

  /** The `commerce ...` line that runs this command (for hints). */
  protected commandLine(): string {
    return `commerce ${this.id?.replaceAll(':', ' ') ?? ''}`.trim()
  }

  protected async catch(error: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<never> {
    return failWith(error, {
      argv: this.argv,
      commandLine: this.commandLine(),
      fieldFlags: (this.ctor as typeof BaseCommand).fieldFlags,
      flagOf: (option) => this.flagOf(option),
      io: this.io,
      now: this.deps.now,
      output: this.output,
    })
  }
}

export abstract class ApiCommand<T extends typeof Command> extends BaseCommand<T> {
  static baseFlags = apiFlags
  private context?: Context
  /** Whether the command creates the profile it names (`auth login`); elsewhere a profile named must exist. */
  static createsProfile = false
  /** Where its changes to the account come from, for the history; none where a run is recorded as one entry (an import). */
  static historySurface: Surface | undefined = 'cli'

  /** The v2 command to suggest in the v1 deprecation warning; by default this same command in v2. */
  protected v2Hint(): string {
    return this.commandLine()
  }

  public async init(): Promise<void> {
    await super.init()
    // How amounts read on a terminal: the profile's money_unit, taken once here and carried by the IOStreams (pipes and
    // --json show raw values; a config file that cannot be read is reported by the command's own read).
    if (this.io.tableOutput && !this.io.json) this.io.values.moneyUnit = await this.ctx.moneyUnit()
    // Under --json, every record that carries money says the unit (asked only when one is written).
    this.output.moneyUnit = () => this.moneyUnit()
  }

  /** The profile's money unit (`minor`, `major`), or `unknown`: what --json documents that carry money say beside them. */
  protected async moneyUnit(): Promise<MoneyUnit | 'unknown'> {
    return this.io.values.moneyUnit ?? (await this.ctx.moneyUnit()) ?? 'unknown'
  }

  /** Runs on with this environment instead of the process's (`mcp --sandbox`): the context is made again from it. */
  protected useEnvironment(env: NodeJS.ProcessEnv): void {
    this.deps = {...this.deps, env}
    this.context = undefined
  }

  protected get ctx(): Context {
    this.context ??= new Context({
      env: this.deps.env,
      flags: this.flags as never,
      now: this.deps.now,
      io: this.io,
      createsProfile: (this.ctor as typeof ApiCommand).createsProfile,
      userAgent: `commerce-cli/${this.config.version} node/${process.version}`,
      v2Hint: this.v2Hint(),
      history: commandSource((this.ctor as typeof ApiCommand).historySurface, this.commandLine(), this.argv),
    })
    return this.context
  }

  protected async finally(error: Error | undefined): Promise<void> {
    await this.context?.close()
    return super.finally(error)
  }
}
