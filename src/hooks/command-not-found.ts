/**
 * An unknown command: "did you mean" the nearest command or topic, by edit distance.
 *
 * oclif joins every word before the first flag into the id it could not find (`customers gte 5` arrives as
 * `customers:gte:5`), so the words are split again: the longest run of leading words that is a command (or the
 * run nearest to one) is the command, and the words after it are its arguments, kept in order with the flags.
 * So `customers list extra-arg` runs `customers list`, whose parser says "Unexpected argument"; the suggestion for
 * `customers gte 5` runs `customers get 5`. Global flags written before the topic (`-p staging customers list`)
 * are moved after the command. A topic is suggested too (`ordrs` -> `orders`), and shows that topic's commands.
 *
 * This replaces @oclif/plugin-not-found, which prompts whenever stdin is a terminal (also when CI is set) and
 * exits 127; the contract says nothing prompts under CI and that invalid usage is exit 2. On a terminal that
 * may prompt, it offers to run the suggestion (Enter runs it only when the command only reads: `effectOf`); otherwise it
 * names it and exits 2 (a JSON error with --json).
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {Errors, type Hook, type Interfaces, toConfiguredId} from '@oclif/core'

import {processDeps} from '../base/deps.js'
import {type AliasFlags, commandWordsOf, expandAlias, shellWords} from '../domain/alias.js'
import {EXIT, UsageError} from '../errors.js'
import {promptYesNo} from '../io/prompt.js'
import {sanitize} from '../io/sanitize.js'
import {aliasTableOf} from '../services/aliases.js'
import {effectOf} from '../services/command-catalogue.js'
import {jsonMode, Output, plainError} from '../io/output.js'
import {editDistance} from '../domain/suggest.js'
import {IOStreams} from '../io/streams.js'

interface Resolved {
  /** A command id, or a topic name (`topic: true`), or an alias's name (`alias: true`). */
  id: string
  topic: boolean
  alias?: boolean
  /** What follows the command: the words after it, then the flags, in the order typed. */
  argv: string[]
  /** 0 when `id` is what was typed. */
  distance: number
}

/** Flags of any command that take a value (`-p NAME`, `--profile NAME`), so that their value moves with them. */
function valueFlags(config: Interfaces.Config): Set<string> {
  const names = new Set<string>()
  for (const command of config.commands)
    for (const [name, flag] of Object.entries(command.flags ?? {}))
      if (flag.type === 'option') {
        names.add(`--${name}`)
        if (flag.char) names.add(`-${flag.char}`)
      }
  return names
}

/** The flags of the command an alias runs (from the manifest), for a typed flag to override the alias's own. */
function aliasFlags(config: Interfaces.Config, expansion: string): AliasFlags {
  const command = config.findCommand(commandWordsOf(shellWords(expansion)).join(':'))
  const flags = (command?.flags ?? {}) as Record<string, {type?: string; char?: string; multiple?: boolean}>
  const byChar = new Map(Object.entries(flags).flatMap(([name, f]) => (f.char ? [[f.char, name] as const] : [])))
  return {
    multiple: (name) => flags[name.slice(2)]?.multiple === true,
    nameOf(token) {
      const long = /^--([^=\s]+)/.exec(token)
      if (long) return `--${long[1].startsWith('no-') && !flags[long[1]] ? long[1].slice(3) : long[1]}`
      const short = /^-([A-Za-z])$/.exec(token)
      return short && byChar.has(short[1]) ? `--${byChar.get(short[1])}` : undefined
    },
    takesValue: (name) => flags[name.slice(2)]?.type === 'option',
  }
}

/** The words and the flags of what was typed: leading flags (global flags before the topic) go after the words. */
function splitTyped(id: string, argv: readonly string[], takesValue: Set<string>): {words: string[]; rest: string[]} {
  const tokens = [...id.split(':'), ...argv]
  const leading: string[] = []
  let i = 0
  while (i < tokens.length && tokens[i].startsWith('-')) {
    leading.push(tokens[i])
    if (takesValue.has(tokens[i]) && !tokens[i].includes('=') && i + 1 < tokens.length) leading.push(tokens[++i])
    i++
  }
  let end = i
  while (end < tokens.length && !tokens[end].startsWith('-')) end++
  return {rest: [...tokens.slice(end), ...leading], words: tokens.slice(i, end)}
}

/**
 * The Stripe CLI's top-level words, which its users type out of habit: the command each is here. Suggested as a
 * near command is (never run without a yes).
 */
