/** Aliases, kept per user in the config file (`aliases`), whatever the profile. */
import {configDir} from '../config/paths.js'
import {typeName} from '../config/config-schema.js'
import {ConfigStore} from '../config/config-store.js'
import {ALIAS_NAME, commandWordsOf, shellWords} from '../domain/alias.js'
import {closest} from '../domain/suggest.js'
import {UsageError} from '../errors.js'

/** The names an alias must not take, and the command ids an expansion may start with (ids with spaces). */
export interface CommandNames {
  commands: readonly string[]
  topics: readonly string[]
}

export interface AliasTable {
  /** The usable aliases: name -> expansion. */
  aliases: Record<string, string>
  /** One line for each alias left out (a hand-edited value that is not a string), naming it and the fix. */
  warnings: string[]
}

/** The aliases whose values are strings; each other one is named in a warning, and the rest keep working. */
function usable(raw: Readonly<Record<string, unknown>> | undefined, path: string): AliasTable {
  const aliases: Record<string, string> = {}
  const warnings: string[] = []
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (typeof value === 'string') aliases[name] = value
    else
      warnings.push(
        `the alias ${JSON.stringify(name)} in ${path} is ${typeName(value)}, not a string: it is ignored. Set it again with \`commerce alias set ${ALIAS_NAME.test(name) ? name : 'NAME'} 'EXPANSION'\` or remove it with \`commerce alias delete ${ALIAS_NAME.test(name) ? name : 'NAME'}\`.`,
      )
  }
  return {aliases, warnings}
}

/** The aliases of the user whose environment this is; none when the config cannot be read (the command's read says why). */
export async function aliasesOf(env: NodeJS.ProcessEnv): Promise<Record<string, string>> {
  return (await aliasTableOf(env)).aliases
}

/** aliasesOf, with a warning for each alias left out. */
export async function aliasTableOf(env: NodeJS.ProcessEnv): Promise<AliasTable> {
  return readAliases(new ConfigStore(configDir(env))).catch(() => ({aliases: {}, warnings: []}))
}

/** The command an alias runs (words up to its first flag), for completion; [] for no alias or a broken one. */
export async function aliasCommand(env: NodeJS.ProcessEnv, name: string): Promise<string[]> {
  const expansion = (await aliasesOf(env))[name] as string | undefined
  if (expansion === undefined) return []
  try {
    return commandWordsOf(shellWords(expansion))
  } catch {
    return []
  }
}

export async function readAliases(store: ConfigStore): Promise<AliasTable> {
  return usable((await store.read()).aliases, store.path)
}

/** Exit 2 naming the clash: a command, a topic or a command's alias keeps its name. */
export async function setAlias(
  store: ConfigStore,
  name: string,
  expansion: string,
  names: CommandNames,
): Promise<{name: string; expansion: string; replaced?: string}> {
  if (!ALIAS_NAME.test(name)) throw new UsageError(`The alias name ${JSON.stringify(name)} must be one word: a letter, then letters, digits, _ or -.`)
  const firstWords = new Set([...names.commands, ...names.topics].map((id) => id.split(' ')[0]))
  if (firstWords.has(name)) {
    const what = names.commands.includes(name) ? 'command' : 'topic'
    throw new UsageError(`"${name}" is a commerce ${what}: an alias can never shadow one. Choose another name.`)
  }
  let words: string[]
  try {
    words = shellWords(expansion)
  } catch (error) {
    throw new UsageError(`The expansion has ${(error as Error).message}.`)
  }
  const leading = commandWordsOf(words)
  const starts = names.commands.some((id) => {
    const parts = id.split(' ')
    return parts.every((p, i) => leading[i] === p)
  })
  if (!starts) {
    const near = closest(leading.slice(0, 2).join(' '), names.commands) ?? closest(leading.slice(0, 1).join(' '), names.commands)
    throw new UsageError(
      `The expansion ${JSON.stringify(expansion)} must start with a commerce command${near ? `: did you mean '${near}'?` : " (e.g. 'customers list')."}`,
    )
  }
  let replaced: string | undefined
  await store.update((data) => {
    const before = data.aliases?.[name]
    replaced = before === undefined ? undefined : typeof before === 'string' ? before : JSON.stringify(before)
    data.aliases = {...data.aliases, [name]: expansion}
  })
  return {expansion, name, ...(replaced === undefined ? {} : {replaced})}
}

export async function deleteAlias(store: ConfigStore, name: string): Promise<{name: string; expansion: string}> {
  let expansion: string | undefined
  await store.update((data) => {
    const value = data.aliases?.[name]
    if (value === undefined) return
    expansion = typeof value === 'string' ? value : JSON.stringify(value)
    const {[name]: _gone, ...rest} = data.aliases!
    data.aliases = rest
  })
  if (expansion === undefined) throw new UsageError(`No alias named "${name}". See \`commerce alias list\`.`)
  return {expansion, name}
}
