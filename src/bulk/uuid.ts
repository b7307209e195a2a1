/**
 * UUID version 5 (RFC 9562, section 5.5): SHA-1 of a namespace UUID and a name, with the version and variant
 * bits set. Used to derive each imported order's Idempotency-Key from the file and the row, so that the same
 * row of the same file always carries the same key and a rerun can never create the order twice.
 */
import {createHash} from 'node:crypto'
import {canonicalJson} from '../domain/json.js'

/** The namespace of commerce-cli's order import keys (a fixed random UUID; changing it changes every key). */
export const ORDER_IMPORT_NAMESPACE = 'bf5b1335-2f8c-4803-b2e2-07ac749f9e9f'

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function uuidBytes(uuid: string): Buffer {
  if (!UUID_TEXT.test(uuid)) throw new TypeError(`not a UUID: ${uuid}`)
  return Buffer.from(uuid.replaceAll('-', ''), 'hex')
}

export function uuidv5(name: string, namespace: string): string {
  const hash = createHash('sha1').update(uuidBytes(namespace)).update(name, 'utf8').digest()
  const bytes = hash.subarray(0, 16)
  bytes[6] = (bytes[6] & 0x0f) | 0x50
  bytes[8] = (bytes[8] & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * The Idempotency-Key of an imported order: from the file's SHA-256, the row's line number (two identical
 * rows on different lines are two orders) and the row's body.
 */
export function orderRowKey(fileSha256: string, line: number, body: unknown): string {
  return uuidv5(`${fileSha256}:${line}:${canonicalJson(body)}`, ORDER_IMPORT_NAMESPACE)
}
