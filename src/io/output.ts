/**
 * Output: the one path from a command's result to stdout.
 *
 * - `--json` is decided once, before parsing (`jsonRequested`, so that a parse error is a JSON document too), and
 *   kept read-only in IOStreams; commands never test it: they call `result(value, human)`, `list(...)` or
 *   `record(...)`, which print the JSON document with --json and the human rendering otherwise.
 * - Every JSON document passes through `document()`: the one hook point where a filter (--fields, --jq) applies
 *   (`setFilter`). Lists stream as an array while records arrive, unless a filter needs the whole document.
 * - `error()` writes the contract's error document (`{"error": {...}}`) or the human error lines: used by
 *   BaseCommand.catch and by the command_not_found hook.
 */
import {splitArgv} from '../domain/argv.js'
import {ERROR_CODES, type ErrorCode} from '../errors.js'
import {writeJsonArray} from './json-array.js'
import type {ListRenderOptions} from './render.js'

/** The renderer (and the width measures it loads) only for human output: --json on a pipe never needs it. */
const renderer = () => import('./render.js')
import {sanitize} from './sanitize.js'
import {wrapWords} from './wrap.js'
import type {IOStreams} from './streams.js'
import {carriesMoney, withMoneyUnit} from '../domain/schema.js'

type Row = Record<string, unknown>

/** Whether `--json` was given: before a `--` that ends the flags. The one place the argv is read for it. */
export function jsonRequested(argv: readonly string[]): boolean {
  return jsonMode(argv).json
}

/** How --json was asked for: `jqOnly` when by --jq alone (an error on a terminal then reads as text, not JSON). */
export function jsonMode(argv: readonly string[]): {json: boolean; jqOnly: boolean} {
  const {before} = splitArgv(argv)
  const asked = before.includes('--json')
  // --jq implies --json (a parse error is then the JSON error document too).
  const json = asked || before.some((a) => a === '--jq' || a.startsWith('--jq='))
  return {jqOnly: json && !asked, json}
}

/** The contract's error document (`{"error": ErrorBody}`), and what the human rendering shows. */
/** The error document's body (schemas/error.schema.json): every key always present. */
export interface ErrorBody {
  /** A stable name (src/errors.ts ERROR_CODES). */
  code: string
  message: string
  /** What the service's answer said in words, kept apart from `message` (the CLI's own); null when it said none. */
  service_message: string | null
  exit_code: number
  /** The HTTP status when the error came from a response. */
  status: number | null
  hint: string | null
  /** Seconds until the service said to try again (rate limited), when it said. */
  retry_after: number | null
  /** Field errors (field -> messages), keyed as the service names the fields; {} when none. */
  errors: Record<string, string[]>
}

export interface ErrorRendering extends ErrorBody {
  /** Field -> the flag that sets it, to name the flag beside a field error. */
  fieldFlags?: Record<string, string>
  /** --debug: the stack. */
  stack?: string
}

/** A failure the CLI found itself, by its code: the code's exit code, no status, no field errors. */
export function plainError(code: ErrorCode, message: string, hint?: string | null): ErrorRendering {
  return {code, errors: {}, exit_code: ERROR_CODES[code].exit, hint: hint ?? null, message, retry_after: null, service_message: null, status: null}
}

/**
 * Applied to every JSON document before it is written (--fields, --jq). Returning undefined prints nothing; a
 * filter that prints on its own (--jq) returns a promise of undefined.
 */
export type JsonFilter = (document: unknown) => unknown

export class Output {
  private filter?: JsonFilter
  /** The unit of the service's amounts, asked once when a record that carries money is written as JSON. */
  moneyUnit?: () => Promise<string>
  private unit?: Promise<string>

  constructor(readonly io: IOStreams) {}

  /** A record as JSON writes it: one that carries money says its unit beside it (`money_unit`), as the service's own fields. */
  private async labelled(record: Row): Promise<Row> {
    if (!this.moneyUnit || !carriesMoney(record)) return record
    this.unit ??= this.moneyUnit()
    return withMoneyUnit(record, await this.unit)
  }

  /** --json: stdout carries exactly one JSON document (read-only; decided by BaseCommand). */
  get json(): boolean {
    return this.io.json
  }

  /** The hook point for --fields/--jq: every JSON document this Output writes goes through `filter`. */
  setFilter(filter: JsonFilter | undefined): void {
    this.filter = filter
  }

  /**
   * The command's result: `value` as the JSON document with --json, otherwise `human()` (which may print
   * nothing, or print to stderr: a confirmation line for an action whose result is not data). A `value` of
   * undefined prints nothing with --json.
   */
  async result(value: unknown, human?: () => unknown): Promise<void> {
    if (this.json) return this.document(value)
    await human?.()
  }

  /** Result text for a person (a report): through the pager when taller than the terminal (io/pager.ts). */
  async paged(text: string): Promise<void> {
    const {outPaged} = await import('./pager.js')
    await outPaged(this.io, text)
  }

