/** The signing-secret flags of `webhooks sign`, `verify` and `replay`, declared once with their resolver. */
import {Flags} from '@oclif/core'

import {UsageError} from '../errors.js'
import {readSecret, SECRET_ENV} from '../services/webhooks/signatures.js'
import type {IOStreams} from '../io/streams.js'
import type {ValueShape} from './flags.js'
import {momentOf, zoneCalendar} from './window.js'

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
  since: Flags.string({
    ...({valueType: 'window'} satisfies ValueShape),
    description:
      'Only records received since then: a span back from now, exactly that long (30s, 10m, 2h, 1d, 1w, 6mo), a date (2026-11-01: from its start in the local zone) or a date-time (2026-11-01T08:00, with an offset or in the zone).',
  }),
  type: Flags.string({description: 'Only events of this type (comma-separated or repeated for several).', multiple: true}),
}

/**
 * --since as an instant (ms since the epoch), read by the one window grammar (domain/window-grammar.ts): the inbox does
 * not count by the calendar, so a span goes back exactly that long; a date is the start of that day in the zone.
 */
export async function sinceOf(value: string | undefined, o: {env: NodeJS.ProcessEnv; io: IOStreams; now: number}): Promise<number | undefined> {
  if (value === undefined) return undefined
  return momentOf(await zoneCalendar(o.env, false, o.io), 'since', value, o.now, false)
}
