/**
 * `--dry-run`: the client sends reads (the checks a command makes first: the order to refund, the customer to
 * delete) and the token request, and stops at the first request that would change something, with that request.
 * BaseCommand.catch prints it as the command's result (exit 0): the one place every command's dry run goes through.
 */
import type {ApiRequest} from './request.js'

/** What a dry run would have sent: no Authorization, the Idempotency-Key where there is one. */
export interface PlannedRequest {
  method: string
  url: string
  headers: Record<string, string>
  body: unknown
}

export class DryRunStop extends Error {
  /** What the checks that ran before the stop found (the order to refund: its status, total, what remains). */
  readonly checks: Record<string, unknown> = {}

  constructor(readonly planned: PlannedRequest) {
    super(`Dry run: ${planned.method} ${planned.url} was not sent.`)
    this.name = 'DryRunStop'
  }
}

/**
 * The one document of a dry run, on every surface (`--dry-run --json`, MCP's `dry_run`): nothing was sent, what would
 * have been (null when nothing would), and what the checks that ran found.
 */
export interface DryRunDocument {
  dry_run: true
  sent: false
  request: PlannedRequest | null
  checks: Record<string, unknown>
}

export function dryRunDocument(stop: DryRunStop | null): DryRunDocument {
  return {checks: stop?.checks ?? {}, dry_run: true, request: stop?.planned ?? null, sent: false}
}

/** Runs `send`; when a dry run stops at it, the stop carries `checks` (what was checked first) to the document. */
export async function checked<T>(checks: Record<string, unknown>, send: () => Promise<T>): Promise<T> {
  try {
    return await send()
  } catch (error) {
    if (error instanceof DryRunStop) Object.assign(error.checks, checks)
    throw error
  }
}

/** Whether a dry run may send this request: a read, or the token request (it changes nothing in the account). */
export function sendsInDryRun(req: ApiRequest): boolean {
  return req.method === 'GET' || (req.method === 'POST' && /\/auth\/tokens$/.test(req.path))
}
