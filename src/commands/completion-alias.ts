import {Args} from '@oclif/core'

import {ConfigCommand} from '../base/config-command.js'
import {shellWords} from '../domain/alias.js'
import {listAliases} from '../services/aliases.js'

/** What the completion scripts call for a first word that is no command: the alias's expansion, a word a line. */
export default class CompletionAlias extends ConfigCommand<typeof CompletionAlias> {
  static hidden = true
  static args = {name: Args.string({required: true})}
  static summary = `An alias's expansion for shell completion (used by the scripts of \`commerce autocomplete\`).`

  async run(): Promise<void> {
    const aliases: Record<string, string> = await listAliases(this.store).catch(() => ({}))
    const expansion = aliases[this.args.name] as string | undefined
    if (expansion === undefined) return
    let words: string[] = []
    try {
      words = shellWords(expansion)
    } catch {}
    // Up to the first flag: the command the alias runs, which is what completion continues from.
    const flagAt = words.findIndex((w) => w.startsWith('-'))
    const command = flagAt < 0 ? words : words.slice(0, flagAt)
    if (command.length > 0) this.io.out(command.join('\n'))
  }
}
