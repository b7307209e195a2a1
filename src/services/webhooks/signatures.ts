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

/** The X-Service-Signature header value; `timestamp` in unix seconds, now by default. */
export function sign(secret: string, payload: Buffer, timestamp?: number): string {
  if (secret === '') throw new UsageError('--secret cannot be empty.')
  return signPayload(secret, payload, timestamp)
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
