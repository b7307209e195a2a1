/**
 * Pagination as async iterators (after Octokit's paginate iterator): `pages` yields page envelopes, `records`
 * flattens them. Used by list commands (`--page`, `--all`, `--limit`) and `api --paginate`. The page size is
 * always sent, so nothing leans on the service's default, and a service that answers with a different
 * per_page, or whose total moves while paging, still ends cleanly.
 */
import type {PageMeta} from '../domain/schema.js'
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

export interface FetchedPage<T> {
  data: T[]
  meta?: PageMeta
}

export const DEFAULT_PER_PAGE = 30

function readPage<T>(body: unknown): FetchedPage<T> {
  if (Array.isArray(body)) return {data: body as T[]}
  if (typeof body === 'object' && body !== null && Array.isArray((body as {data?: unknown}).data)) {
    const {data, meta} = body as {data: T[]; meta?: Partial<PageMeta>}
    const ok = meta && typeof meta.total === 'number'
    return {data, meta: ok ? {page: Number(meta.page ?? 1), per_page: Number(meta.per_page ?? data.length), total: meta.total!} : undefined}
  }
  throw new CliError('Unexpected response: expected a page of records ({data: [...], meta: {...}}).')
}

/** Yields pages starting at `page`; one page unless `all` or `limit` asks for more. */
export async function* pages<T>(client: ApiClient, request: ApiRequest, options: PageOptions = {}): AsyncGenerator<FetchedPage<T>> {
  const perPage = options.perPage ?? DEFAULT_PER_PAGE
  const follow = Boolean(options.all || options.limit !== undefined)
  let page = options.page ?? 1
  let seen = 0
  for (;;) {
    const res = await client.request({...request, query: {...request.query, page, per_page: perPage}})
    const current = readPage<T>(res.body)
    yield current
    seen += current.data.length
    if (!follow || current.data.length === 0) return
    if (options.limit !== undefined && seen >= options.limit) return
    const total = current.meta?.total
    const startIndex = ((options.page ?? 1) - 1) * perPage
    if (total !== undefined && startIndex + seen >= total) return
    if (total === undefined && current.data.length < perPage) return
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
