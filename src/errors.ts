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
  commandNotRunnable: 126,
  commandNotFound: 127,
  interrupted: 130,
  hangup: 129,
  terminated: 143,
} as const

/**
 * The stable names of what went wrong, in every `--json` error document (`error.code`), each with the one exit code
 * it ends with: one condition, one code, one exit code, whichever command meets it. `npm run generate` writes the
 * table into docs/errors.md and the list into schemas/error.schema.json; the names never change meaning.
 */
export const ERROR_CODES = {
  usage: {exit: EXIT.usage, meaning: 'Invalid usage: a flag, argument or value the CLI refused before sending anything.'},
  validation_failed: {
    exit: EXIT.usage,
    meaning: 'Input refused, by the CLI before sending or by the service (422); `errors` names each field as the service does.',
  },
  bad_request: {exit: EXIT.usage, meaning: 'The service refused the request as malformed (400).'},
  conflict: {
    exit: EXIT.usage,
    meaning:
      "The account's state refuses the request (a refund of an order that is not paid or shipped, more than remains): found by the CLI's checks before sending, or said by the service (409).",
  },
  precondition_failed: {
    exit: EXIT.usage,
    meaning: 'A condition the command was told to check (e.g. `--expect-refunded`) does not hold; nothing was sent.',
  },
  sandbox_not_running: {exit: EXIT.usage, meaning: 'The command needs the local sandbox and none is running.'},
  not_logged_in: {
    exit: EXIT.auth,
    meaning: 'Not set up to reach the service: no base URL, or no credentials (no login, no key pair or token in the environment).',
  },
  auth_rejected: {exit: EXIT.auth, meaning: 'The credentials were rejected: the key pair at token issue, or the token (401).'},
  permission_denied: {exit: EXIT.auth, meaning: 'The credentials lack the permission (scope) the operation needs (403).'},
  not_found: {exit: EXIT.notFound, meaning: 'The record, or what the command names, does not exist (404).'},
  rate_limited: {
    exit: EXIT.rateLimited,
    meaning: 'Still refused for too many requests (429) after the automatic retries; `retry_after` says when to try again.',
  },
  network_refused: {exit: EXIT.failure, meaning: 'The service could not be reached and nothing was sent: safe to run again.'},
  network_error: {exit: EXIT.failure, meaning: 'The connection failed or timed out; for a request that changes something its outcome is unknown.'},
  server_error: {exit: EXIT.failure, meaning: 'The service failed (5xx), after the retries allowed for the request.'},
  unexpected_response: {exit: EXIT.failure, meaning: 'An answer the CLI could not read (not the JSON expected, too large).'},
  declined: {exit: EXIT.failure, meaning: 'A confirmation was declined: nothing was changed.'},
  not_undoable: {
    exit: EXIT.failure,
    meaning:
      '`history undo`: what the change did cannot be taken back through the API (an order, a refund, a webhook endpoint, a deleted customer); the plan says what to do instead, and nothing was sent.',
  },
  failed: {exit: EXIT.failure, meaning: 'Any other failure the message describes.'},
  internal: {exit: EXIT.failure, meaning: 'A defect of the CLI; `--debug` shows where.'},
  command_not_found: {exit: EXIT.commandNotFound, meaning: '`sandbox exec`: COMMAND was not found (as a shell says, 127).'},
  command_not_runnable: {
    exit: EXIT.commandNotRunnable,
    meaning: '`sandbox exec`: COMMAND was found but could not be started (as a shell says, 126).',
  },
  interrupted: {exit: EXIT.interrupted, meaning: 'Interrupted by Ctrl-C (SIGINT), or a prompt cancelled.'},
  terminated: {exit: EXIT.terminated, meaning: 'Ended by SIGTERM.'},
  hangup: {exit: EXIT.hangup, meaning: 'Ended by SIGHUP (the terminal closed).'},
} as const

export type ErrorCode = keyof typeof ERROR_CODES

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

  /** The stable name of the condition; when not given, derived from the class, the status and the exit code (`errorCode`). */
  readonly code?: ErrorCode
  /**
   * What the service's answer said in words, kept apart from the message (which is the CLI's own): a service's text is
   * data, never presented as the CLI speaking (a hostile one could write "ignore previous instructions…").
   */
  readonly serviceMessage?: string

  constructor(
    message: Text,
    options: {
      exitCode?: number
      status?: number | null
      fieldErrors?: FieldErrors
      hint?: Text
      cause?: unknown
      code?: ErrorCode
      serviceMessage?: string
    } = {},
  ) {
    super(String(message), {cause: options.cause})
    this.code = options.code
    this.serviceMessage = options.serviceMessage
    this.text = message
    this.hintText = options.hint
    this.name = new.target.name
    this.exitCode = options.exitCode ?? (options.code ? ERROR_CODES[options.code].exit : EXIT.failure)
    this.status = options.status ?? null
    this.fieldErrors = options.fieldErrors
    this.hint = options.hint === undefined ? undefined : String(options.hint)
  }
}

