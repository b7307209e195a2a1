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
  throw new CliError('Unexpected response: expected a page of records ({data: [...], meta: {...}}).')
}

/** Yields pages starting at `page`; one page unless `all` or `limit` asks for more. */
export async function* pages<T>(client: ApiClient, request: ApiRequest, options: PageOptions = {}): AsyncGenerator<FetchedPage<T>> {
  const perPage = options.perPage ?? DEFAULT_PER_PAGE
  const follow = Boolean(options.all || options.limit !== undefined)
  let page = options.page ?? 1
  let seen = 0
  /** Position of the first record fetched, in the whole list (from the first page). */
  let start: number | undefined
  /** Without a total: the longest page so far, and the previous page's records (to spot a `page` ignored). */
  let longest = 0
  let previous: string | undefined
  for (;;) {
    const res = await client.request({...request, query: {...request.query, page, per_page: perPage}})
    const {at, ...current} = readPage<T>(res.body, {page, perPage})
    start ??= at
    const total = current.meta?.total
    if (follow && total === undefined) {
      // No total to go by: the service may use a smaller page size than the one asked for, so a short page
      // ends the list only after a longer one (or an empty one); a page equal to the previous one means the
      // service ignores `page`.
      const fingerprint = JSON.stringify(current.data)
      if (fingerprint === previous) return
      previous = fingerprint
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
