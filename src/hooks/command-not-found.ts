/**
 * An unknown command: "did you mean" the nearest one, by edit distance over command ids.
 *
 * This replaces @oclif/plugin-not-found, which prompts whenever stdin is a terminal (also when CI is set) and
 * exits 127; the contract says nothing prompts under CI and that invalid usage is exit 2. On a terminal that
 * may prompt, it offers to run the suggestion; otherwise it names it and exits 2 (a JSON error with --json).
 */
import {Errors, type Hook, toConfiguredId} from '@oclif/core'

import {EXIT} from '../errors.js'
import {jsonRequested, Output} from '../io/output.js'
import {closest} from '../io/suggest.js'
import {IOStreams} from '../io/streams.js'

const hook: Hook<'command_not_found'> = async function (options) {
  const {config} = options
  const argv = options.argv ?? []
  const io = new IOStreams({json: jsonRequested(argv)})
  const ids = config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases])
  const suggestion = closest(options.id, ids)
  const typed = toConfiguredId(options.id, config)
  const topic = options.id.split(':')[0]
  const help = `${config.bin} help${config.findTopic(topic) ? ` ${topic}` : ''}`

  if (suggestion && io.canPrompt() && !io.json) {
    const {confirm} = await import('@inquirer/prompts')
    const yes = await confirm(
      {default: true, message: `"${typed}" is not a ${config.bin} command. Did you mean \`${config.bin} ${toConfiguredId(suggestion, config)}\`?`},
      {output: io.stderr},
    ).catch(() => false)
    if (yes) return config.runCommand(suggestion, argv)
  }
  const message = `"${typed}" is not a ${config.bin} command.${suggestion ? ` Did you mean \`${config.bin} ${toConfiguredId(suggestion, config)}\`?` : ''}`
  new Output(io).error({hint: io.json ? undefined : `Run \`${help}\` for a list of available commands.`, message, status: null})
  throw new Errors.ExitError(EXIT.usage)
}

export default hook
