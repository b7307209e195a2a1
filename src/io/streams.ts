/**
 * IOStreams: every terminal rule in one place (after the GitHub CLI's iostreams).
 *
 * - stdout carries results only; status, warnings, spinners and progress go to stderr.
 * - Colour: on when stdout is a TTY (not TERM=dumb), or FORCE_COLOR is set; NO_COLOR (non-empty) always wins. Text for stderr
 *   loses its colour when stderr is not a TTY (`2> file`), unless FORCE_COLOR is set.
 * - Prompts, spinners and progress bars: only when stdin and stderr are TTYs and CI is not set.
 */
import {Chalk, type ChalkInstance} from 'chalk'

import {assertCarried, project} from './fields.js'
import type {JqFilter} from './jq.js'
import {sanitize} from './sanitize.js'
import {wrapWords} from './wrap.js'
import {isObject} from '../domain/json.js'
import type {ValueOptions} from './values.js'

export interface IOStreamsOptions {
  /** The stream, or what gives it when first used (standard input is made by Node on its first read). */
  stdin?: NodeJS.ReadStream | (() => NodeJS.ReadStream)
  stdout?: NodeJS.WriteStream
  stderr?: NodeJS.WriteStream
  env?: NodeJS.ProcessEnv
  /** --json, as decided once by BaseCommand (jsonRequested in output.ts). */
  json?: boolean
  /** --json came from --jq alone (jsonMode in output.ts). */
  jqOnly?: boolean
}

function envFlag(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false'
}

