/** `webhooks sign` and `webhooks verify`: the signature scheme of src/domain/signature.ts, for scripts. */
import {readFile} from 'node:fs/promises'

import {DEFAULT_TOLERANCE_SECONDS, signPayload, verifySignature, type VerifyFailure} from '../../domain/signature.js'
import {UsageError} from '../../errors.js'

/**
 * The payload as raw bytes (never decoded: a signature covers bytes): a file, or standard input for `-` or no
 * file. A terminal on standard input is refused rather than waited on.
 */
export async function readPayload(file: string | undefined, stdin: NodeJS.ReadStream = process.stdin): Promise<Buffer> {
  if (file !== undefined && file !== '-') {
    try {
      return await readFile(file)
    } catch (error) {
      throw new UsageError(`Cannot read --payload-file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`)
    }
  }
  if (stdin.isTTY) throw new UsageError('No payload: pass --payload-file FILE, or pipe the payload on standard input.')
  const chunks: Buffer[] = []
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer))
  return Buffer.concat(chunks)
}

/**
 * A `--timestamp` as typed: unix seconds, a non-negative integer of at most 10 digits (anything longer is not a
 * time a receiver would accept, and would print in exponent notation).
 */
export function parseTimestamp(text: string): number {
  if (!/^\d{1,10}$/.test(text)) throw new UsageError(`--timestamp must be unix seconds: a non-negative integer of at most 10 digits (got ${JSON.stringify(text.slice(0, 40))}).`)
  return Number(text)
}

/** The X-Service-Signature header value; `timestamp` in unix seconds (as typed, or a number), now by default. */
export function sign(secret: string, payload: Buffer, timestamp?: number | string): string {
  if (secret === '') throw new UsageError('--secret cannot be empty.')
  const seconds = typeof timestamp === 'string' ? parseTimestamp(timestamp) : timestamp
  if (seconds !== undefined && !(Number.isSafeInteger(seconds) && seconds >= 0 && seconds <= 9_999_999_999)) throw new UsageError('--timestamp must be a non-negative integer of at most 10 digits.')
  return signPayload(secret, payload, seconds)
}

export interface Verification {
  valid: boolean
  /** Null when valid. */
  reason: VerifyFailure | null
}

export function verify(input: {secret: string; header: string; payload: Buffer; toleranceSeconds?: number}): Verification {
  if (input.secret === '') throw new UsageError('--secret cannot be empty.')
  const result = verifySignature(input.secret, input.header, input.payload, {toleranceSeconds: input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS})
  return {reason: result.reason, valid: result.valid}
}
