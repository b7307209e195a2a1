/**
 * Typed errors, each carrying its exit code (cli-contract.md, "Exit codes"). Every layer throws these;
 * BaseCommand.catch renders them and exits with `exitCode`, so the table holds in exactly one place.
 */
import type {Text} from './domain/phrase.js'
import type {FieldErrors} from './domain/validate.js'

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  rateLimited: 5,
  interrupted: 130,
} as const

export class CliError extends Error {
  readonly exitCode: number
  /** HTTP status when the error came from a response, else null. */
  readonly status: number | null
  readonly fieldErrors?: FieldErrors
  /** A line telling the user what to do next. */
  readonly hint?: string
  /** The message and the hint as thrown: a Phrase names options, which the command layer spells as its flags. */
  readonly text: Text
  readonly hintText?: Text

  constructor(message: Text, options: {exitCode?: number; status?: number | null; fieldErrors?: FieldErrors; hint?: Text; cause?: unknown} = {}) {
    super(String(message), {cause: options.cause})
    this.text = message
    this.hintText = options.hint
    this.name = new.target.name
    this.exitCode = options.exitCode ?? EXIT.failure
    this.status = options.status ?? null
    this.fieldErrors = options.fieldErrors
    this.hint = options.hint === undefined ? undefined : String(options.hint)
  }
}

/** Invalid usage or input (exit 2). */
export class UsageError extends CliError {
  constructor(message: Text, options: {hint?: Text; fieldErrors?: FieldErrors} = {}) {
    super(message, {...options, exitCode: EXIT.usage})
  }
}

/** Not logged in, rejected key pair, 401 or 403 (exit 3). */
export class AuthError extends CliError {
  constructor(message: string, options: {status?: number | null; hint?: string} = {}) {
    super(message, {...options, exitCode: EXIT.auth})
  }
}

/** A declined confirmation (exit 1). */
export class DeclinedError extends CliError {
  constructor(message = 'Cancelled: nothing was changed.') {
    super(message, {exitCode: EXIT.failure})
  }
}

/** The request never got an HTTP answer (exit 1). */
export class NetworkError extends CliError {
  /** No attempt of the request reached the service (every connection was refused): nothing can have taken effect. */
  readonly nothingSent: boolean

  constructor(message: string, options: {hint?: string; cause?: unknown; nothingSent?: boolean} = {}) {
    const {nothingSent, ...rest} = options
    super(message, {...rest, exitCode: EXIT.failure})
    this.nothingSent = nothingSent === true
  }
}

/**
 * `--jq` with `halt_error(N)`: the filter asked to stop with exit code N and its text on stderr as it is (jq's own
 * behaviour), not an error of the CLI's: no error document, no "Error:" line.
 */
export class JqHaltError extends CliError {
  constructor(
    readonly stderrText: string,
    exitCode: number,
  ) {
    super(`--jq: halt_error(${exitCode})`, {exitCode})
  }
}

/** Maps an HTTP status to the contract's exit code. */
export function exitCodeForStatus(status: number): number {
  if (status === 400 || status === 409 || status === 422) return EXIT.usage
  if (status === 401 || status === 403) return EXIT.auth
  if (status === 404) return EXIT.notFound
  if (status === 429) return EXIT.rateLimited
  return EXIT.failure
}

/** An HTTP error response, whatever its body looked like. */
export class ApiError extends CliError {
  /** The response body as received (parsed JSON, text, or undefined), for `commerce api`. */
  readonly body: unknown

  constructor(status: number, message: string, options: {fieldErrors?: FieldErrors; hint?: string; body?: unknown; exitCode?: number} = {}) {
    super(message, {
      exitCode: options.exitCode ?? exitCodeForStatus(status),
      fieldErrors: options.fieldErrors,
      hint: options.hint,
      status,
    })
    this.body = options.body
  }
}

/** Still 429 after the automatic retries, or the next wait would pass --max-wait (exit 5). */
export class RateLimitError extends ApiError {
  /** When the service said to try again, if it said. */
  readonly retryAt?: Date

  constructor(message: string, options: {retryAt?: Date; body?: unknown; hint?: string} = {}) {
    super(429, message, {body: options.body, exitCode: EXIT.rateLimited, hint: options.hint})
    this.retryAt = options.retryAt
  }
}
