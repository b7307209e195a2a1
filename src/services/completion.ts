/**
 * Shell completion cache. @oclif/plugin-autocomplete writes the completion scripts (bash, zsh, powershell) under
 * <cacheDir>/autocomplete; its `autocomplete` command rebuilds them on every run. This service rebuilds them only
 * when what they are made from changed (CLI and plugin versions, the command manifest), and adds to the bash script
 * what the plugin's bash script lacks: completion of enum flag values (`--currency <TAB>`), from the flags' `options`
 * (the plugin's zsh script already completes those).
 */
import {createHash} from 'node:crypto'
import {stat} from 'node:fs/promises'
import {openOwnFile, readOwnFile} from '../domain/own-file.js'
import {join} from 'node:path'

import {writeFileAtomic} from '../domain/files.js'
// The id arguments completed from the account (`commerce completion-ids KIND`), by command: the one registry.
import type {PickKind} from './pick-kinds.js'
import {servedOperations} from '../domain/schema.js'
import {API_METHODS} from './raw-request.js'

/** The global flag whose value is a profile name (profileFlag in base/flags.ts): completed with the config's names. */
const PROFILE = {char: 'p', name: 'profile'}

/**
 * What `commerce api <TAB>` offers: the operations' paths, from the table the sandbox routes and the OpenAPI
 * document describes (a path with an id, up to it: `/api/v2/customers/`). Static: nothing from a server.
 */
export function apiPaths(): string[] {
  return [...new Set(servedOperations().map(({op, version}) => `/api/${version}${op.path.replace(/\{\w+\}.*$/, '')}`))].sort()
}

/** The bash lines completing a profile name after --profile: those of the config; never a file name. */
function bashProfiles(bin: string): string {
  return `    # A profile name: those of the config (\`${bin} completion-ids profile\`); never a file name.
    if [[ "$__prev" == --${PROFILE.name} || "$__prev" == -${PROFILE.char} ]]; then
      compopt +o default 2>/dev/null
      COMPREPLY=()
      while IFS= read -r __line; do
        [[ "$__line" =~ ^[A-Za-z0-9_.@+-]+$ && "$__line" == "$__cur"* ]] && COMPREPLY+=("$__line")
      done < <("\${COMP_WORDS[0]}" completion-ids profile 2>/dev/null </dev/null)
      return 0
    fi`
}

/** `api`'s method flag (its values completed as the methods). */
const METHOD = {char: 'X', name: 'method'}

/** The bash lines completing `commerce api <TAB>`: the operations' paths (static); one ending in / waits for its id. */
function bashApiPaths(bin: string): string {
  return `    # \`${bin} api <TAB>\`: the operations' paths.
    if [[ "$__cmd" == api ]]; then
      compopt +o default 2>/dev/null
      COMPREPLY=()
      for __line in ${apiPaths().join(' ')}; do [[ "$__line" == "$__cur"* ]] && COMPREPLY+=("$__line"); done
      [[ \${#COMPREPLY[@]} -eq 1 && "\${COMPREPLY[0]}" == */ ]] && compopt -o nospace 2>/dev/null
      return 0
    fi`
}

/** Bumped whenever the script this service appends changes, so that old caches are rebuilt. */
const SCRIPT_VERSION = 6

export interface CompletionFlag {
  char?: string
  name: string
  options?: readonly string[]
}

export interface CompletionCommand {
  flags: readonly CompletionFlag[]
  id: string
  /** The kind of record its id argument completes from (the command's `static pick`). */
  pick?: PickKind
}

/** The commands (their words) whose id argument completes from the account -> the kind of its ids. */
function idCompletions(commands: readonly CompletionCommand[]): Array<[string, PickKind]> {
  return commands.flatMap((c) => (c.pick ? [[c.id.replaceAll(':', ' '), c.pick] as [string, PickKind]] : []))
}

