/**
 * What the outcome of one exchange means, apart from the client that made it: the deadline error, the words for
 * a failed connection, how the policy classifies a failure, and the body as parsed from its text.
 */
import {CliError} from '../errors.js'
import type {Attempt} from './policy.js'
import {nestsDeeper} from '../domain/json.js'

/** The whole exchange passed COMMERCE_HTTP_TIMEOUT: never retried (that would multiply the wait the user set). */
export class DeadlineExceeded extends Error {
  readonly code = 'COMMERCE_DEADLINE'
  constructor(readonly timeoutMs: number) {
    super(`no complete response within ${timeoutMs / 1000} s`)
  }
}

export function describeNetworkError(error: unknown): string {
  const code = errorCode(error)
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    ENOTFOUND: 'host not found',
    ETIMEDOUT: 'connection timed out',
    UND_ERR_BODY_TIMEOUT: 'timed out reading the response',
    UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
    UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the response',
    UND_ERR_SOCKET: 'the connection closed before the response was complete',
  }
  if (error instanceof DeadlineExceeded) return `timed out: ${error.message} (COMMERCE_HTTP_TIMEOUT)`
  return (code && known[code]) ?? (error as Error)?.message ?? String(error)
}

/** What an exchange that threw came to, for the policy; undefined for our own errors (final as they are). */
export function classifyFailure(error: unknown): Attempt | undefined {
  if (error instanceof CliError) return undefined
  if (error instanceof DeadlineExceeded) return {cause: 'deadline', kind: 'no-answer'}
  return {cause: errorCode(error) === 'ECONNREFUSED' ? 'refused' : 'other', kind: 'no-answer'}
}

export function errorCode(error: unknown): string | undefined {
  const e = error as NodeJS.ErrnoException & {cause?: NodeJS.ErrnoException}
  return e?.code ?? e?.cause?.code
}

/**
 * How deep an answer may nest. A record of the service nests a few levels; every reader after the parse (redaction,
 * rendering, --jq) may walk it recursively, and 5,000 levels (10 KB) overflowed the stack: an `internal` error.
 */
export const MAX_ANSWER_DEPTH = 64

/** The answer nests deeper than MAX_ANSWER_DEPTH: one the CLI cannot read (unexpected_response). */
export class TooDeepError extends Error {
  constructor() {
    super(`the answer nests deeper than ${MAX_ANSWER_DEPTH} levels`)
  }
}

export function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === '') return undefined
  if (contentType?.includes('json') || /^\s*[[{]/.test(text)) {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return text
    }
    if (nestsDeeper(value, MAX_ANSWER_DEPTH)) throw new TooDeepError()
    return value
  }
  return text
}
