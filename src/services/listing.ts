/**
 * A list operation as the commands consume it: records as an async iterable (streamed to the renderer) and,
 * once consumed, the position for the "Showing 1-30 of 250 (page 1 of 9)" line.
 */
import type {ApiClient, ApiRequest} from '../api/client.js'
import {type PageOptions, DEFAULT_PER_PAGE, type FetchedPage, records} from '../api/paginate.js'
import {type ApiVersion, LIMITS} from '../domain/schema.js'
import {UsageError} from '../errors.js'
import type {ListPosition} from '../domain/schema.js'
import {option, type OptionRef, phrase, type Text} from '../domain/phrase.js'

export interface Listing<T> {
  records: AsyncIterable<T>
  position: () => ListPosition | undefined
}

export function listing<T>(client: ApiClient, request: ApiRequest, options: PageOptions): Listing<T> {
  let first: FetchedPage<T> | undefined
  let shown = 0
  // --all: the largest page the service takes, as export and `api --paginate` do, so fewer requests; --limit N: pages
  // of up to N (`--limit 1` asks for one record, not 30); one page shown (--page) keeps the default size people read.
  const perPage =
    options.perPage ??
    (options.all ? LIMITS.perPage.max : options.limit !== undefined ? Math.min(LIMITS.perPage.max, options.limit) : DEFAULT_PER_PAGE)
  const startPage = options.page ?? 1
  async function* iterate() {
    for await (const record of records<T>(client, request, {...options, perPage}, (p) => (first ??= p))) {
      shown++
      yield record
    }
  }
  return {
    position() {
      if (!first) return undefined
      const following = Boolean(options.all || options.limit !== undefined)
      // The service's own page and page size when it says them: it may use another page size than the one asked.
      const page = first.meta?.page ?? startPage
      const size = first.meta?.per_page ?? perPage
      return {
        first: (page - 1) * size + 1,
        page: following ? undefined : page,
        perPage: following ? undefined : size,
        shown,
        total: first.meta?.total,
      }
    },
    records: iterate(),
  }
}

/** A v2-only option used with v1: exit 2 before any request. */
export function requireV2(version: ApiVersion, what: Text | OptionRef): void {
  if (version !== 'v2')
    throw new UsageError(phrase`${what} is only available in API v2, and the version in effect is ${version}.`, {
      hint: phrase`Drop ${option('apiVersion')} v1, or pass ${option('apiVersion')} v2 (a profile set to v1: \`commerce config unset api_version\`).`,
    })
}
