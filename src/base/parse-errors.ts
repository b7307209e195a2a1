/**
 * oclif's parse errors in the CLI's own words: one sentence a problem, flags named as they are typed, no
 * "The following error occurred:" preamble and no argument table. The messages are oclif's public text (its
 * parser's errors, @oclif/core pinned in package.json); one that is not recognised goes through unchanged, so an
 * upgrade that rewords them costs wording, never a message (test/base/parse-errors.test.ts keeps them recognised).
 */
import {stripVTControlCharacters} from 'node:util'

import {closest} from '../domain/suggest.js'
import {UsageError} from '../errors.js'

/** One reason of a failed flag validation or a violated constraint, reworded. */
function reason(text: string): string {
  let m = /^Missing required flag ([\w-]+)$/.exec(text)
  if (m) return `--${m[1]} is required`
  m = /^--([\w-]+)(?:=.*)? cannot also be provided when using --([\w-]+)$/.exec(text)
  if (m) return `--${[m[1], m[2]].sort().join(' and --')} cannot be used together`
  m = /^All of the following must be provided when using --([\w-]+): (.+)$/.exec(text)
  if (m) return `--${m[1]} needs ${m[2].split(/,\s*/).join(' and ')}`
  return text
}

/** The message of an oclif parse error (`See more help` already cut), reworded where it is one of oclif's. */
export function parseErrorMessage(message: string, args?: ReadonlyArray<{name: string; description?: string}>): string {
  const text = stripVTControlCharacters(message).trim()
  const preamble = /^The following errors? occurred:\n([\s\S]*)$/.exec(text)
  if (preamble) {
    const reasons = [
      ...new Set(
        preamble[1]
          .split('\n')
          .map((l) => reason(l.trim()))
          .filter((l) => l !== ''),
      ),
    ]
    return `${reasons.join('; ')}.`
  }
  if (/^Missing \d+ required args?:/.test(text) && args && args.length > 0) {
    const names = args.map((a) => a.name.toUpperCase()).join(', ')
    const about = args.map((a) => a.description?.replace(/\.$/, '').toLowerCase()).filter(Boolean)
    return `Missing argument${args.length === 1 ? '' : 's'} ${names}${about.length > 0 ? ` (${about.join('; ')})` : ''}.`
  }
  const integer = /^(?:Parsing )?(--[\w-]+):? *\n?\s*Expected an integer(?: (greater|less) than or equal to (-?\d+))? but received: (.*)$/.exec(text)
  if (integer) {
    const [, flag, side, bound, got] = integer
    const rule = side === undefined ? 'a whole number' : `${side === 'greater' ? 'at least' : 'at most'} ${bound}`
    return `${flag} must be ${rule} (got ${JSON.stringify(got)}).`
  }
  const option = /^Expected --([\w-]+)=(.*) to be one of: (.+)$/.exec(text)
  if (option) return `--${option[1]} must be one of ${option[3]} (got ${JSON.stringify(option[2])}).`
  const argOption = /^Expected (.*) to be one of: (.+)$/.exec(text)
  if (argOption) return `The argument must be one of ${argOption[2]} (got ${JSON.stringify(argOption[1])}).`
  return text
}

/**
 * A failure to parse the command line as invalid usage (exit 2): oclif gives some parse errors its default exit
 * code (1), and a flag's own parse function throws a plain Error (the flag stays named). An unknown flag gets the
 * nearest of `flags` suggested.
 */
export function usageFromParse(error: Error, flags: readonly string[], hint: string): UsageError {
  const unknown = (error as {flags?: unknown}).flags
  if (error.name === 'NonExistentFlagsError' || Array.isArray(unknown)) {
    const guesses = (Array.isArray(unknown) ? (unknown as string[]) : []).map((f) => [f, closest(f.replace(/=.*$/, ''), flags)] as const)
    const meant = guesses.filter(([, g]) => g)
    const text = meant.length === 1 ? `Did you mean ${meant[0][1]}?` : meant.map(([f, g]) => `${f}: did you mean ${g}?`).join(' ')
    if (meant.length > 0) return new UsageError(`${error.message.replace(/\n\s*See more help with --help\s*$/, '').trim()}. ${text}`, {hint})
  }
  const message = error.message
    .replace(/\n\s*See more help with --help\s*$/, '')
    .replace(/^Parsing (--[\w-]+) *\n\s*/, '$1: ')
    .trim()
  const args = (error as {args?: Array<{name: string; description?: string}>}).args
  return new UsageError(parseErrorMessage(message, Array.isArray(args) ? args : undefined), {hint})
}