const OTHER_CLIS: Readonly<Record<string, string>> = {
  listen: 'webhooks:listen',
  login: 'auth:login',
  logout: 'auth:logout',
  trigger: 'webhooks:trigger',
}

function resolve(config: Interfaces.Config, id: string, argv: readonly string[], aliases: readonly string[] = []): Resolved | undefined {
  const {rest, words} = splitTyped(id, argv, valueFlags(config))
  const habit = OTHER_CLIS[words[0]]
  if (habit && config.findCommand(habit)) return {argv: [...words.slice(1), ...rest], distance: 1, id: habit, topic: false}
  const commands = config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases])
  const topics = config.topics.filter((t) => !t.hidden).map((t) => t.name)
  let best: Resolved | undefined
  // Longer runs of words first, so that a tie goes to the command that takes more of what was typed.
  for (let k = words.length; k >= 1; k--) {
    const typed = words.slice(0, k).join(':')
    const after = [...words.slice(k), ...rest]
    for (const [names, topic] of [
      [commands, false],
      [topics, true],
    ] as const)
      for (const name of names) {
        // A topic takes no arguments: it is only suggested for all the words.
        if (topic && k !== words.length) continue
        const distance = near(typed, name)
        if (distance !== undefined && (!best || distance < best.distance)) best = {argv: after, distance, id: name, topic}
      }
    if (best?.distance === 0) break
  }
  // An alias's name mistyped (aliases take their arguments after the name).
  for (const name of aliases) {
    const distance = near(words[0] ?? '', name)
    if (distance !== undefined && distance > 0 && (!best || distance < best.distance))
      best = {alias: true, argv: [...words.slice(1), ...rest], distance, id: name, topic: false}
  }
  return best
}

/**
 * The edit distance of a typed id to a command's of as many words, when near enough to suggest: each word a slip
 * of at most a third of its letters (at least 2), so that `snapshot drop` is never `snapshot list` because the rest
 * of the id is long. `resolve` tries each run of leading words, so the word counts are compared as they are.
 */
function near(typed: string, name: string): number | undefined {
  const close = (a: string, b: string) => editDistance(a, b) <= Math.max(2, Math.floor(a.length / 3))
  const [words, names] = [typed.split(':'), name.split(':')]
  if (words.length !== names.length || !words.every((w, i) => close(w, names[i]))) return undefined
  return editDistance(typed, name)
}

function run(config: Interfaces.Config, found: Resolved): Promise<unknown> {
  return found.topic ? config.runCommand('help', [found.id.replaceAll(':', ' ')]) : config.runCommand(found.id, found.argv)
}

/**
 * The words typed with an alias expanded: leading global flags kept, the alias replaced by its expansion with `$N`
 * taken from the words after it. Undefined when the first word is not an alias. Aliases are read only here, when no
 * command matched, so a command never pays for them.
 */
async function expandedAlias(config: Interfaces.Config, id: string, argv: readonly string[], names: string[] = []): Promise<string[] | undefined> {
  const tokens = [...id.split(':'), ...argv]
  const takesValue = valueFlags(config)
  let i = 0
  while (i < tokens.length && tokens[i].startsWith('-')) i += takesValue.has(tokens[i]) && !tokens[i].includes('=') ? 2 : 1
  const name = tokens[i]
  if (name === undefined) return undefined
  const {aliases, warnings} = await aliasTableOf(processDeps().env)
  if (warnings.length > 0) {
    const io = new IOStreams(jsonMode(argv))
    for (const warning of warnings) io.warn(sanitize(warning, 'cell'))
  }
  names.push(...Object.keys(aliases))
  if (!Object.hasOwn(aliases, name)) return undefined
  const {argv: expanded, missing} = expandAlias(aliases[name], tokens.slice(i + 1), aliasFlags(config, aliases[name]))
  if (missing > 0)
    throw new UsageError(
      `The alias ${name} (\`${config.bin} ${sanitize(aliases[name], 'cell')}\`) needs ${missing} more argument${missing === 1 ? '' : 's'}.`,
    )
  return [...expanded, ...tokens.slice(0, i)]
}

