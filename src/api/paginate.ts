/**
 * Pagination as async iterators (after Octokit's paginate iterator): `pages` yields page envelopes, `records`
 * flattens them. Used by list commands (`--page`, `--all`, `--limit`) and `api --paginate`. The page size is
 * always sent, so nothing leans on the service's default, and a service that answers with a different
 * per_page, or whose total moves while paging, still ends cleanly.
 */
import type {FetchedPage, PageMeta} from '../domain/schema.js'
import {CliError} from '../errors.js'
import type {ApiClient, ApiRequest} from './client.js'

export interface PageOptions {
  /** First page to fetch (1-based). */
  page?: number
  perPage?: number
  /** Follow pages until meta.total is reached. */
  all?: boolean
  /** Stop after this many records (fetching as many pages as needed). */
  limit?: number
}

export type {FetchedPage} from '../domain/schema.js'

export const DEFAULT_PER_PAGE = 30

function positiveInt(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined
}

/**
 * The page size when the service does not say it: the one asked for, unless a first page came back shorter
 * although more records exist (the service then uses a smaller size: the page's length).
 */
function guessPerPage(length: number, asked: {page: number; perPage: number}, total: number): number {
  if (length === 0) return 0
  return asked.page === 1 && length < asked.perPage && length < total ? length : asked.perPage
}

/**
 * A page envelope. `meta` is kept only when it has a total; its `page` and `per_page` fall back to the page asked
 * for and `guessPerPage`. `at` is the 0-based position of the page's first record in the whole list:
 * from the service's own `page` and `per_page` when it says them (it may use another page size than the one
 * asked for), else from what was asked.
 */
function readPage<T>(body: unknown, asked: {page: number; perPage: number}): FetchedPage<T> & {at: number} {
  const at = (page: number, perPage: number) => (page - 1) * perPage
  if (Array.isArray(body)) return {at: at(asked.page, asked.perPage), data: body as T[]}
  if (typeof body === 'object' && body !== null && Array.isArray((body as {data?: unknown}).data)) {
    const {data, meta} = body as {data: T[]; meta?: Partial<Record<keyof PageMeta, unknown>>}
    const page = positiveInt(meta?.page)
    const perPage = positiveInt(meta?.per_page)
    const total = typeof meta?.total === 'number' ? meta.total : undefined
    return {
      at: at(page ?? asked.page, perPage ?? asked.perPage),
      data,
      meta: total === undefined ? undefined : {page: page ?? asked.page, per_page: perPage ?? guessPerPage(data.length, asked, total), total},
    }
  }
  throw new CliError('Unexpected response: expected a page of records ({data: [...], meta: {...}}).', {code: 'unexpected_response'})
}

/**
 * A page's records as 64 bits of two 32-bit string hashes (FNV-1a and a multiplicative one) and their length: kept
 * for every page read, so a fingerprint, not the page. (node:crypto would do, but an API command does not load it.)
 * Records are named by their ids where each has one (the same ids in the same order are the same page), else by their
 * whole text: a page's text is a large string made per page, which the ids spare.
 */
function pageFingerprint(data: unknown[]): string {
  const ids = data.map((r) => (typeof r === 'object' && r !== null && 'id' in r ? JSON.stringify(r.id) : undefined))
  const text = ids.every((id) => id !== undefined) ? ids.join(',') : JSON.stringify(data)
  let a = 0x811c9dc5
  let b = 5381
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = (Math.imul(b, 33) + c) | 0
  }
  return `${text.length}:${(a >>> 0).toString(36)}:${(b >>> 0).toString(36)}`
}

/** Yields pages starting at `page`; one page unless `all` or `limit` asks for more. */
export async function* pages<T>(client: ApiClient, request: ApiRequest, options: PageOptions = {}): AsyncGenerator<FetchedPage<T>> {
  const perPage = options.perPage ?? DEFAULT_PER_PAGE
  const follow = Boolean(options.all || options.limit !== undefined)
  let page = options.page ?? 1
  let seen = 0
  /** Position of the first record fetched, in the whole list (from the first page). */
  let start: number | undefined
  /** Without a total: the longest page so far. */
  let longest = 0
  /** Every page's fingerprint: a page met again (a `page` ignored, a list cycling) ends the list, whatever its total says. */
  const fingerprints = new Set<string>()
  for (;;) {
    const res = await client.request({...request, query: {...request.query, page, per_page: perPage}})
    const {at, ...current} = readPage<T>(res.body, {page, perPage})
    start ??= at
    const total = current.meta?.total
    if (follow && current.data.length > 0) {
      // Two pages of distinct records are never equal: a page met again means the service ignores `page` or cycles,
      // and following its total would never end.
      const fingerprint = pageFingerprint(current.data)
      if (fingerprints.has(fingerprint)) return
      fingerprints.add(fingerprint)
    }
    yield current
    seen += current.data.length
    if (!follow || current.data.length === 0) return
    if (options.limit !== undefined && seen >= options.limit) return
    if (total !== undefined && start + seen >= total) return
    if (total === undefined && current.data.length < longest) return
    longest = Math.max(longest, current.data.length)
    page++
  }
}

/** Flattened records, honouring `limit`. `onPage` sees each page (for the "Showing x-y of z" line). */
export async function* records<T>(
  client: ApiClient,
  request: ApiRequest,
  options: PageOptions = {},
  onPage?: (page: FetchedPage<T>) => void,
): AsyncGenerator<T> {
  let count = 0
  for await (const page of pages<T>(client, request, options)) {
    onPage?.(page)
    for (const record of page.data) {
      if (options.limit !== undefined && count >= options.limit) return
      count++
      yield record
    }
  }
}
