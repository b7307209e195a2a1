/**
 * A bar chart for a terminal: one row per period, its label, a bar of Unicode block characters (eighths of a cell,
 * so small differences show) scaled to the largest value, and the value as text. It fits `width` columns; without
 * colour it reads the same (the bars are characters, not colours).
 */
import {cellWidth, padCells} from './width.js'

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉']

export interface Bar {
  label: string
  value: number
  /** The value as people read it (`$1,234.50`, `12`). */
  text: string
}

/** The chart's lines: `label │██████▍ text`, every line at most `width` cells. */
export function barChart(bars: readonly Bar[], width: number, paint: (bar: string) => string = (b) => b): string[] {
  if (bars.length === 0) return []
  // A loop, not Math.max(...bars): spreading tens of thousands of arguments overflows the stack.
  let labelWidth = 0
  let textWidth = 0
  let max = 0
  for (const b of bars) {
    labelWidth = Math.max(labelWidth, cellWidth(b.label))
    textWidth = Math.max(textWidth, cellWidth(b.text))
    max = Math.max(max, b.value)
  }
  const room = Math.max(4, width - labelWidth - textWidth - 4)
  return bars.map((b) => {
    const eighths = max > 0 && b.value > 0 ? Math.max(1, Math.round((b.value / max) * room * 8)) : 0
    const bar = '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]
    return `${padCells(b.label, labelWidth)} │${paint(bar)}${' '.repeat(room - cellWidth(bar))} ${b.text}`.trimEnd()
  })
}
