import {Args} from '@oclif/core'

import {BaseCommand} from '../base/command.js'
import {aliasCommand} from '../services/aliases.js'

/** What the completion scripts call for a first word that is no command: the command an alias runs, a word a line. */
export default class CompletionAlias extends BaseCommand<typeof CompletionAlias> {
  static effect = 'reads' as const
  static hidden = true
  static args = {name: Args.string({required: true})}
  static summary = `An alias's command for shell completion (used by the scripts of \`commerce autocomplete\`).`

  async run(): Promise<void> {
    const words = await aliasCommand(this.deps.env, this.args.name)
    if (words.length > 0) this.io.out(words.join('\n'))
  }
}
