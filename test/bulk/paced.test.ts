/**
 * The progress ticker of a bulk command: its last frame shows the final count, and a list that
 * grew during an export (more records than page 1's total) never draws `20,505/20,000`.
 */
import {expect, test} from 'vitest'

import {type BulkProgress, startTicker} from '../../src/bulk/paced.js'
import {Pacer} from '../../src/bulk/pacer.js'
import {ProgressTracker} from '../../src/bulk/progress-tracker.js'

function recorder(): BulkProgress & {frames: Array<{done: number; total?: number}>; stopped: boolean} {
  const r = {
    frames: [] as Array<{done: number; total?: number}>,
    stop() {
      r.stopped = true
    },
    stopped: false,
    update(view: {done: number; total?: number}) {
      r.frames.push({done: view.done, total: view.total})
    },
  }
  return r
}

test('the last frame, drawn at stop, shows the final count; the total follows a count past it', () => {
  const tracker = new ProgressTracker(3, {now: () => 0})
  const progress = recorder()
  const ticker = startTicker(tracker, progress, new Pacer())
  expect(progress.frames.at(-1)).toEqual({done: 0, total: 3})
  tracker.advance(5) // two more records than page 1 announced
  ticker.stop()
  expect(progress.frames.at(-1)).toEqual({done: 5, total: 5})
  expect(progress.stopped).toBe(true)
})