const hook: Hook<'command_not_found'> = async function (options) {
  const {config} = options
  let argv = options.argv ?? []
  let id = options.id
  let expanded: string[] | undefined
  const aliasNames: string[] = []
  try {
    expanded = await expandedAlias(config, id, argv, aliasNames)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    const io = new IOStreams(jsonMode([id, ...argv]))
    new Output(io).error(plainError('usage', error.message))
    throw new Errors.ExitError(EXIT.usage)
  }
  if (expanded) [id, ...argv] = expanded
  const found = resolve(config, id, argv, aliasNames)
  // Every word up to the first flag is a command (`customers list extra-arg`), or global flags came first: run it,
  // and its own parser judges the rest.
  if (found?.distance === 0 && !found.topic) return run(config, found)

  // oclif hands a line of flags alone (`commerce --json`) over as the id: --json there asks for the document too.
  const io = new IOStreams(jsonMode([...id.split(':'), ...argv]))
  const typed = toConfiguredId(id, config)
  if (typed.startsWith('-') && !found) {
    new Output(io).error(
      plainError(
        'usage',
        `Name a command: \`${config.bin} ${sanitize(typed, 'cell')}\` names none.`,
        `Run \`${config.bin} help\` for a list of available commands.`,
      ),
    )
    throw new Errors.ExitError(EXIT.usage)
  }
  const topic = id.split(':')[0]
  const help = `${config.bin} help${config.findTopic(topic) ? ` ${topic}` : ''}`
  const shown =
    found && `${config.bin} ${found.alias ? found.id : toConfiguredId(found.id, config)}${found.argv.length > 0 ? ` ${found.argv.join(' ')}` : ''}`
  // Asked and answered no: the error then does not ask the same question again.
  let declined = false
  if (found && io.canPrompt() && !io.json) {
    // A guess that changes anything (refund, delete, import...) runs only on a y typed for it: Enter says no, and a
    // --yes on the mistyped line answers the command's own question, never this one. A read may run on Enter.
    const command = found.alias ? undefined : config.findCommand(found.id)
    const readOnly = found.topic || (command !== undefined && effectOf(command, config.pjson.name) === 'reads')
    const question = `"${typed}" is not a ${config.bin} command. Did you mean \`${shown}\`?`
    const yes = await promptYesNo(io, question, readOnly).catch(() => false)
    // An alias runs as typed with its name right: expanded by this hook again.
    if (yes) return found.alias ? hook.call(this, {...options, argv: found.argv, id: found.id}) : run(config, found)
    declined = true
  }
  // A word that names commands of several topics (`stats`): those commands, when no single guess was made.
  const namesakes = found
    ? []
    : config.commands
        .filter((c) => !c.hidden && c.id.includes(':') && c.id.split(':').at(-1) === typed.split(' ')[0])
        .map((c) => c.id.replaceAll(':', ' '))
  const also =
    namesakes.length > 0
      ? ` Commands named ${sanitize(typed.split(' ')[0], 'cell')}: ${namesakes.map((c) => `\`${config.bin} ${c}\``).join(', ')}.`
      : ''
  const message = `"${typed}" is not a ${config.bin} command.${found ? (declined ? '' : ` Did you mean \`${shown}\`?`) : also}`
  // A command of a linked plugin whose folder is gone is "not a command" now: say which plugin, and how to unlink it.
  const gone = missingLinkedPlugins(config.dataDir)
  const missing =
    gone.length === 0
      ? ''
      : ` ${gone.length === 1 ? 'A linked plugin is' : 'Linked plugins are'} missing (${gone.map((p) => `${sanitize(p.name, 'cell')} at ${sanitize(p.root, 'cell')}`).join(', ')}): its commands cannot run. Link it again from where it is now, or remove it with \`${config.bin} plugins unlink ${sanitize(gone[0].root, 'cell')}\`.`
  new Output(io).error(plainError('usage', message, `Run \`${help}\` for a list of available commands.${missing}`))
  throw new Errors.ExitError(EXIT.usage)
}

/** The linked plugins (oclif's user plugin list in its data directory) whose folder no longer holds a package.json. */
function missingLinkedPlugins(dataDir: string): Array<{name: string; root: string}> {
  try {
    const pjson = JSON.parse(readFileSync(join(dataDir, 'package.json'), 'utf8')) as {oclif?: {plugins?: unknown}}
    const plugins = Array.isArray(pjson.oclif?.plugins) ? (pjson.oclif.plugins as Array<Record<string, unknown>>) : []
    return plugins
      .filter((p) => p?.type === 'link' && typeof p.root === 'string' && typeof p.name === 'string' && !existsSync(join(p.root, 'package.json')))
      .map((p) => ({name: p.name as string, root: p.root as string}))
  } catch {
    return []
  }
}

export default hook
