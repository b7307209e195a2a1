import {Args, Flags} from '@oclif/core'

import {ConfigCommand} from '../../base/config-command.js'
import {outputFlags, profileFlag} from '../../base/flags.js'

export default class WebhooksSecret extends ConfigCommand<typeof WebhooksSecret> {
  static effect = 'reads' as const
  static args = {id: Args.string({description: 'Webhook endpoint id (as `webhooks list` shows it).', required: true})}
  static baseFlags = {...outputFlags, ...profileFlag}
  static summary = `Show the signing secret the profile keeps for a webhook endpoint, masked unless --reveal.`
  static description = `webhooks create and webhooks listen keep the signing secret of each endpoint they register in the profile (config.json, mode 0600): this prints it again, for a receiver's configuration. An endpoint a scenario made in the running local sandbox (sandbox seed, start --seed, exec --seed) is asked of the sandbox. Exit 4 when neither holds one for that endpoint. With --json: {"id", "profile", "signing_secret"}.`
  static examples = ['<%= config.bin %> webhooks secret we_3f9a1c', '<%= config.bin %> webhooks secret we_3f9a1c --reveal > secret.txt']
  static flags = {reveal: Flags.boolean({description: 'Print the secret itself instead of a mask.'})}

  async run(): Promise<void> {
    const {args, flags, io} = this
    const result = await this.settings.webhookSecret(args.id, flags.reveal)
    await this.output.result(result, () => {
      io.out(result.signing_secret)
      if (!flags.reveal) io.info('Masked: --reveal prints the secret itself.')
    })
  }
}
