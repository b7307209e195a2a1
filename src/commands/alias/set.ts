import {Args} from '@oclif/core'

import {ConfigCommand} from '../../base/config-command.js'
import {sanitize} from '../../io/sanitize.js'
import {setAlias} from '../../services/aliases.js'

export default class AliasSet extends ConfigCommand<typeof AliasSet> {
  static effect = 'local' as const
  static args = {
    name: Args.string({description: 'One word that is not a command or topic.', required: true}),
    expansion: Args.string({
      description: 'What it runs, quoted: a commerce command with its arguments and flags; $1, $2… take the arguments typed after the alias.',
      required: true,
    }),
  }
  static summary = `Create a shortcut for a commerce command.`
  static description = `The alias expands before the command line is parsed, so flags, completion and "did you mean" work on the expansion. $1, $2… are replaced by the arguments typed after the alias; the arguments left over are appended. An alias never shadows a command or a topic (exit 2 naming the clash). Aliases are kept per user in the config file, whatever the profile.`
  static examples = [
    `<%= config.bin %> alias set active 'customers list --status active'`,
    `<%= config.bin %> alias set refund-all 'orders refund $1 --reason "$2" --yes'`,
    `<%= config.bin %> active --limit 5   # customers list --status active --limit 5`,
  ]

  async run(): Promise<void> {
    const {args} = this
    const result = await setAlias(this.store, args.name, args.expansion, this.commandNames())
    await this.output.result(result, () =>
      this.output.success(
        `${result.replaced === undefined ? 'Added' : 'Changed'} alias ${result.name}: \`commerce ${result.name}\` runs \`commerce ${sanitize(result.expansion, 'cell')}\`.`,
      ),
    )
  }
}
