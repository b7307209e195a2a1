import {Args} from '@oclif/core'

import {ConfigCommand} from '../../base/config-command.js'
import {outputFlags, profileFlag} from '../../base/flags.js'
import {CONFIG_KEYS, parseKey} from '../../services/config.js'

export default class ConfigSet extends ConfigCommand<typeof ConfigSet> {
  static effect = 'local' as const
  static args = {
    key: Args.string({description: `One of ${CONFIG_KEYS.join(', ')}.`, required: true}),
    value: Args.string({
      description: 'The value (base_url: an http(s) URL; api_version: v1 or v2; money_unit: minor or major, how a terminal shows amounts).',
      required: true,
    }),
  }

  static baseFlags = {...outputFlags, ...profileFlag}
  static summary = `Set one setting of the selected profile, creating the profile when needed.`
  static description = `The first profile ever created becomes the one used when none is named. Changing base_url, key_id or key_secret drops the cached token. Prefer \`commerce auth login\` for key pairs: it checks them, and keeps the secret out of your shell history.`
  static examples = [
    '<%= config.bin %> config set base_url https://commerce.example.com',
    '<%= config.bin %> config set api_version v1 --profile legacy',
    '<%= config.bin %> config set money_unit minor',
  ]

  async run(): Promise<void> {
    const {io} = this
    const key = parseKey(this.args.key)
    const service = this.settings
    const result = await service.set(key, this.args.value)
    const {note, warning, ...shown} = result
    await this.output.result(shown, () => this.output.success(`Set ${key} to ${result.value} in profile "${result.profile}".`))
    if (note) io.info(note)
    if (warning) io.warn(warning)
    if (key === 'key_secret')
      io.warn(
        'the key pair was stored without being checked. Prefer `commerce auth login` (it checks the pair, and `--key-secret-stdin` or its prompt keep the secret out of shell history).',
      )
    const vars = service.overriddenBy(key)
    if (vars.length > 0)
      io.info(`Note: ${vars.join(' and ')} ${vars.length > 1 ? 'are' : 'is'} set in this shell and take${vars.length > 1 ? '' : 's'} precedence.`)
  }
}
