/**
 * Every record of a list, in the service's order, fetching pages concurrently: page 1 first (its meta gives the
 * total and the page size the service really uses), then the remaining pages with at most `concurrency`
 * fetched ahead of the consumer, yielded strictly in page order. Memory holds at most `concurrency` pages.
 *
 * Tolerant of a moving list: the latest `meta.total` seen decides the last page, a page that comes back empty
 * ends the export, and without a total it reads until an empty or short page. Stops early at `limit`, aborting
 * fetches no longer needed (their `signal`).
 */
import type {FetchedPage} from '../domain/schema.js'

export type {FetchedPage}

export interface FetchAllPagesOptions<T> {
  fetchPage(page: number, perPage: number, signal: AbortSignal): Promise<FetchedPage<T>>
  perPage: number
  /** Pages fetched ahead at once; default 4. */
  concurrency?: number
  limit?: number
  /** Called with each new total the service reports (for a progress bar). */
  onTotal?: (total: number) => void
}

export async function* fetchAllPages<T>(options: FetchAllPagesOptions<T>): AsyncGenerator<T> {
  for await (const page of fetchPagesInOrder(options)) yield* page
}

/**
 * The same, a page (its records, cut at `limit`) at a time: a consumer that handles a page in one go (export)
 * saves an asynchronous step per record, a tenth of an export's time.
 */
export async function* fetchPagesInOrder<T>(options: FetchAllPagesOptions<T>): AsyncGenerator<T[]> {
  const concurrency = Math.max(1, options.concurrency ?? 4)
  const want = options.limit ?? Number.POSITIVE_INFINITY
  const controller = new AbortController()
  let yielded = 0
  let total: number | undefined

  const noteTotal = (meta: FetchedPage<T>['meta']) => {
    const t = meta?.total
    if (typeof t === 'number' && Number.isInteger(t) && t >= 0 && t !== total) {
      total = t
      options.onTotal?.(t)
    }
  }

  try {
    if (want <= 0) return
    const first = await options.fetchPage(1, options.perPage, controller.signal)
    noteTotal(first.meta)
    const metaSize = first.meta?.per_page
    const size = typeof metaSize === 'number' && Number.isInteger(metaSize) && metaSize > 0 ? metaSize : first.data.length
    const firstTaken = first.data.slice(0, Math.max(0, want - yielded))
    yielded += firstTaken.length
    if (firstTaken.length > 0) yield firstTaken
    if (size === 0 || yielded >= want || (total === undefined && first.data.length < size)) return

    const lastPage = () => Math.ceil(Math.min(total ?? Number.POSITIVE_INFINITY, want) / size)
    const queue: Array<Promise<FetchedPage<T>>> = []
    let next = 2
    const launch = () => {
      while (queue.length < concurrency && next <= lastPage()) {
        const page = options.fetchPage(next++, options.perPage, controller.signal)
        page.catch(() => {}) // awaited in turn; an abandoned one must not be an unhandled rejection
        queue.push(page)
      }
    }
    launch()
    while (queue.length > 0) {
      const page = await queue.shift()!
      noteTotal(page.meta)
      if (page.data.length === 0) return
      const taken = page.data.slice(0, Math.max(0, want - yielded))
      yielded += taken.length
      if (taken.length > 0) yield taken
      if (yielded >= want) return
      if (total === undefined && page.data.length < size) return
      launch()
    }
  } finally {
    controller.abort()
  }
}