export interface CompletionCacheOptions {
  bin: string
  /** The plugin's cache directory: <config.cacheDir>/autocomplete. */
  cacheDir: string
  commands: readonly CompletionCommand[]
  /** Writes the plugin's scripts (runs its hidden `autocomplete create`). */
  create: () => Promise<void>
  /** Rebuild even when nothing changed. */
  refresh?: boolean
  /** What the scripts are made from: versions, the manifest's text... */
  sources: readonly string[]
  /** The topic separator (' ' or ':'). */
  topicSeparator: string
}

export interface CompletionCacheResult {
  bashScript: string
  rebuilt: boolean
}

function bashQuote(text: string): string {
  return `'${text.replaceAll("'", String.raw`'\''`)}'`
}

/** The words a command line can start with: every command's and topic's first word (anything else may be an alias). */
export function firstWordsOf(commands: readonly CompletionCommand[]): string {
  return [...new Set(commands.map((c) => c.id.split(':')[0]))].sort().join(' ')
}

/** A bash function completing enum flag values, falling back to the plugin's function for everything else. */
export function bashValueCompletion(bin: string, commands: readonly CompletionCommand[], topicSeparator: string): string {
  const name = bin.replaceAll(/[^\w]/g, '_')
  const cases: string[] = []
  for (const command of commands) {
    const id = command.id.replaceAll(':', topicSeparator === ' ' ? ' ' : ':')
    for (const flag of command.flags) {
      if (!flag.options || flag.options.length === 0) continue
      const keys = [`${id} --${flag.name}`, ...(flag.char ? [`${id} -${flag.char}`] : [])].map((k) => bashQuote(k))
      cases.push(`        ${keys.join('|')}) __vals=(${flag.options.map((o) => bashQuote(o)).join(' ')}) ;;`)
    }
  }
  cases.push(`        'api -${METHOD.char}'|'api --${METHOD.name}') __vals=(${API_METHODS.join(' ')}) ;;`)
  const firstWords = firstWordsOf(commands)
  const idCases = idCompletions(commands)
    .map(([command, kind]) => `      ${bashQuote(command)}) __kind=${kind} ;;`)
    .join('\n')
  return `
# Added by ${bin}: completion of enum flag values (a currency after its flag), then the function above.
_${name}_values_autocomplete()
{
  # A first word that is no command may be an alias: complete as its expansion (\`${bin} completion-alias\`).
  if [[ \${COMP_CWORD} -ge 2 && " ${firstWords} " != *" \${COMP_WORDS[1]} "* ]]; then
    local -a __exp
    mapfile -t __exp < <("\${COMP_WORDS[0]}" completion-alias "\${COMP_WORDS[1]}" 2>/dev/null </dev/null)
    if [[ \${#__exp[@]} -gt 0 ]]; then
      COMP_WORDS=("\${COMP_WORDS[0]}" "\${__exp[@]}" "\${COMP_WORDS[@]:2}")
      COMP_CWORD=$(( COMP_CWORD + \${#__exp[@]} - 1 ))
    fi
  fi
  # No data reaches \`compgen -W\`, which would expand \`$(…)\` in it: candidates are matched by prefix in a loop.
  local __cword=\${COMP_CWORD} __prev="\${COMP_WORDS[COMP_CWORD-1]}" __cur="\${COMP_WORDS[COMP_CWORD]}" __cmd="" __i __line
  local -a __vals=()
  if [[ "$__prev" == -* && $__cword -ge 2 ]]; then
    for (( __i=1; __i < __cword - 1; __i++ )); do
      [[ "\${COMP_WORDS[__i]}" == -* ]] && break
      __cmd="\${__cmd:+$__cmd }\${COMP_WORDS[__i]}"
      # The command is the longest run of words that has the flag (arguments may follow it).
      case "$__cmd $__prev" in
${cases.join('\n')}
      esac
    done
    if [[ \${#__vals[@]} -gt 0 ]]; then
      COMPREPLY=()
      for __line in "\${__vals[@]}"; do [[ "$__line" == "$__cur"* ]] && COMPREPLY+=("$__line"); done
      return 0
    fi
${bashProfiles(bin)}
  fi
  # An id argument right after its command: ids from the account (within 1 s, or none; errors never shown).
  if [[ "$__cur" != -* ]]; then
    local __kind=""
    __cmd=""
    for (( __i=1; __i < __cword; __i++ )); do __cmd="\${__cmd:+$__cmd }\${COMP_WORDS[__i]}"; done
    case "$__cmd" in
${idCases}
    esac
${bashApiPaths(bin)}
    if [[ -n "$__kind" ]]; then
      # Each line is \`id:description\`; only an id of the documented shape is offered (completion-ids checks it too).
      # No ids (none, or no answer in time) offers nothing: an id is never a file name (\`-o default\` is for the rest).
      compopt +o default 2>/dev/null
      COMPREPLY=()
      while IFS= read -r __line; do
        __line="\${__line%%:*}"
        [[ "$__line" =~ ^[A-Za-z0-9_-]+$ && "$__line" == "$__cur"* ]] && COMPREPLY+=("$__line")
      done < <("\${COMP_WORDS[0]}" completion-ids "$__kind" 2>/dev/null </dev/null)
      return 0
    fi
  fi
  _${name}_autocomplete "$@"
}

complete -o default -F _${name}_values_autocomplete ${bin}
`
}