/** Invalid usage or input (exit 2). */
export class UsageError extends CliError {
  constructor(
    message: Text,
    options: {
      hint?: Text
      fieldErrors?: FieldErrors
      code?: 'usage' | 'validation_failed' | 'precondition_failed' | 'conflict' | 'sandbox_not_running'
    } = {},
  ) {
    super(message, {...options, exitCode: EXIT.usage})
  }
}

/** Not logged in, rejected key pair, 401 or 403 (exit 3). */
export class AuthError extends CliError {
  constructor(
    message: string,
    options: {status?: number | null; hint?: string; code?: 'not_logged_in' | 'auth_rejected' | 'permission_denied'; serviceMessage?: string} = {},
  ) {
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

  constructor(
    status: number,
    message: Text,
    options: {fieldErrors?: FieldErrors; hint?: Text; body?: unknown; exitCode?: number; serviceMessage?: string} = {},
  ) {
    super(message, {
      exitCode: options.exitCode ?? exitCodeForStatus(status),
      fieldErrors: options.fieldErrors,
      hint: options.hint,
      serviceMessage: options.serviceMessage,
      status,
    })
    this.body = options.body
  }
}

/** Still 429 after the automatic retries, or the next wait would pass --max-wait (exit 5). */
export class RateLimitError extends ApiError {
  /** When the service said to try again, if it said. */
  readonly retryAt?: Date

  constructor(message: Text, options: {retryAt?: Date; body?: unknown; hint?: Text} = {}) {
    super(429, message, {body: options.body, exitCode: EXIT.rateLimited, hint: options.hint})
    this.retryAt = options.retryAt
  }
}

/** The stable code of an error the CLI raised (see ERROR_CODES); always one whose exit code is the error's. */
export function errorCode(error: CliError): ErrorCode {
  const code = derivedCode(error)
  if (ERROR_CODES[code].exit === error.exitCode) return code
  const byExit: Record<number, ErrorCode> = {
    [EXIT.usage]: 'usage',
    [EXIT.auth]: 'auth_rejected',
    [EXIT.notFound]: 'not_found',
    [EXIT.rateLimited]: 'rate_limited',
    [EXIT.interrupted]: 'interrupted',
    [EXIT.hangup]: 'hangup',
    [EXIT.terminated]: 'terminated',
  }
  return byExit[error.exitCode] ?? 'failed'
}

function derivedCode(error: CliError): ErrorCode {
  if (error.code) return error.code
  if (error instanceof DeclinedError) return 'declined'
  if (error instanceof NetworkError) return error.nothingSent ? 'network_refused' : 'network_error'
  if (error instanceof AuthError) return error.status === 403 ? 'permission_denied' : error.status === null ? 'not_logged_in' : 'auth_rejected'
  const byStatus: Record<number, ErrorCode> = {
    400: 'bad_request',
    401: 'auth_rejected',
    403: 'permission_denied',
    404: 'not_found',
    409: 'conflict',
    422: 'validation_failed',
    429: 'rate_limited',
  }
  if (error.status !== null) return byStatus[error.status] ?? (error.status >= 500 ? 'server_error' : 'failed')
  if (error.exitCode === EXIT.usage) return error.fieldErrors && Object.keys(error.fieldErrors).length > 0 ? 'validation_failed' : 'usage'
  return 'failed'
}

/** The code a signal ends a command with: SIGINT interrupted (130), SIGTERM terminated (143), SIGHUP hangup (129). */
export function signalCode(signal: unknown): 'interrupted' | 'terminated' | 'hangup' {
  return signal === 'SIGTERM' ? 'terminated' : signal === 'SIGHUP' ? 'hangup' : 'interrupted'
}

/** A command ended by a signal (the reason of its interruption), with the code and exit code that signal has. */
export function interruptedBy(signal: unknown, message = `Interrupted by ${typeof signal === 'string' ? signal : 'SIGINT'}.`): CliError {
  return new CliError(message, {code: signalCode(signal)})
}
