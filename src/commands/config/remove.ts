import {Args} from '@oclif/core'

import {ConfigCommand} from '../../base/config-command.js'

export default class ConfigRemove extends ConfigCommand<typeof ConfigRemove> {
  static effect = 'local' as const
  static args = {
    name: Args.string({description: 'The profile to remove.', required: true}),
  }

  static summary = `Remove a profile and everything stored in it.`
  static description = `Everything: the key pair, its key secret in the OS keyring, the cached token and the webhook signing secrets. When it was the chosen profile, the choice is unset and commands fall back to "default". The cached token is not revoked: run \`commerce auth logout --profile NAME\` first to revoke it.`
  static examples = ['<%= config.bin %> config remove staging']

  async run(): Promise<void> {
    const {io} = this
    const service = this.settings
    const {had_credentials: hadCredentials, warning, was_chosen: wasChosen, ...result} = await service.remove(this.args.name)
    if (warning) io.warn(warning)
    await this.output.result(result, () => {
      io.info(`Removed profile "${result.profile}".${wasChosen ? ' It was the chosen profile; commands now use "default" unless one is named.' : ''}`)
      if (hadCredentials) io.info('Its token was not revoked and stays valid until it expires.')
    })
  }
}