/**
 * The plugin's zsh script with the id arguments of the commands that declare `pick` completed from the account, with descriptions.
 * It edits the text @oclif/plugin-autocomplete generates (its version is pinned in package.json): when that text
 * moves, this throws saying so, and test/e2e/autocomplete.test.ts fails with that message.
 */
export function zshWithIds(script: string, bin: string, commands: readonly CompletionCommand[] = []): string {
  const firstWords = firstWordsOf(commands)
  let out = script
  const main = `\n_${bin}() {\n`
  if (!out.includes(main) || !out.trimEnd().endsWith(`\n_${bin}`))
    throw new Error(
      `The zsh script of @oclif/plugin-autocomplete changed: its main function _${bin} is not where src/services/completion.ts expects it.`,
    )
  // The main function, wrapped: a first word that is no command may be an alias, completed as its expansion.
  out = out.replace(main, `\n_${bin}_main() {\n`)
  out = `${out.trimEnd().slice(0, -`_${bin}`.length)}_${bin}() {
  if (( CURRENT > 2 )) && [[ " ${firstWords} " != *" \${words[2]} "* ]]; then
    local -a __exp
    __exp=(\${(f)"$(${bin} completion-alias \${words[2]} 2>/dev/null </dev/null)"})
    if (( \${#__exp} )); then
      words=("\${words[1]}" "\${__exp[@]}" "\${(@)words[3,-1]}")
      (( CURRENT += \${#__exp} - 1 ))
    fi
  fi
  _${bin}_main "$@"
}

_${bin}
`
  for (const [command, kind] of idCompletions(commands)) {
    const words = command.split(' ')
    const sub = words.pop()!
    const start = out.indexOf(`\n_${bin}_${words.join('_')}() {\n`)
    const end = start < 0 ? -1 : out.indexOf('\n}\n', start)
    const at = start < 0 ? -1 : out.indexOf(`"${sub}")`, start)
    const files = at < 0 ? -1 : out.indexOf('"*: :_files"', at)
    if (start < 0 || end < 0 || at < 0 || at > end || files < 0 || files > end)
      throw new Error(`The zsh script of @oclif/plugin-autocomplete changed: \`${command}\` is not where src/services/completion.ts expects it.`)
    out = `${out.slice(0, files)}"*: :{_${bin}_complete_ids ${kind}}"${out.slice(files + '"*: :_files"'.length)}`
  }
  // --profile VALUE: the config's profile names instead of file names.
  const profileFlag = new RegExp(`(\\{-${PROFILE.char},--${PROFILE.name}\\}"\\[[^\\]\\n]*\\]):file:_files"`, 'g')
  if (!profileFlag.test(out))
    throw new Error(
      `The zsh script of @oclif/plugin-autocomplete changed: the ${PROFILE.name} flag is not described where src/services/completion.ts expects it.`,
    )
  out = out.replace(profileFlag, `$1:profile:_${bin}_complete_profiles"`)
  // `api`: its path from the operations, its method from the methods (the plugin offers file names for both).
  const apiStart = out.indexOf('\napi)\n_arguments -S \\\n')
  const apiEnd = apiStart < 0 ? -1 : out.indexOf('"*: :_files" ;;', apiStart)
  const [c, n] = [METHOD.char, METHOD.name]
  const methodSpec = new RegExp(`("\\(-${c} --${n}\\)"\\{-${c},--${n}\\}"\\[[^\\]\\n]*\\]):file:_files"`)
  if (apiStart < 0 || apiEnd < 0 || !methodSpec.test(out.slice(apiStart, apiEnd)))
    throw new Error('The zsh script of @oclif/plugin-autocomplete changed: `api` is not where src/services/completion.ts expects it.')
  const apiBlock = out.slice(apiStart, apiEnd).replace(methodSpec, `$1:method:(${API_METHODS.join(' ')})"`)
  out = `${out.slice(0, apiStart)}${apiBlock}"1: :_${bin}_complete_api_paths" "*: :_files" ;;${out.slice(apiEnd + '"*: :_files" ;;'.length)}`
  const helper = `
# Added by ${bin}: the operations' paths for \`${bin} api\` (one ending in / waits for its id, no space after it).
_${bin}_complete_api_paths() {
  local -a paths
  paths=(${apiPaths().join(' ')})
  compadd -- \${paths:#*/}
  compadd -S '' -- \${(M)paths:#*/}
}
# Added by ${bin}: ids from the account, with what each is (within 1 s, or none; errors never shown).
_${bin}_complete_ids() {
  local -a ids
  ids=(\${(f)"$(${bin} completion-ids $1 2>/dev/null </dev/null)"})
  _describe -t ids 'id' ids
}
_${bin}_complete_profiles() {
  local -a names
  names=(\${(f)"$(${bin} completion-ids profile 2>/dev/null </dev/null)"})
  compadd -a names
}
`
  const firstLine = out.indexOf('\n')
  return `${out.slice(0, firstLine + 1)}${helper}${out.slice(firstLine + 1)}`
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path)
    return true
  } catch {
    return false
  }
}

