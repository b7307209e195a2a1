/**
 * Messages for people wrapped at spaces to the terminal's width (IOStreams.info): a word, a flag
 * (`--no-send-invite`) or a backticked command (`commerce webhooks secret ID`) is never split, as the terminal itself
 * would split them. Loaded by every command, so it measures without string-width (width.ts, for tables): escape
 * sequences take no cell, East Asian wide characters and emoji two, anything else one.
 */

const ANSI = /\u001B\[[\d;]*m/g
const WIDE = /[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1FAFF}]/u

function cells(text: string): number {
  let n = 0
  for (const ch of text.replace(ANSI, '')) n += WIDE.test(ch) ? 2 : 1
  return n
}

/** The tokens of a line, each with the spaces before it: runs of non-spaces, a backticked or double-quoted span one. */
const PIECES = /( *)((?:`[^`]*`|"[^"]*"|[^ `"]+|[`"])+)/g

/**
 * `text` wrapped at spaces to `width` cells; an indented line's continuation keeps its indent, or `hang` spaces
 * when more (a report's detail column); a longer token stays whole.
 */
export function wrapWords(text: string, width: number, hang = 0): string {
  return text
    .split('\n')
    .map((line) => {
      if (cells(line) <= width) return line
      const indent = /^ */.exec(line)![0]
      const next = ' '.repeat(Math.max(indent.length, Math.min(hang, Math.floor(width / 2))))
      const out: string[] = []
      let current = ''
      let lead = indent
      // Each token with the spaces before it, kept as typed within a line (a report's aligned columns).
      for (const [, gap, token] of line.slice(indent.length).matchAll(PIECES)) {
        if (current !== '' && cells(lead + current) + cells(gap) + cells(token) > width) {
          out.push(lead + current)
          current = token
          // A token that does not fit under the hang starts at the margin instead (a long URL), if it fits there.
          lead = cells(next + token) > width ? '' : next
        } else current = current === '' ? token : `${current}${gap || ' '}${token}`
      }
      if (current !== '') out.push(lead + current)
      return out.join('\n')
    })
    .join('\n')
}
