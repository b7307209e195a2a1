import {Args} from '@oclif/core'

import {ConfigCommand} from '../../base/config-command.js'
import {outputFlags, profileFlag} from '../../base/flags.js'
import {CONFIG_KEYS, parseKey} from '../../services/config.js'

export default class ConfigUnset extends ConfigCommand<typeof ConfigUnset> {
  static effect = 'local' as const
  static args = {
    key: Args.string({description: `One of ${CONFIG_KEYS.join(', ')}.`, required: true}),
  }

  static baseFlags = {...outputFlags, ...profileFlag}
  static summary = `Remove one setting from the selected profile (exit 0 also when it was not set).`
  static description = `Removing base_url, key_id or key_secret drops the cached token.`
  static examples = ['<%= config.bin %> config unset api_version', '<%= config.bin %> config unset key_secret --profile staging']

  async run(): Promise<void> {
    const {io} = this
    const service = this.settings
    const result = await service.unset(parseKey(this.args.key))
    await this.output.result(result, () =>
      io.info(
        result.removed ? `Removed ${result.key} from profile "${result.profile}".` : `${result.key} was not set in profile "${result.profile}".`,
      ),
    )
  }
}
