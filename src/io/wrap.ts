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

/** The tokens of a line: runs of non-spaces, a backticked or double-quoted span counting as one (spaces kept). */
function tokens(line: string): string[] {
  return line.match(/(?:`[^`]*`|"[^"]*"|[^ `"]+|[`"])+/g) ?? []
}

/** `text` wrapped at spaces to `width` cells; an indented line's continuation keeps its indent; a longer token stays whole. */
export function wrapWords(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => {
      if (cells(line) <= width) return line
      const indent = /^ */.exec(line)![0]
      const out: string[] = []
      let current = ''
      for (const token of tokens(line.slice(indent.length))) {
        if (current !== '' && cells(indent + current) + 1 + cells(token) > width) {
          out.push(indent + current)
          current = token
        } else current = current === '' ? token : `${current} ${token}`
      }
      if (current !== '') out.push(indent + current)
      return out.join('\n')
    })
    .join('\n')
}