/** Colour and style escape sequences (what chalk writes). */
const ANSI_SGR = /\u001B\[[\d;]*m/g

const guarded = new WeakSet<NodeJS.WritableStream>()

/**
 * `commerce customers list | head -1`: when the reader closes the pipe, stop quietly (exit 0) instead of
 * crashing with EPIPE.
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  if (guarded.has(stream)) return
  guarded.add(stream)
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0)
    throw error
  })
}

/** A live line on stderr (spinner, progress bar): cleared before other output, stopped when its work ends. */
export interface LiveStatus {
  clear(): void
  /** Stops redrawing and erases the line; when absent, `clear` is enough. */
  stop?(): void
}

/** A stream's width in cells (IOStreams.width): the terminal's columns, else 80. */
export function terminalWidth(stream: NodeJS.WriteStream): number {
  return stream.columns || 80
}

export class IOStreams {
  readonly stdout: NodeJS.WriteStream
  readonly stderr: NodeJS.WriteStream
  readonly env: NodeJS.ProcessEnv
  readonly isStdoutTTY: boolean
  readonly isStderrTTY: boolean
  /** The CI environment variable is set: never prompt, never animate. */
  readonly ci: boolean
  readonly color: boolean
  /** Colour in what goes to stderr: `color`, and stderr a TTY (or FORCE_COLOR). */
  readonly errColor: boolean
  readonly chalk: ChalkInstance
  /** --json: stdout carries exactly one JSON document. Read-only: decided once, before parsing. */
  readonly json: boolean
  /**
   * Errors as the JSON error document: with --json; with --jq alone only off a terminal (a script may parse it,
   * a person reads text, as gh prints a jq syntax error).
   */
  readonly jsonErrors: boolean
  /** A result has begun streaming to stdout: an error can no longer be the only document there. */
  resultStarted = false
  /** --no-pager: a long table or report is written straight to the terminal (io/pager.ts). */
  pagerOff = false
  /** --fields: the fields each record keeps, in that order (src/io/fields.ts), for the human renderers. */
  fields?: string[]
  /**
   * The fields the CLI knows of the resource --fields selects from (the flag's options, base/flags.ts, copied into a
   * plain array: the flag's own list accepts any name, for oclif's sake); a name outside them must be carried by a record.
   */
  knownFields: readonly string[] = []
  /** The known fields a list's records lack (an order's items): asked of a list, refused saying so. */
  wholeRecordFields: readonly string[] = []
  /** How values read on a terminal (values.ts): the profile's money unit, set once by ApiCommand. */
  values: ValueOptions = {}
  private readonly said = new Set<string>()
  private activeStatus?: LiveStatus
  private readonly stdinSource: NodeJS.ReadStream | (() => NodeJS.ReadStream)
  private stdinStream?: NodeJS.ReadStream

  constructor(options: IOStreamsOptions = {}) {
    this.stdinSource = options.stdin ?? (() => process.stdin)
    this.stdout = options.stdout ?? process.stdout
    this.stderr = options.stderr ?? process.stderr
    this.env = options.env ?? process.env
    this.json = options.json ?? false
    this.isStdoutTTY = Boolean(this.stdout.isTTY)
    this.isStderrTTY = Boolean(this.stderr.isTTY)
    this.jsonErrors = this.json && !(options.jqOnly && this.isStdoutTTY)
    this.ci = envFlag(this.env.CI)
    const noColor = this.env.NO_COLOR !== undefined && this.env.NO_COLOR !== ''
    const forceColor = envFlag(this.env.FORCE_COLOR)
    // TERM=dumb: a terminal that draws no escapes (Emacs' shell, some CI logs); colour only when forced.
    this.color = !noColor && (forceColor || (this.isStdoutTTY && this.env.TERM !== 'dumb'))
    this.errColor = this.color && (forceColor || this.isStderrTTY)
    this.chalk = new Chalk({level: this.color ? (forceColor && !this.isStdoutTTY ? 1 : 2) : 0})
    quietOnClosedPipe(this.stdout)
  }

  /** Standard input, made when first used: a command that reads no input never has Node make its stream. */
  get stdin(): NodeJS.ReadStream {
    return (this.stdinStream ??= typeof this.stdinSource === 'function' ? this.stdinSource() : this.stdinSource)
  }

  get isStdinTTY(): boolean {
    return Boolean(this.stdin.isTTY)
  }

  /** Whether the CLI may ask the user something (stdin is looked at last: without a terminal on stderr it is not needed). */
  canPrompt(): boolean {
    return this.isStderrTTY && !this.ci && this.isStdinTTY
  }

  /** Whether spinners and progress bars may be drawn on stderr: the same rule as prompts (the contract's). */
  canAnimate(): boolean {
    return this.canPrompt()
  }

  /**
   * The width in cells that a line written to `stream` may take: the terminal's, or 80 when it says none (a pipe,
   * a terminal that reports 0). The one place this fallback is decided.
   */
  width(stream: 'stderr' | 'stdout' = 'stdout'): number {
    return terminalWidth(this[stream])
  }

  /** Human output is a table (TTY) or tab-separated rows (pipe). */
  get tableOutput(): boolean {
    return this.isStdoutTTY
  }

  /** Writes result text to stdout. */
  out(text: string): void {
    this.clearStatus()
    this.stdout.write(text.endsWith('\n') ? text : text + '\n')
  }

  /**
   * Result text written for a person (a report, a sentence): on a terminal, wrapped at spaces to its width, a
   * continuation indented by `hang` cells; on a pipe, as it is (a script reads whole lines).
   */
  outWrapped(text: string, hang = 0): void {
    this.out(this.wrapped(text, hang))
  }

  /** `text` wrapped at words to the terminal's width (continuations indented by `hang`); unchanged off a terminal. */
  wrapped(text: string, hang = 0): string {
    return this.isStdoutTTY ? wrapWords(text, this.width(), hang) : text
  }

  /** A record, or each record of an array, with only --fields; other values unchanged. */
  projected(value: unknown): unknown {
    if (!this.fields) return value
    assertCarried(
      this.fields,
      this.knownFields,
      (Array.isArray(value) ? value : [value]).filter((v) => isObject(v)),
      {warn: (text) => this.warn(text), whole: this.wholeRecordFields},
    )
    if (Array.isArray(value)) return (value as unknown[]).map((v) => (isObject(v) ? project(v, this.fields!) : v))
    return isObject(value) ? project(value, this.fields) : value
  }

  /** The --jq results for one JSON document (its text), written as jq prints them; raw strings made safe on a terminal. */
  async outJq(jq: JqFilter, json: string): Promise<void> {
    await jq.run(json, (text) => {
      this.clearStatus()
      this.stdout.write(this.isStdoutTTY ? sanitize(text, 'terminal') : text)
    })
  }

  /** Status and information for people: stderr. */
  info(text: string): void {
    this.clearStatus()
    let plain = this.errColor ? text : text.replace(ANSI_SGR, '')
    // On a terminal, wrapped at spaces to its width: the terminal itself would cut words, flags and commands.
    if (this.isStderrTTY) plain = wrapWords(plain, this.width('stderr'))
    this.stderr.write(plain.endsWith('\n') ? plain : plain + '\n')
  }

  warn(text: string): void {
    this.info(this.chalk.yellow('Warning: ') + text)
  }

  /** A warning printed at most once per process for the same key. */
  warnOnce(key: string, text: string): void {
    if (this.said.has(key)) return
    this.said.add(key)
    this.warn(text)
  }

  /** `--dry-run`: nothing that changes anything is sent, and no question is asked (its checks run). */
  dryRun = false

  /** Said on stderr if Ctrl-C ends the command now (e.g. the key that replays a request in flight). */
  interruptNote?: string

  /** Ctrl-C: stop and erase a live status line, end the line the terminal echoed ^C on, and say the note. */
  interrupted(): void {
    this.stopStatus()
    if (this.isStderrTTY) this.stderr.write('\n')
    if (this.interruptNote) this.stderr.write(`${this.interruptNote}\n`)
  }

  /**
   * Stops the live status line for good (a progress bar that would otherwise redraw over what follows) and
   * erases it: before a message that ends the work it showed, such as the one Ctrl-C prints.
   */
  stopStatus(): void {
    const status = this.activeStatus
    if (!status) return
    if (status.stop) status.stop()
    else status.clear()
    if (this.activeStatus === status) this.activeStatus = undefined
  }

  /** Registers a live status line (spinner/progress) to be cleared before any other output. */
  setStatus(status: LiveStatus | undefined): void {
    this.activeStatus = status
  }

  /**
   * A live line asks for stderr's last line before drawing: granted when free or already its own. Two at once (a
   * list's progress and a 429 wait inside it) take turns instead of drawing over each other.
   */
  claimStatus(status: {clear(): void}): boolean {
    if (this.activeStatus !== undefined && this.activeStatus !== status) return false
    this.activeStatus = status
    return true
  }

  /** Gives the line back, if `status` holds it. */
  releaseStatus(status: {clear(): void}): void {
    if (this.activeStatus === status) this.activeStatus = undefined
  }

  private clearStatus(): void {
    this.activeStatus?.clear()
  }
}
