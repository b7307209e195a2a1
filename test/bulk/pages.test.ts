import {describe, expect, test} from 'vitest'

import {type FetchedPage, fetchAllPages} from '../../src/bulk/pages.js'

interface Rec {
  id: number
}

/** A list service over `count` records; `size` is the page size it really uses (whatever is asked). */
function service(count: number, size?: number) {
  const calls: Array<{page: number; perPage: number}> = []
  let records = Array.from({length: count}, (_, i) => ({id: i + 1}))
  return {
    calls,
    setCount(n: number) {
      records = Array.from({length: n}, (_, i) => ({id: i + 1}))
    },
    answer(page: number, perPage: number): FetchedPage<Rec> {
      calls.push({page, perPage})
      const per = size ?? perPage
      return {data: records.slice((page - 1) * per, page * per), meta: {page, per_page: per, total: records.length}}
    },
  }
}

async function collect<T>(gen: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of gen) out.push(x)
  return out
}

const ids = (n: number, from = 1) => Array.from({length: n}, (_, i) => ({id: from + i}))

describe('fetchAllPages', () => {
  test('an empty list: one request, nothing yielded', async () => {
    const s = service(0)
    expect(await collect(fetchAllPages({fetchPage: async (p, pp) => s.answer(p, pp), perPage: 100}))).toEqual([])
    expect(s.calls).toEqual([{page: 1, perPage: 100}])
  })

  test('a one-page list: one request', async () => {
    const s = service(3)
    expect(await collect(fetchAllPages({fetchPage: async (p, pp) => s.answer(p, pp), perPage: 100}))).toEqual(ids(3))
    expect(s.calls).toHaveLength(1)
  })

  test('a full last page ends the export without asking for one more', async () => {
    const s = service(200)
    expect(await collect(fetchAllPages({fetchPage: async (p, pp) => s.answer(p, pp), perPage: 100}))).toEqual(ids(200))
    expect(s.calls.map((c) => c.page)).toEqual([1, 2])
  })

  test('keeps the service order when pages answer out of order, with at most `concurrency` pages ahead', async () => {
    const s = service(1000)
    const pending: Array<{page: number; resolve: () => void}> = []
    let consumedPage = 1
    let maxAhead = 0
    let seed = 42
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
    const gen = fetchAllPages<Rec>({
      concurrency: 4,
      fetchPage: (page, perPage) =>
        new Promise((resolve) => {
          maxAhead = Math.max(maxAhead, page - consumedPage)
          pending.push({page, resolve: () => resolve(s.answer(page, perPage))})
        }),
      perPage: 10,
    })
    const out: Rec[] = []
    const consuming = (async () => {
      for await (const r of gen) {
        out.push(r)
        consumedPage = Math.ceil(out.length / 10)
      }
    })()
    let done = false
    void consuming.then(() => (done = true))
    const answeredOrder: number[] = []
    while (!done) {
      await new Promise((r) => setImmediate(r))
      if (pending.length === 0) continue
      const [next] = pending.splice(Math.floor(random() * pending.length), 1)
      answeredOrder.push(next.page)
      next.resolve()
    }
    expect(out).toEqual(ids(1000))
    expect(answeredOrder).not.toEqual([...answeredOrder].sort((a, b) => a - b)) // really out of order
    expect(maxAhead).toBeLessThanOrEqual(4)
    expect(s.calls).toHaveLength(100)
  })

  test('limit stops early and fetches no page it does not need', async () => {
    const s = service(1000)
    const seen: AbortSignal[] = []
    const out = await collect(
      fetchAllPages({
        concurrency: 8,
        fetchPage: async (p, pp, signal) => {
          seen.push(signal)
          return s.answer(p, pp)
        },
        limit: 250,
        perPage: 100,
      }),
    )
    expect(out).toEqual(ids(250))
    expect(s.calls.map((c) => c.page)).toEqual([1, 2, 3])
    expect(seen[0].aborted).toBe(true) // anything still in flight is told to stop
    expect(await collect(fetchAllPages({fetchPage: async (p, pp) => s.answer(p, pp), limit: 5, perPage: 100}))).toEqual(ids(5))
  })

  test('follows the page size the service uses when it differs from the one asked', async () => {
    const s = service(95, 30)
    expect(await collect(fetchAllPages({fetchPage: async (p, pp) => s.answer(p, pp), perPage: 100}))).toEqual(ids(95))
    expect(s.calls.map((c) => c.page)).toEqual([1, 2, 3, 4])
  })

  test('a total that grows during the export extends it; one that shrinks ends it at the empty page', async () => {
    const grow = service(150)
    const grown = await collect(
      fetchAllPages({
        concurrency: 1,
        fetchPage: async (p, pp) => {
          if (p === 2) grow.setCount(250)
          return grow.answer(p, pp)
        },
        perPage: 100,
      }),
    )
    expect(grown).toEqual(ids(250))
    const shrink = service(500)
    const totals: number[] = []
    const shrunk = await collect(
      fetchAllPages({
        concurrency: 2,
        fetchPage: async (p, pp) => {
          if (p === 2) shrink.setCount(150)
          return shrink.answer(p, pp)
        },
        onTotal: (t) => totals.push(t),
        perPage: 100,
      }),
    )
    expect(shrunk).toEqual(ids(150))
    expect(totals).toEqual([500, 150])
  })

  test('without a total it reads until a short page', async () => {
    const s = service(250)
    const out = await collect(fetchAllPages({fetchPage: async (p, pp) => ({data: s.answer(p, pp).data}), perPage: 100}))
    expect(out).toEqual(ids(250))
  })

  test('a failing page rejects after the pages before it, with no unhandled rejection from the others', async () => {
    const s = service(1000)
    const out: Rec[] = []
    const run = async () => {
      for await (const r of fetchAllPages<Rec>({
        concurrency: 4,
        fetchPage: async (p, pp) => {
          if (p >= 3) throw new Error(`page ${p} failed`)
          return s.answer(p, pp)
        },
        perPage: 100,
      }))
        out.push(r)
    }
    await expect(run()).rejects.toThrow('page 3 failed')
    expect(out).toEqual(ids(200))
  })
})
