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
  constructor(readonly planned: PlannedRequest) {
    super(`Dry run: ${planned.method} ${planned.url} was not sent.`)
    this.name = 'DryRunStop'
  }
}

/** Whether a dry run may send this request: a read, or the token request (it changes nothing in the account). */
export function sendsInDryRun(req: ApiRequest): boolean {
  return req.method === 'GET' || (req.method === 'POST' && /\/auth\/tokens$/.test(req.path))
}
