/**
 * The help's aliases (hooks/help-class.ts), loaded only when help needs them (a word that is no command, the root
 * help): the help of a command then reads none of the CLI's shared code, only oclif's.
 */
import {processDeps} from '../base/deps.js'
import {commandWordsOf, shellWords} from '../domain/alias.js'
import {sanitize} from '../io/sanitize.js'
import {aliasesOf} from '../services/aliases.js'

/** What `name` runs when it is an alias: the line that says so and the command's words; undefined otherwise. */
export async function aliasHelp(name: string, bin: string): Promise<{said: string; words: string[]} | undefined> {
  const aliases = await aliasesOf(processDeps().env)
  if (!Object.hasOwn(aliases, name)) return undefined
  let words: string[] = []
  try {
    words = commandWordsOf(shellWords(aliases[name]))
  } catch {}
  return {
    said: `${sanitize(name, 'cell')} is an alias: \`${bin} ${sanitize(name, 'cell')}\` runs \`${bin} ${sanitize(aliases[name], 'cell')}\`.\n`,
    words,
  }
}

/** Each alias and what it runs, for the root help's ALIASES section; an expansion is the user's text, escaped. */
export async function aliasRows(bin: string): Promise<Array<[string, string]>> {
  return Object.entries(await aliasesOf(processDeps().env)).map(([name, expansion]) => [
    sanitize(name, 'cell'),
    `${bin} ${sanitize(expansion, 'cell')}`,
  ])
}
