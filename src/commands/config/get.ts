import {Args} from '@oclif/core'

import {ConfigCommand} from '../../base/config-command.js'
import {outputFlags, profileFlag} from '../../base/flags.js'
import {CONFIG_KEYS, parseKey} from '../../services/config.js'

export default class ConfigGet extends ConfigCommand<typeof ConfigGet> {
  static effect = 'reads' as const
  static args = {
    key: Args.string({description: `One of ${CONFIG_KEYS.join(', ')}.`, required: true}),
  }

  static baseFlags = {...outputFlags, ...profileFlag}
  static summary = `Print one setting of the selected profile.`
  static description = `key_secret is printed masked (only \`auth token\` prints a credential). An unset key prints nothing and exits 0; api_version shows the default (v2) when unset.`
  static examples = ['<%= config.bin %> config get base_url', '<%= config.bin %> config get api_version --profile staging --json']

  async run(): Promise<void> {
    const {io} = this
    const service = this.settings
    const result = await service.get(parseKey(this.args.key))
    await this.output.result(result, async () => {
      if (result.value === null) io.info(`${result.key} is not set in profile "${await service.profileName()}".`)
      else io.out(result.value)
    })
  }
}
