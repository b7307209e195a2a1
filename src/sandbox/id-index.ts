/**
 * An ascending list of ids with newest-first paging. New ids are always larger than the last one, so an
 * insert is an append; removal and re-insertion (a status change) cost a binary search and one splice.
 * A page is a slice from the end: no sort and no scan per request, whatever the size.
 */
export class IdIndex {
  private readonly ids: number[] = []

  get size(): number {
    return this.ids.length
  }

  clear(): void {
    this.ids.length = 0
  }

  add(id: number): void {
    const last = this.ids.at(-1)
    if (last === undefined || id > last) {
      this.ids.push(id)
      return
    }
    const at = this.search(id)
    if (this.ids[at] !== id) this.ids.splice(at, 0, id)
  }

  remove(id: number): void {
    const at = this.search(id)
    if (this.ids[at] === id) this.ids.splice(at, 1)
  }

  /** Ids of 1-indexed `page` of `perPage`, newest (largest) first. */
  page(page: number, perPage: number): number[] {
    const end = this.ids.length - (page - 1) * perPage
    if (end <= 0) return []
    return this.ids.slice(Math.max(0, end - perPage), end).reverse()
  }

  /** Newest first. */
  *newestFirst(): IterableIterator<number> {
    for (let i = this.ids.length - 1; i >= 0; i--) yield this.ids[i]
  }

  /** First position whose id is >= `id`. */
  private search(id: number): number {
    let lo = 0
    let hi = this.ids.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.ids[mid] < id) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}
