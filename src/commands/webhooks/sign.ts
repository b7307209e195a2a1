import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base/command.js'
import {readPayload, sign} from '../../services/webhooks/signatures.js'

export default class WebhooksSign extends BaseCommand<typeof WebhooksSign> {
  static description = `Print the X-Service-Signature header value for a payload, for testing a receiver.

The payload is signed as raw bytes (a trailing newline counts: prefer printf %s to echo). With --json: {"signature": "t=...,v1=..."}.`
  static examples = [
    '<%= config.bin %> webhooks sign --secret "$SECRET" --payload-file body.json',
    'curl -H "X-Service-Signature: $(<%= config.bin %> webhooks sign --secret "$SECRET" --payload-file body.json)" --data-binary @body.json http://127.0.0.1:3000/hooks',
  ]
  static flags = {
    'payload-file': Flags.string({description: 'File holding the raw payload (- or absent: standard input).'}),
    secret: Flags.string({description: 'The signing secret.', required: true}),
    timestamp: Flags.integer({description: 'Unix seconds to sign with (default: now).', min: 0}),
  }

  async run(): Promise<void> {
    const {flags, io} = this
    const header = sign(flags.secret, await readPayload(flags['payload-file']), flags.timestamp)
    await this.output.result({signature: header}, () => io.out(header))
  }
}
