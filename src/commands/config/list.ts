import {ConfigCommand} from '../../base/config-command.js'
import {outputFlags, profileFlag} from '../../base/flags.js'
import {CONFIG_KEYS} from '../../services/config.js'

export default class ConfigList extends ConfigCommand<typeof ConfigList> {
  static effect = 'reads' as const
  static baseFlags = {...outputFlags, ...profileFlag}
  static summary = `Show the settings of the selected profile, secrets masked.`
  static description = `Also shows whether a token is cached, and the webhook endpoints whose signing secrets are stored.`
  static examples = ['<%= config.bin %> config list', '<%= config.bin %> config list --profile staging --json']

  async run(): Promise<void> {
    const {io} = this
    const service = this.settings
    const listing = await service.list()
    await this.output.result(listing, async () => {
      await this.output.record({...listing})
      if (!(await service.exists()))
        io.info(`Profile "${listing.profile}" does not exist yet; \`commerce config set\` or \`commerce auth login\` creates it.`)
      for (const key of CONFIG_KEYS) {
        const vars = service.overriddenBy(key)
        if (vars.length > 0)
          io.info(`Note: ${vars.join(' and ')} ${vars.length > 1 ? 'are' : 'is'} set and take${vars.length > 1 ? '' : 's'} precedence over ${key}.`)
      }
    })
  }
}
