/**
 * One of the CLI's own commands run with only its own manifest entry (issue 62). oclif's Config.load reads the
 * whole manifest (300 KB) and each core plugin's, and builds the table of every command: about 15 ms of the 100 a
 * command takes after Node's start, for a table the command never reads. When nothing else could take part (no
 * plugin installed or linked, no help or version flag) and the command line names a command of ours that reads no
 * other command (`readsAllCommands`), oclif is given a root plugin holding that one command; its Config, hooks,
 * parser and command class run as ever. Anything else takes oclif's full path. COMMERCE_NO_LEAN_START=1 turns it off.
 *
 * The table of ids and each command's entry are built with the bundle (scripts/lean-start.mjs);
 * test/build/lean-start.test.ts checks that the id read here is oclif's for any command line.
 */
'use strict'
const {readFileSync} = require('node:fs')
const {join} = require('node:path')

/** Where the build writes the lean start's files, inside dist/bundle (scripts/lean-start.mjs). */
const LEAN_DIR = 'lean'

/** The file of a command's own manifest there. */
const leanFile = (id) => `${id.replaceAll(':', '.')}.json`

/**
 * The id oclif reads from `argv` with a space as the topic separator (its normalizeArgv): the words that name a
 * command or a topic, then any others up to a flag, a `name=value`, or the words after a command that takes
 * arguments. `routes.ids` are every command id and alias; `routes.takesArgs` the names of commands that take arguments.
 */
function commandId(argv, routes) {
  if (argv.length === 0) return undefined
  if (argv[0].includes(':') || argv.length === 1) return argv[0]
  const usable = new Set(routes.ids.flatMap((id) => id.split(':').map((_, i, a) => a.slice(0, i + 1).join(':'))))
  const takesArgs = new Set(routes.takesArgs)
  const final = []
  const finalize = (s) => (s ? [...final, s] : final).filter(Boolean).join(':')
  for (const arg of argv) {
    if (usable.has(finalize(arg))) final.push(arg)
    else if (arg.includes('=') || arg.startsWith('-') || takesArgs.has(finalize())) break
    else final.push(arg)
  }
  return finalize() || argv[0]
}

/** Whether the data directory records a plugin (installed or linked); an unreadable record counts as one. */
function anyUserPlugin(dataDir) {
  let text
  try {
    text = readFileSync(join(dataDir, 'package.json'), 'utf8')
  } catch (error) {
    return error.code !== 'ENOENT'
  }
  try {
    const pjson = JSON.parse(text)
    return (pjson?.oclif?.plugins ?? []).length > 0 || Object.keys(pjson?.dependencies ?? {}).length > 0
  } catch {
    return true
  }
}

/** The manifest of the one command this command line runs, when it may run alone; undefined otherwise. */
function leanManifest({argv, dataDir, env, pjson, root}) {
  if (env.COMMERCE_NO_LEAN_START || argv.length === 0) return undefined
  const {oclif} = pjson
  const help = ['--help', ...(oclif.additionalHelpFlags ?? [])]
  for (const arg of argv) {
    if (arg === '--') break
    if (help.includes(arg)) return undefined
  }
  if (['--version', ...(oclif.additionalVersionFlags ?? [])].includes(argv[0])) return undefined
  if (oclif.topicSeparator !== ' ' || oclif.devPlugins || oclif.jitPlugins || anyUserPlugin(dataDir)) return undefined
  const dir = join(root, 'dist', 'bundle', LEAN_DIR)
  try {
    const routes = JSON.parse(readFileSync(join(dir, 'routes.json'), 'utf8'))
    const id = commandId(argv, routes)
    if (!routes.lean.includes(id)) return undefined
    return JSON.parse(readFileSync(join(dir, leanFile(id)), 'utf8'))
  } catch {
    return undefined
  }
}

/**
 * oclif's `plugins` load option (public: a Config given plugins loads no other) holding the root plugin with only
 * `manifest`'s command. oclif's Plugin reads its manifest in `_manifest()`, which this replaces (@oclif/core is
 * pinned; test/build/lean-start.test.ts fails plainly if an upgrade moves it).
 */
async function rootOnly(Plugin, {manifest, pjson, root}) {
  class LeanRoot extends Plugin {
    async _manifest() {
      this.commandIDs = Object.keys(manifest.commands)
      this.hasManifest = true
      return manifest
    }
  }
  const plugin = new LeanRoot({isRoot: true, pjson, root})
  await plugin.load()
  return new Map([[plugin.name, plugin]])
}

module.exports = {anyUserPlugin, commandId, LEAN_DIR, leanFile, leanManifest, rootOnly}
