/** Words about numbers, for every sentence the CLI writes (a service's status lines, the io layer's notes). */

/** "1 refund", "2 refunds", "20,505 customers" (`plural` for nouns that do not just take an s). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${formatCount(n)} ${n === 1 ? noun : plural}`
}

/**
 * `20,505`: an integer grouped in thousands as `toLocaleString('en')` writes it, without that call's first cost
 * (loading ICU's number data, 5 ms of a command that prints one count); other numbers go to `toLocaleString`.
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en')
  const digits = String(Math.abs(n))
  let grouped = digits.slice(0, digits.length % 3 || 3)
  for (let i = grouped.length; i < digits.length; i += 3) grouped += `,${digits.slice(i, i + 3)}`
  return n < 0 ? `-${grouped}` : grouped
}

/** `32 MiB`, `1.5 KiB`, `12 bytes`. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${+(n / 1024 / 1024).toFixed(1)} MiB`
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB`
  return `${n} bytes`
}

/** `the token request` -> `The token request`. */
export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/**
 * What a terminal may act on rather than show: C0 controls, DEL, C1 controls, and the Unicode bidirectional marks,
 * overrides and isolates that reorder what a reader sees. The one definition: io/sanitize.ts escapes these,
 * `withoutControls` drops them (where escaping is no option, as in a shell's completion descriptions).
 */
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/** Sentences joined with a space, each ended with a stop when it has none (`The pair was rejected` + `It comes from…`). */
export function sentences(...parts: string[]): string {
  return parts
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => (/[.!?:)]$/.test(p) ? p : `${p}.`))
    .join(' ')
}

/** What jsonText writes as `\uXXXX`: the control characters, and the line and paragraph separators. */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g

/**
 * `value` as compact JSON in which nothing that could act on a reader is raw: JSON.stringify escapes C0 controls,
 * and DEL, C1, the bidi controls and U+2028/U+2029 are written as `\uXXXX` too. Lossless (it parses back to
 * `value`), for text that a model or a host's screen reads (MCP's text content), while machine-facing data stays as
 * the service sent it.
 */
export function jsonText(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(UNSAFE_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** `text` with every character of CONTROL_CHARACTERS removed (tabs and newlines become spaces first). */
export function withoutControls(text: string): string {
  return text.replaceAll(/[\t\r\n]+/g, ' ').replaceAll(CONTROL_CHARACTERS, '')
}
