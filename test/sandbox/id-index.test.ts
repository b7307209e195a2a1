import {describe, expect, it} from 'vitest'

import {IdIndex} from '../../src/sandbox/id-index.js'

describe('IdIndex', () => {
  it('pages newest first from the end, and past the end is empty', () => {
    const index = new IdIndex()
    for (let id = 1; id <= 7; id++) index.add(id)
    expect(index.page(1, 3)).toEqual([7, 6, 5])
    expect(index.page(3, 3)).toEqual([1])
    expect(index.page(4, 3)).toEqual([])
    expect([...index.newestFirst()]).toEqual([7, 6, 5, 4, 3, 2, 1])
  })

  it('keeps ids sorted through removals and re-insertions, ignoring duplicates and unknown ids', () => {
    const index = new IdIndex()
    for (const id of [1, 2, 3, 4, 5]) index.add(id)
    index.remove(3)
    index.remove(42)
    index.add(3)
    index.add(3)
    index.remove(5)
    index.add(0)
    expect(index.size).toBe(5)
    expect(index.page(1, 10)).toEqual([4, 3, 2, 1, 0])
  })
})
