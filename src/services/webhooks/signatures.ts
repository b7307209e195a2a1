/** `webhooks sign` and `webhooks verify`: the signature scheme of src/domain/signature.ts, for scripts. */
import {readFile} from 'node:fs/promises'

import {DEFAULT_TOLERANCE_SECONDS, signPayload, verifySignature, type VerifyFailure} from '../../domain/signature.js'
import {fileProblem, readAll} from '../../domain/files.js'
import {UsageError} from '../../errors.js'
import {option, type OptionRef, phrase, type Text} from '../../domain/phrase.js'

/**
 * The payload as raw bytes (never decoded: a signature covers bytes): a file, or standard input for `-` or no
 * file. A terminal on standard input is refused rather than waited on.
 */
export async function readPayload(file: string | undefined, stdin: NodeJS.ReadStream): Promise<Buffer> {
  if (file !== undefined && file !== '-') {
    try {
      return await readFile(file)
    } catch (error) {
      throw new UsageError(phrase`${option('payloadFile')}: ${fileProblem(error, file)}.`)
    }
  }
  if (stdin.isTTY) throw new UsageError(phrase`No payload: pass ${option('payloadFile')} FILE, or pipe the payload on standard input.`)
  return readAll(stdin)
}

/** Where a signing secret may come from, besides the command line (which `ps` shows). */
export interface SecretSources {
  /** --secret VALUE */
  secret?: string
  /** --secret-file FILE: its first line (a trailing newline is not part of the secret). */
  secretFile?: string
  /** --secret-stdin: the first line of standard input. */
  secretStdin?: boolean
  /** The environment, for COMMERCE_WEBHOOK_SECRET (used when no flag names a source). */
  env?: NodeJS.ProcessEnv
}

export const SECRET_ENV = 'COMMERCE_WEBHOOK_SECRET'

/**
 * The signing secret from exactly one of --secret, --secret-file, --secret-stdin, else COMMERCE_WEBHOOK_SECRET;
 * undefined when none is given. Exit 2 for two sources at once, an unreadable file or an empty secret. The error
 * messages never contain the secret.
 */
export async function readSecret(sources: SecretSources, stdin: NodeJS.ReadStream): Promise<string | undefined> {
  const given = [
    sources.secret !== undefined && option('secret'),
    sources.secretFile !== undefined && option('secretFile'),
    sources.secretStdin && option('secretStdin'),
  ].filter((x): x is OptionRef => Boolean(x))
  if (given.length > 1)
    throw new UsageError(
      phrase`Give the signing secret one way only, not ${given[0]} and ${given[1]}${given.length > 2 ? phrase` and ${given[2]}` : ''}.`,
    )
  let value: string | undefined
  let from: Text
  if (sources.secret !== undefined) {
    value = sources.secret
    from = phrase`${option('secret')}`
  } else if (sources.secretFile !== undefined) {
    from = phrase`${option('secretFile')}`
    try {
      value = firstLine(await readFile(sources.secretFile, 'utf8'))
    } catch (error) {
      throw new UsageError(phrase`${option('secretFile')}: ${fileProblem(error, sources.secretFile)}.`)
    }
  } else if (sources.secretStdin) {
    from = phrase`${option('secretStdin')}`
    if (stdin.isTTY) throw new UsageError(phrase`${option('secretStdin')}: pipe the signing secret on standard input.`)
    value = firstLine((await readAll(stdin)).toString('utf8'))
  } else {
    value = sources.env?.[SECRET_ENV]
    from = SECRET_ENV
    if (value === undefined) return undefined
  }
  if (value.trim() === '') throw new UsageError(phrase`${from}: the signing secret cannot be empty.`)
  return value
}

function firstLine(text: string): string {
  return text.split(/\r?\n/, 1)[0] ?? ''
}

/** Unix seconds as `sign --timestamp` takes them: a non-negative integer of at most 10 digits. */
export function parseTimestamp(text: string): number {
  if (!/^\d{1,10}$/.test(text))
    throw new UsageError(
      phrase`${option('timestamp')} must be unix seconds: a non-negative integer of at most 10 digits, not "${text.slice(0, 40)}".`,
    )
  return Number(text)
}

/** The X-Service-Signature header value; `timestamp` in unix seconds, now by default. */
export function sign(secret: string, payload: Buffer, timestamp?: number): string {
  if (secret === '') throw new UsageError(phrase`${option('secret')} cannot be empty.`)
  return signPayload(secret, payload, timestamp)
}

export interface Verification {
  valid: boolean
  /** Null when valid. */
  reason: VerifyFailure | null
}

export function verify(input: {secret: string; header: string; payload: Buffer; toleranceSeconds?: number}): Verification {
  if (input.secret === '') throw new UsageError(phrase`${option('secret')} cannot be empty.`)
  const result = verifySignature(input.secret, input.header, input.payload, {toleranceSeconds: input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS})
  return {reason: result.reason, valid: result.valid}
}
