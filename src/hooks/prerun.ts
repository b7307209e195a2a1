/**
 * Before a command runs: `plugins link DIR` (@oclif/plugin-plugins) of a folder that is no plugin is refused here,
 * exit 2 with nothing linked. oclif's own link looks upwards for a package.json when DIR has none, and so links
 * whatever holds the folder: from a checkout, the CLI itself. Every other command passes through at once.
 */
import {existsSync, readFileSync} from 'node:fs'
import {join, resolve} from 'node:path'

import {Errors, type Hook} from '@oclif/core'

/** Why `dir` cannot be linked as a plugin of the CLI at `cliRoot`; undefined when it can. */
export function notAPlugin(dir: string, cliRoot: string): string | undefined {
  const pjsonPath = join(dir, 'package.json')
  if (!existsSync(pjsonPath)) return `${dir} is not a plugin: it holds no package.json`
  let pjson: {name?: unknown; oclif?: unknown}
  try {
    pjson = JSON.parse(readFileSync(pjsonPath, 'utf8')) as typeof pjson
  } catch {
    return `${dir} is not a plugin: its package.json is not valid JSON`
  }
  if (resolve(dir) === resolve(cliRoot)) return `${dir} is commerce itself, not a plugin`
  if (typeof pjson.name !== 'string' || pjson.name === '') return `${dir} is not a plugin: its package.json has no name`
  if (typeof pjson.oclif !== 'object' || pjson.oclif === null)
    return `${dir} is not a plugin: its package.json has no "oclif" section, so it declares no commands`
  return undefined
}

const hook: Hook<'prerun'> = async function ({argv, Command}) {
  // oclif's help command has no --json: said in our words, as the error document a program reads.
  if (Command.id === 'help' && argv.some((a) => a === '--json' || a.startsWith('--jq'))) {
    const [{IOStreams}, {Output, plainError}] = await Promise.all([import('../io/streams.js'), import('../io/output.js')])
    new Output(new IOStreams({json: true})).error(
      plainError(
        'usage',
        '`commerce help` prints help for people and has no --json.',
        'Each command takes --help; `commerce COMMAND --help` describes it.',
      ),
    )
    throw new Errors.ExitError(2)
  }
  if (Command.id !== 'plugins:link') return
  const dir = argv.find((a) => !a.startsWith('-'))
  if (dir === undefined) return
  const problem = notAPlugin(resolve(dir), this.config.root)
  if (problem === undefined) return
  const [{IOStreams}, {jsonMode, Output, plainError}] = await Promise.all([import('../io/streams.js'), import('../io/output.js')])
  const io = new IOStreams(jsonMode(argv))
  new Output(io).error(
    plainError(
      'usage',
      `${problem}.`,
      'A plugin is a folder with a package.json naming it and its commands (see examples/plugin-hello). Nothing was linked.',
    ),
  )
  throw new Errors.ExitError(2)
}

export default hook
