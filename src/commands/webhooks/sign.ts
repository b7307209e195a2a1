import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base/command.js'
import {requireSecret, secretFlags} from '../../base/webhook-flags.js'
import {parseTimestamp, readPayload, sign} from '../../services/webhooks/signatures.js'

export default class WebhooksSign extends BaseCommand<typeof WebhooksSign> {
  static effect = 'reads' as const
  static summary = `Print the X-Service-Signature header value for a payload, for testing a receiver.`
  static description = `The payload is signed as raw bytes (a trailing newline counts: prefer printf %s to echo). With --json: {"signature": "t=...,v1=..."}.`
  static examples = [
    '<%= config.bin %> webhooks sign --secret-file secret.txt --payload-file body.json',
    'COMMERCE_WEBHOOK_SECRET=... <%= config.bin %> webhooks sign --payload-file body.json --timestamp 1900000000',
    'curl -H "X-Service-Signature: $(<%= config.bin %> webhooks sign --secret-file secret.txt --payload-file body.json)" --data-binary @body.json http://127.0.0.1:3000/hooks',
  ]
  static flags = {
    'payload-file': Flags.string({description: 'File holding the raw payload (- or absent: standard input).'}),
    ...secretFlags,
    timestamp: Flags.string({description: 'Unix seconds to sign with, at most 10 digits (default: now).'}),
  }

  async run(): Promise<void> {
    const {flags, io} = this
    const timestamp = flags.timestamp === undefined ? undefined : parseTimestamp(flags.timestamp)
    const secret = await requireSecret(flags, flags['payload-file'], this.deps)
    const header = sign(secret, await readPayload(flags['payload-file'], this.deps.stdin), timestamp)
    await this.output.result({signature: header}, () => io.out(header))
  }
}