  /** A list of records: a JSON array with --json (streamed as records arrive), else a table or TSV rows. */
  async list(records: AsyncIterable<Row> | Iterable<Row>, options: ListRenderOptions): Promise<number> {
    if (!this.json) return (await renderer()).renderListHuman(this.io, records, options)
    if (this.filter) {
      const all: Row[] = []
      for await (const record of records) all.push(await this.labelled(record))
      await this.document(all)
      return all.length
    }
    let count = 0
    const labelled = (record: Row) => this.labelled(record)
    await writeJsonArray(
      this.io,
      (async function* () {
        for await (const record of records) {
          count++
          yield JSON.stringify(await labelled(record))
        }
      })(),
      '\n',
    )
    return count
  }

  /** One resource: the object with --json, else a field/value table (TTY) or `field<TAB>value` lines (pipe). */
  async record(record: Row, fields?: readonly string[]): Promise<void> {
    // A record that carries money says its unit in JSON (a person's view shows amounts in it already).
    if (this.json) return this.document(await this.labelled(record))
    await (await renderer()).renderRecordHuman(this.io, record, fields)
  }

  /**
   * A JSON array of any values whatever --json says (`commerce api --paginate`): indented on a terminal, and
   * streamed as values arrive unless a filter needs the whole document.
   */
  async array(values: AsyncIterable<unknown>): Promise<void> {
    if (this.filter) {
      const all: unknown[] = []
      for await (const value of values) all.push(value)
      return this.document(all)
    }
    const pretty = this.io.isStdoutTTY
    const texts = (async function* () {
      for await (const value of values) yield pretty ? JSON.stringify(value, null, 2).replaceAll('\n', '\n  ') : JSON.stringify(value)
    })()
    await writeJsonArray(this.io, texts, pretty ? '\n' : '', pretty ? '  ' : '')
  }

  /** Writes one JSON document to stdout (after the filter): indented on a terminal, one line on a pipe. */
  async document(value: unknown): Promise<void> {
    const filtered = this.filter ? await this.filter(value) : value
    if (filtered === undefined) return
    this.io.out(JSON.stringify(filtered, null, this.io.isStdoutTTY ? 2 : undefined))
  }

  /**
   * One item of a stream of results (`webhooks listen`): with --json one JSON document on one line, otherwise
   * `human()` (or nothing).
   */
  line(value: unknown, human?: () => void): void {
    if (!this.json) return human?.()
    const filtered = this.filter ? this.filter(value) : value
    if (filtered === undefined) return
    this.io.out(JSON.stringify(filtered))
  }

  /** A confirmation for people (`✓ Created customer 5.`), on stderr, and only without --json. */
  success(text: string): void {
    if (!this.json) this.io.info(this.io.chalk.green('✓ ') + text)
  }

  /** A note for people on stderr, only without --json (with it, the document says it all). */
  note(text: string): void {
    if (!this.json) this.io.info(text)
  }

  /**
   * An error: the error document on stdout with --json (unless a result has begun streaming there: then, as
   * without --json, the error lines go to stderr), the hint on stderr either way.
   */
  error(error: ErrorRendering): void {
    const {io} = this
    if (io.jsonErrors && !io.resultStarted) {
      const {code, errors, exit_code, hint, message, retry_after, service_message, status} = error
      // In the documented order (docs/errors.md), for a person reading it too.
      const body: ErrorBody = {code, message, service_message, exit_code, status, hint, retry_after, errors}
      io.out(JSON.stringify({error: body}))
      // Said on stderr as well, for a person reading a job's log (at the width of a terminal, whatever it is).
      io.info(wrapWords(sanitize(message, 'terminal'), io.width('stderr')))
      if (hint) io.info(hint)
      return
    }
    // A person's own act (a question answered no, Ctrl-C) is said plainly, as gh does, not as an error of ours.
    const own = error.code === 'declined' || error.code === 'interrupted'
    const lines = [(own ? '' : io.chalk.red('Error: ')) + sanitize(error.message, 'terminal')]
    if (saysMore(error)) lines.push(`  The service said: ${sanitize(error.service_message!, 'terminal')}`)
    const flags = error.fieldFlags ?? {}
    for (const [field, messages] of Object.entries(error.errors)) {
      const flag = flags[field] ?? flags[field.replace(/\.\d+(\..*)?$/, '')]
      for (const m of messages) lines.push(`  ${sanitize(field, 'cell')}${flag ? ` (${flag})` : ''}: ${sanitize(m, 'terminal')}`)
    }
    if (error.hint) lines.push(io.chalk.dim(error.hint))
    if (error.stack) lines.push(io.chalk.dim(sanitize(error.stack, 'terminal')))
    io.info(lines.join('\n'))
  }
}

/**
 * Whether the service's words add to what a person reads anyway: not when they only name the status the message
 * names, or repeat a field error shown on its own line (`Validation failed: email has already been taken`).
 */
function saysMore(error: ErrorRendering): boolean {
  const said = error.service_message?.trim()
  if (!said) return false
  const problems = Object.values(error.errors).flat()
  const head = said.split(':', 1)[0].trim()
  const rest = said.slice(head.length + 1).trim()
  const known = (text: string) => text === '' || error.message.includes(text) || problems.some((p) => p.trim() !== '' && text.includes(p.trim()))
  return !(known(said) || (known(head) && known(rest)))
}

/** One resource through Output (for code that holds only an IOStreams). */
export async function renderRecord(io: IOStreams, record: Row, fields?: readonly string[]): Promise<void> {
  return new Output(io).record(record, fields)
}
