/** Widths in terminal cells (src/io/width.ts): wide characters count two, marks none, and no character is split. */
import {describe, expect, it} from 'vitest'

import {cellWidth, fitCells, padCells, fitCellsMiddle} from '../../src/io/width.js'

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

describe('fitCellsMiddle (URLs and paths)', () => {
  it('keeps a URL’s origin and last segment, a path’s file name, and fits the width', () => {
    const url = `http://127.0.0.1:30001/${'nested/'.repeat(8)}hooks`
    const cut = fitCellsMiddle(url, 36)
    expect(cut).toMatch(/^http:\/\/127\.0\.0\.1:30001\/.*…\/hooks$/)
    expect(cellWidth(cut)).toBe(36)
    const path = `/tmp/a-rather-deep-folder/for-the-tests/checkout-fixtures.json`
    expect(fitCellsMiddle(path, 28)).toMatch(/^\/t.*…\/checkout-fixtures\.json$/)
    expect(fitCellsMiddle('short', 10)).toBe('short')
    for (const w of [1, 2, 3, 8]) expect(cellWidth(fitCellsMiddle(url, w))).toBeLessThanOrEqual(w)
    expect(cellWidth(fitCellsMiddle('日本語のとても長いパス/ファイル名.json', 15))).toBeLessThanOrEqual(15)
  })
})
