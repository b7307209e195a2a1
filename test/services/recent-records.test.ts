/** The ring that spots a record met again while pages are read (src/services/window-read.ts RecentRecords). */
import {describe, expect, it} from 'vitest'

import {RecentRecords} from '../../src/services/window-read.js'

describe('RecentRecords', () => {
  it('a record met again within the last N is seen; an id reused at another time is another record', () => {
    const recent = new RecentRecords(3)
    expect(recent.seen({id: 1}, 100)).toBe(false)
    expect(recent.seen({id: 1}, 100)).toBe(true)
    expect(recent.seen({id: 1}, 200)).toBe(false)
    expect(recent.seen({id: 'x'}, 100)).toBe(false)
    expect(recent.seen({}, 100)).toBe(false)
  })

  it('an id reused at another time is remembered by its latest slot: evicting its older slot does not forget it', () => {
    const recent = new RecentRecords(3)
    recent.seen({id: 7}, 100) // slot 0
    recent.seen({id: 7}, 200) // slot 1: the same id at another time
    recent.seen({id: 8}, 300) // slot 2
    recent.seen({id: 9}, 400) // slot 0 evicted: that was 7's older place
    expect(recent.seen({id: 7}, 200), 'forgotten with its older slot').toBe(true)
  })
})
