/**
 * Aliases (`commerce alias set NAME 'EXPANSION'`), as `gh alias` has them: an expansion is words as a shell would
 * split them (single and double quotes group, a backslash escapes), `$1`, `$2`... take the arguments typed after the
 * alias, and the arguments no placeholder took are appended.
 */
import {splitArgv} from './argv.js'

export const ALIAS_NAME = /^[A-Za-z][\w-]*$/

/** Words of `text` as a POSIX shell splits them (quotes, backslashes; no expansion). Throws on an open quote. */
export function shellWords(text: string): string[] {
  const words: string[] = []
  let word = ''
  let inWord = false
  let quote: '"' | "'" | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quote) {
      if (c === quote) quote = undefined
      else if (c === '\\' && quote === '"' && i + 1 < text.length && '"\\$`'.includes(text[i + 1])) word += text[++i]
      else word += c
    } else if (c === '"' || c === "'") {
      quote = c
      inWord = true
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i]
      inWord = true
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
    } else {
      word += c
      inWord = true
    }
  }
  if (quote) throw new Error(`an unclosed ${quote} quote`)
  if (inWord) words.push(word)
  return words
}

/**
 * The words of an expansion up to its first flag or its first `$N` (an argument still to be typed): the command it
 * runs (what it must start with, and what completion continues from: `orders refund $1 --reason late` completes
 * as `orders refund`, an order id next).
 */
export function commandWordsOf(words: readonly string[]): string[] {
  const end = words.findIndex((w) => w.startsWith('-') || /\$\d/.test(w))
  return end < 0 ? [...words] : words.slice(0, end)
}

/** The highest `$N` of an expansion: how many arguments the alias needs. */
export function placeholderCount(words: readonly string[]): number {
  let max = 0
  for (const w of words) for (const m of w.matchAll(/\$(\d+)/g)) max = Math.max(max, Number(m[1]))
  return max
}

/** What the expanded command's flags are, for a flag typed after an alias to override the alias's own. */
export interface AliasFlags {
  /** `--since` for `--since`, `--since=30d` or `-s`; undefined for what is no flag. */
  nameOf(token: string): string | undefined
  /** Whether the flag (by its `--name`) takes a value in the next word. */
  takesValue(name: string): boolean
  /** Whether the flag may be given more than once (then a typed one adds to the alias's). */
  multiple(name: string): boolean
}

/**
 * The expansion's words less each flag that `typed` gives again (with its value): a flag typed after an alias
 * overrides the alias's (as in git's and gh's aliases); one that may be repeated adds to it.
 */
function overridden(words: readonly string[], typed: readonly string[], flags: AliasFlags): string[] {
  const given = new Set<string>()
  for (const token of splitArgv(typed).before) {
    const name = flags.nameOf(token)
    if (name !== undefined && !flags.multiple(name)) given.add(name)
  }
  if (given.size === 0) return [...words]
  const {after, before} = splitArgv(words)
  const kept: string[] = []
  for (let i = 0; i < before.length; i++) {
    const word = before[i]
    const name = flags.nameOf(word)
    if (name === undefined || !given.has(name)) {
      kept.push(word)
      continue
    }
    if (flags.takesValue(name) && !word.includes('=')) i++
  }
  return after === undefined ? kept : [...kept, '--', ...after]
}

/**
 * The expansion's words with `$N` replaced by the N-th argument, then the arguments no placeholder took (a flag among
 * them overriding the same flag of the expansion, when `flags` says what the command's flags are).
 */
export function expandAlias(expansion: string, args: readonly string[], flags?: AliasFlags): {argv: string[]; missing: number} {
  const words = shellWords(expansion)
  const used = new Set<number>()
  const argv = words.map((w) =>
    w.replace(/\$(\d+)/g, (ref, n: string) => {
      const i = Number(n) - 1
      if (i < 0 || i >= args.length) return ref
      used.add(i)
      return args[i]
    }),
  )
  const needed = placeholderCount(words)
  const rest = args.filter((_, i) => !used.has(i))
  return {argv: [...(flags ? overridden(argv, rest, flags) : argv), ...rest], missing: Math.max(0, needed - args.length)}
}
