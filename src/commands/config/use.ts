import {Args} from '@oclif/core'

import {BaseCommand} from '../../base/command.js'
import {configDir} from '../../config/paths.js'
import {ConfigService} from '../../services/config.js'

export default class ConfigUse extends BaseCommand<typeof ConfigUse> {
  static args = {
    name: Args.string({description: 'An existing profile (see `config profiles`).', required: true}),
  }

  static description = `Choose the profile that commands use when neither --profile nor COMMERCE_PROFILE names one.
The profile must exist (exit 2 otherwise): create it with \`auth login --profile NAME\` or \`config set ... --profile NAME\`.`
  static examples = ['<%= config.bin %> config use staging']

  async run(): Promise<void> {
    const {io} = this
    const service = new ConfigService({dir: configDir(process.env), env: process.env})
    const result = await service.use(this.args.name)
    await this.output.result(result, () => this.output.success(`Commands now use profile "${result.profile}" when none is named.`))
    const fromEnv = process.env.COMMERCE_PROFILE
    if (fromEnv && fromEnv !== result.profile) io.warn(`COMMERCE_PROFILE=${fromEnv} is set in this shell and takes precedence.`)
  }
}
