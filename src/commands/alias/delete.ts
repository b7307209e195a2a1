import {Args} from '@oclif/core'

import {ConfigCommand} from '../../base/config-command.js'
import {deleteAlias} from '../../services/aliases.js'

export default class AliasDelete extends ConfigCommand<typeof AliasDelete> {
  static effect = 'local' as const
  static args = {name: Args.string({description: 'The alias to remove.', required: true})}
  static summary = `Remove an alias.`
  static description = `An unknown name is exit 2. With --json, prints {name, expansion} of the alias removed.`
  static examples = ['<%= config.bin %> alias delete active']

  async run(): Promise<void> {
    const result = await deleteAlias(this.store, this.args.name)
    await this.output.result(result, () => this.output.success(`Removed alias ${result.name} (it ran \`commerce ${result.expansion}\`).`))
  }
}
