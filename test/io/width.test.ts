/** Widths in terminal cells (src/io/width.ts): wide characters count two, marks none, and no character is split. */
import {describe, expect, it} from 'vitest'

import {cellWidth, fitCells, padCells} from '../../src/io/width.js'

describe('cell widths', () => {
  it('counts East Asian wide characters and emoji as two cells, combining marks and escapes as none', () => {
    expect(cellWidth('Anastasia 小龙')).toBe(14)
    expect(cellWidth('e\u0301')).toBe(1)
    expect(cellWidth('🐉')).toBe(2)
    expect(cellWidth('\u001b[1mab\u001b[0m')).toBe(2)
  })

  it('cuts to a width in cells with an ellipsis, never splitting a wide character or a grapheme', () => {
    expect(fitCells('小龙小龙', 5)).toBe('小龙…')
    expect(cellWidth(fitCells('小龙小龙', 4))).toBeLessThanOrEqual(4)
    expect(fitCells('小龙小龙', 4)).toBe('小…')
    expect(fitCells('ae\u0301ae\u0301', 3)).toBe('ae\u0301…')
    expect(fitCells('short', 10)).toBe('short')
    expect(padCells('小龙', 6)).toBe('小龙  ')
  })
})