/** The most a completion script oclif writes can hold (every command's flags): far under this. */
const SCRIPT_MAX_BYTES = 16 * 1024 * 1024

/** Makes sure the completion scripts are there and current; builds them only when needed. */
export async function ensureCompletionCache(options: CompletionCacheOptions): Promise<CompletionCacheResult> {
  const bashScript = join(options.cacheDir, 'functions', 'bash', `${options.bin}.bash`)
  const zshScript = join(options.cacheDir, 'functions', 'zsh', `_${options.bin}`)
  const stampFile = join(options.cacheDir, 'stamp')
  const hash = createHash('sha256').update(String(SCRIPT_VERSION))
  for (const source of options.sources) hash.update('\0').update(source)
  const stamp = hash.digest('hex')
  if (!options.refresh) {
    const previous = await readOwnFile(stampFile, 1024).catch(() => '')
    if (previous.trim() === stamp && (await exists(bashScript)) && (await exists(zshScript))) return {bashScript, rebuilt: false}
  }
  await options.create()
  const bash = await openOwnFile(bashScript, 'append')
  try {
    await bash.write(bashValueCompletion(options.bin, options.commands, options.topicSeparator))
  } finally {
    await bash.close()
  }
  await writeFileAtomic(zshScript, zshWithIds(await readOwnFile(zshScript, SCRIPT_MAX_BYTES), options.bin, options.commands), {mode: 0o644})
  await writeFileAtomic(stampFile, `${stamp}\n`)
  return {bashScript, rebuilt: true}
}
