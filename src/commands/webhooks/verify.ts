import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base/command.js'
import {DEFAULT_TOLERANCE_SECONDS, describeVerifyFailure} from '../../domain/signature.js'
import {readPayload, verify} from '../../services/webhooks/signatures.js'
import {requireSecret, secretFlags} from '../../base/webhook-flags.js'

export default class WebhooksVerify extends BaseCommand<typeof WebhooksVerify> {
  static exitCodes = {'0': 'the signature is valid', '1': 'it is not'}
  static effect = 'reads' as const
  static summary = `Check an X-Service-Signature header against a payload and a signing secret.`
  static description = `Exit 0 when valid; 1 when not (missing or malformed header, no v1= entry matching, or a timestamp outside the tolerance, in either direction). The payload is read as raw bytes: a trailing newline counts. With --json: {"valid": true|false, "reason": null|"missing"|"malformed"|"mismatch"|"too_old"|"too_new"}.`
  static examples = [
    '<%= config.bin %> webhooks verify --secret-file secret.txt --signature "$HEADER" --payload-file body.json',
    'printf %s "$BODY" | COMMERCE_WEBHOOK_SECRET=... <%= config.bin %> webhooks verify --signature "$HEADER" --json',
  ]
  static flags = {
    'payload-file': Flags.string({description: 'File holding the raw payload (- or absent: standard input).'}),
    ...secretFlags,
    signature: Flags.string({description: 'The X-Service-Signature header value: t=<unix seconds>,v1=<hex>[,v1=<hex>...].', required: true}),
    tolerance: Flags.integer({default: DEFAULT_TOLERANCE_SECONDS, description: 'Seconds the timestamp may differ from now, either way.', min: 0}),
  }

  async run(): Promise<void> {
    const {flags, io} = this
    const secret = await requireSecret(flags, flags['payload-file'], this.deps)
    const payload = await readPayload(flags['payload-file'], this.deps.stdin)
    const result = verify({header: flags.signature, payload, secret, toleranceSeconds: flags.tolerance})
    await this.output.result(result, () =>
      result.valid ? io.out('Signature is valid.') : io.info(io.chalk.red('Signature is not valid: ') + describeVerifyFailure(result.reason!)),
    )
    if (!result.valid) this.exit(1)
  }
}
