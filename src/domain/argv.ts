/**
 * A command line split at its first `--`: the words before it (commands, flags and arguments that flags may read)
 * and the words after it, which are only ever arguments (`sandbox exec -- npm test --json` runs npm with --json).
 * Every reader of argv splits here, so that none of them takes a word after `--` for a flag of ours.
 */
export function splitArgv(argv: readonly string[]): {before: string[]; after: string[] | undefined} {
  const end = argv.indexOf('--')
  return end === -1 ? {after: undefined, before: [...argv]} : {after: argv.slice(end + 1), before: argv.slice(0, end)}
}

/** A word as a POSIX shell reads it back: as is when it is plain, else in single quotes. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`
}
