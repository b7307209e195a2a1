import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../base/command.js'
import {replay} from '../../services/webhooks/inbox.js'

export default class WebhooksReplay extends BaseCommand<typeof WebhooksReplay> {
  static args = {id: Args.string({description: 'The event id (evt_...), as `webhooks events` shows it.', required: true})}
  static description = `Send a recorded delivery again: its raw body byte for byte, with its recorded headers.

The recorded X-Service-Signature is sent as it was, so a receiver with a timestamp tolerance may refuse it once it is old; --secret replaces it with a fresh signature. Exit 4 when the inbox has no such event, 1 when the receiver cannot be reached or answers other than 2xx.`
  static examples = [
    '<%= config.bin %> webhooks replay evt_3f9a1c --forward-to http://127.0.0.1:3000/hooks',
    '<%= config.bin %> webhooks replay evt_3f9a1c --forward-to http://127.0.0.1:3000/hooks --secret "$SECRET"',
  ]
  static flags = {
    'forward-to': Flags.string({description: 'Receiver URL to send the delivery to.', required: true}),
    secret: Flags.string({description: 'Sign again with this secret and the current time.'}),
  }

  async run(): Promise<void> {
    const {args, flags, io} = this
    const result = await replay(process.env, {forwardTo: flags['forward-to'], id: args.id, secret: flags.secret})
    await this.output.result(result, () => io.out(`Replayed ${result.id} (${result.type}) to ${result.forward_to} -> ${io.chalk.green(String(result.status))} (${result.duration_ms} ms)`))
  }
}
