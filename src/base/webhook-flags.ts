/** The signing-secret flags of `webhooks sign`, `verify` and `replay`, declared once with their resolver. */
import {Flags} from '@oclif/core'

import {UsageError} from '../errors.js'
import {parseSince} from '../services/webhooks/inbox-queries.js'
import {readSecret, SECRET_ENV} from '../services/webhooks/signatures.js'

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
export async function requireSecret(
  flags: SecretFlagValues,
  payloadFile: string | undefined,
  deps: {env: NodeJS.ProcessEnv; stdin: NodeJS.ReadStream},
): Promise<string> {
  if (flags['secret-stdin'] && (payloadFile === undefined || payloadFile === '-'))
    throw new UsageError('--secret-stdin takes standard input: give the payload with --payload-file FILE.')
  const secret = await readSecret(
    {env: deps.env, secret: flags.secret, secretFile: flags['secret-file'], secretStdin: flags['secret-stdin']},
    deps.stdin,
  )
  if (secret === undefined) throw new UsageError(`No signing secret: pass --secret-file FILE, --secret-stdin, or set ${SECRET_ENV}.`)
  return secret
}

/** The inbox filters shared by `webhooks events` and `webhooks replay --failed`. */
export const inboxFilterFlags = {
  since: Flags.string({description: 'Only records received since then: a duration back from now (30s, 10m, 2h, 1d, 1w) or an ISO date-time.'}),
  type: Flags.string({description: 'Only events of this type (comma-separated or repeated for several).', multiple: true}),
}

/** --since as an instant (ms since the epoch); exit 2 when it is neither form. */
export function sinceOf(value: string | undefined): number | undefined {
  return value === undefined ? undefined : parseSince(value)
}
