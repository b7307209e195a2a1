/**
 * The Idempotency-Key of an imported order, named after the file and the row (src/domain/idempotency.ts draws and
 * derives every key), so that the same row of the same file always carries the same key and a rerun can never create
 * the order twice.
 */
import {keyOf} from '../domain/idempotency.js'
import {canonicalJson} from '../domain/json.js'

/** The namespace of commerce-cli's order import keys (a fixed random UUID; changing it changes every key). */
export const ORDER_IMPORT_NAMESPACE = 'bf5b1335-2f8c-4803-b2e2-07ac749f9e9f'

/**
 * The Idempotency-Key of an imported order: from the file's SHA-256, the row's line number (two identical
 * rows on different lines are two orders) and the row's body.
 */
export function orderRowKey(fileSha256: string, line: number, body: unknown): string {
  return keyOf(ORDER_IMPORT_NAMESPACE, `${fileSha256}:${line}:${canonicalJson(body)}`)
}
