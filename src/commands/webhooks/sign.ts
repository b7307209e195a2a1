import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base/command.js'
import {UsageError} from '../../errors.js'
import {parseTimestamp, readPayload, readSecret, SECRET_ENV, sign} from '../../services/webhooks/signatures.js'

/** The ways to give a signing secret, shared by sign, verify and replay: the file, stdin and environment ones keep it out of `ps`. */
export const secretFlags = {
  secret: Flags.string({description: `The signing secret (visible in the process list: prefer --secret-file, --secret-stdin or ${SECRET_ENV}).`}),
  'secret-file': Flags.string({description: 'Read the signing secret from the first line of this file.'}),
  'secret-stdin': Flags.boolean({description: 'Read the signing secret from the first line of standard input.'}),
}

export interface SecretFlagValues {
  secret?: string
  'secret-file'?: string
  'secret-stdin'?: boolean
}

/** The secret from the flags or COMMERCE_WEBHOOK_SECRET; exit 2 when there is none. */
export async function requireSecret(flags: SecretFlagValues, payloadFile: string | undefined): Promise<string> {
  if (flags['secret-stdin'] && (payloadFile === undefined || payloadFile === '-'))
    throw new UsageError('--secret-stdin takes standard input: give the payload with --payload-file FILE.')
  const secret = await readSecret({env: process.env, secret: flags.secret, secretFile: flags['secret-file'], secretStdin: flags['secret-stdin']})
  if (secret === undefined) throw new UsageError(`No signing secret: pass --secret-file FILE, --secret-stdin, or set ${SECRET_ENV}.`)
  return secret
}

export default class WebhooksSign extends BaseCommand<typeof WebhooksSign> {
  static description = `Print the X-Service-Signature header value for a payload, for testing a receiver.

The payload is signed as raw bytes (a trailing newline counts: prefer printf %s to echo). With --json: {"signature": "t=...,v1=..."}.`
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
    const secret = await requireSecret(flags, flags['payload-file'])
    const header = sign(secret, await readPayload(flags['payload-file']), timestamp)
    await this.output.result({signature: header}, () => io.out(header))
  }
}
