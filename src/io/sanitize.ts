/**
 * The one sanitizer for values that came from the service (or any other untrusted source) on their way to a
 * terminal or to tab-separated output. A customer named `Eve\e]0;PWNED\a` must not retitle the operator's
 * terminal: control characters are shown escaped, never written raw.
 *
 * - C0 controls, DEL and C1 controls are escaped: ESC as `\e`, BEL `\a`, BS `\b`, CR `\r`, FF `\f`, VT `\v`,
 *   others as `\xNN` (C1 as `\u0085`-style).
 * - Unicode bidirectional overrides and isolates (which reorder what a reader sees) are escaped as `\u202e`.
 * - Tabs and newlines: `terminal` keeps newlines (a multi-line message stays readable) and shows a tab as
 *   spaces; `cell` (one table cell or one line) shows both as `\t`/`\n`; `tsv` turns each run of tabs, CRs and newlines into one space, so
 *   that a record stays one line and its columns stay where `cut` finds them.
 * `--json` never goes through here: JSON's own escaping is exact.
 */

import {CONTROL_CHARACTERS as UNSAFE} from '../domain/text.js'

const NAMED: Record<string, string> = {
  '\u0007': '\\a',
  '\u0008': '\\b',
  '\u000b': '\\v',
  '\u000c': '\\f',
  '\u000d': '\\r',
  '\u001b': '\\e',
}

export type SanitizeMode = 'terminal' | 'cell' | 'tsv'

function escapeOne(ch: string): string {
  const named = NAMED[ch]
  if (named) return named
  const code = ch.codePointAt(0)!
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/** `text` with every control character made visible (see the module comment for the modes). */
export function sanitize(text: string, mode: SanitizeMode = 'cell'): string {
  const input = mode === 'tsv' ? text.replace(/[\t\r\n]+/g, ' ') : text
  return input.replace(UNSAFE, (ch) => {
    if (ch === '\n') return mode === 'terminal' ? '\n' : mode === 'tsv' ? ' ' : '\\n'
    if (ch === '\t') return mode === 'tsv' ? ' ' : mode === 'terminal' ? '    ' : '\\t'
    return escapeOne(ch)
  })
}

/** Whether `text` holds anything sanitize would change. */
export function hasUnsafe(text: string): boolean {
  UNSAFE.lastIndex = 0
  return UNSAFE.test(text)
}
