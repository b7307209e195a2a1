import {Args} from '@oclif/core'

import {ConfigCommand} from '../../base/config-command.js'

export default class ConfigUse extends ConfigCommand<typeof ConfigUse> {
  static effect = 'local' as const
  static args = {
    name: Args.string({description: 'An existing profile (see `config profiles`).', required: true}),
  }

  static summary = `Choose the profile that commands use when neither --profile nor COMMERCE_PROFILE names one.`
  static description = `The profile must exist (exit 2 otherwise): create it with \`auth login --profile NAME\` or \`config set ... --profile NAME\`.`
  static examples = ['<%= config.bin %> config use staging']

  async run(): Promise<void> {
    const {io} = this
    const service = this.settings
    const result = await service.use(this.args.name)
    await this.output.result(result, () => this.output.success(`Commands now use profile "${result.profile}" when none is named.`))
    const fromEnv = this.deps.env.COMMERCE_PROFILE
    if (fromEnv && fromEnv !== result.profile) io.warn(`COMMERCE_PROFILE=${fromEnv} is set in this shell and takes precedence.`)
  }
}
