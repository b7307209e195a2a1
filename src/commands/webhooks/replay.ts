import {Args, Flags} from '@oclif/core'

import {ApiCommand} from '../../base/command.js'
import {replay} from '../../services/webhooks/inbox.js'
import {readSecret} from '../../services/webhooks/signatures.js'
import {secretFlags} from '../../base/webhook-flags.js'

export default class WebhooksReplay extends ApiCommand<typeof WebhooksReplay> {
  static args = {id: Args.string({description: 'The event id (evt_...), as `webhooks events` shows it.', required: true})}
  static description = `Send a recorded delivery again: its raw body byte for byte, with its recorded headers.

The delivery is signed afresh (current time) with the secret given (--secret-file, --secret-stdin, COMMERCE_WEBHOOK_SECRET or --secret), else with the secret the profile stores for the endpoint it came to. Only when there is none is the recorded X-Service-Signature sent as it was, with a warning: a receiver with a timestamp tolerance may refuse it once it is old. Exit 4 when the inbox has no such event, 1 when the receiver cannot be reached or answers other than 2xx.`
  static examples = [
    '<%= config.bin %> webhooks replay evt_3f9a1c --forward-to http://127.0.0.1:3000/hooks',
    '<%= config.bin %> webhooks replay evt_3f9a1c --forward-to http://127.0.0.1:3000/hooks --secret-file secret.txt',
  ]
  static flags = {
    'forward-to': Flags.string({description: 'Receiver URL to send the delivery to.', required: true}),
    ...secretFlags,
  }

  async run(): Promise<void> {
    const {args, flags, io} = this
    const secret = await readSecret({env: process.env, secret: flags.secret, secretFile: flags['secret-file'], secretStdin: flags['secret-stdin']})
    const storedSecrets = secret === undefined ? (await this.ctx.profile())?.webhook_secrets : undefined
    const result = await replay(process.env, {forwardTo: flags['forward-to'], id: args.id, secret, storedSecrets})
    if (result.warning) io.warn(result.warning)
    await this.output.result(result, () => io.out(`Replayed ${result.id} (${result.type}) to ${result.forward_to} -> ${io.chalk.green(String(result.status))} (${result.duration_ms} ms)`))
  }
}
