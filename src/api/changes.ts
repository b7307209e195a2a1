/**
 * What the client tells the history (ClientOptions.recordChange) of a request that changed the account: every
 * non-GET but a token's issue, once its outcome is known (its status, or `unknown` when it was sent and no answer
 * came; nothing when it never left). For an update, a delete or a refund, the record as it was just before: the last
 * read of it in this process when there was one (most commands read it for their checks), else read now.
 */
import type {HttpMethod} from '../domain/schema.js'
import {CliError} from '../errors.js'
import type {ApiRequest, SentChange} from './request.js'

/** `/api/v2/customers/42`, `/api/v2/orders/7`: a path that names one record (what a GET of it returns). */
const RECORD_PATH = /^\/api\/v\d+\/(customers|orders|products|webhooks)\/\d+$/
/** A refund names its order: the order as it was is what it changed. */
const REFUND_PATH = /^(\/api\/v\d+\/orders\/\d+)\/refunds$/
/** The most records remembered from reads (a bulk read does not grow it without bound). */
const READS_KEPT = 64

const INTERRUPTED = new Set(['interrupted', 'terminated', 'hangup'])

export class ChangeLog {
  private readonly reads = new Map<string, unknown>()

  constructor(
    private readonly record: (change: SentChange) => Promise<void>,
    /** Read a record before a change to it when no read of it is known (not for `commerce api`: it sends what it is told). */
    private readonly readFirst = true,
  ) {}

  /** Whether the request is one the history keeps. */
  static keeps(req: Pick<ApiRequest, 'method' | 'path'>, pathname: string): boolean {
    return req.method !== 'GET' && !(req.method === 'POST' && /\/auth\/tokens$/.test(pathname))
  }

  /** A record read (a 2xx GET of a record's path): kept as the `before` of a change to it. */
  read(pathname: string, body: unknown): void {
    if (!RECORD_PATH.test(pathname)) return
    this.reads.delete(pathname)
    this.reads.set(pathname, body)
    if (this.reads.size > READS_KEPT) this.reads.delete(this.reads.keys().next().value!)
  }

  /** The record as it was before a change to `pathname`: the last read of it, else `read()` (an update or a delete only). */
  async before(method: HttpMethod, pathname: string, read: (path: string) => Promise<unknown>): Promise<unknown> {
    const refund = REFUND_PATH.exec(pathname)
    if (refund) return this.reads.get(refund[1]) ?? null
    if ((method !== 'PATCH' && method !== 'DELETE') || !RECORD_PATH.test(pathname)) return null
    if (this.reads.has(pathname)) return this.reads.get(pathname)
    return this.readFirst ? read(pathname).catch(() => null) : null
  }

  async answered(change: Omit<SentChange, 'serviceMessage'>, refusal?: CliError): Promise<void> {
    if (change.status !== 'unknown' && change.status < 300) this.reads.delete(change.path)
    await this.record({...change, serviceMessage: refusal?.serviceMessage ?? null})
  }

  /** A failure with no answer: recorded as `unknown` when the request may have reached the service. */
  async failed(change: Omit<SentChange, 'serviceMessage' | 'status' | 'body'>, error: unknown, maybeSent: boolean): Promise<void> {
    const interrupted = error instanceof CliError && INTERRUPTED.has(error.code ?? '')
    if (!maybeSent && !interrupted) return
    await this.record({...change, body: null, serviceMessage: null, status: 'unknown'})
  }
}
