/**
 * How a create is made safe to repeat, for every surface (`orders create`, `commerce mcp`, an import, fixtures): the
 * one module that draws or derives an Idempotency-Key, and the one that says whether an answer was a replay.
 *
 * - A create gets a fresh random key (UUID v4) unless the caller gives one, or names one: a name (`--idempotency-name`,
 *   MCP's `idempotency_name`) is a UUID v5 of its normalised text, the same on every machine and in every process, so
 *   that a retry which never saw the key drawn for it can still repeat the request exactly.
 * - A key is never derived from the content of the request alone: two real purchases of the same things are two
 *   orders. The bulk engine and fixtures name their keys after the file and row, or the run and entry: names too.
 * - "replayed" is said only when the service says so (`Idempotent-Replayed: true`), or when the caller chose the key
 *   and the record returned predates the request (a real service need not send the header). A fresh key cannot replay.
 */
import {createHash, randomUUID} from 'node:crypto'

import {readTimestamp} from './timestamp.js'
import {isUuid} from './validate.js'

/**
 * UUID version 5 (RFC 9562, section 5.5): SHA-1 of a namespace UUID and a name, with the version and variant bits set.
 */
export function uuidv5(name: string, namespace: string): string {
  if (!isUuid(namespace)) throw new TypeError(`not a UUID: ${namespace}`)
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
    .update(name, 'utf8')
    .digest()
  const bytes = hash.subarray(0, 16)
  bytes[6] = (bytes[6] & 0x0f) | 0x50
  bytes[8] = (bytes[8] & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** The namespace of named keys: fixed, so that one name gives one key on every machine, in every run, on every surface. */
const NAMED_NAMESPACE = 'e07df17f-6885-4be1-8048-13b1e35953ae'

/** A name as it is keyed: Unicode NFC, outer white space dropped (`"run 7/order "` and `"run 7/order"` are one name). */
export const normaliseName = (name: string): string => name.normalize('NFC').trim()

/** The Idempotency-Key a name stands for (`"$GITHUB_RUN_ID/order"`): a UUID v5 of the normalised name. */
export function keyNamed(name: string): string {
  return uuidv5(normaliseName(name), NAMED_NAMESPACE)
}

/** A key of the engine's own, named by what identifies the row or entry (`namespace` per engine). */
export const keyOf = (namespace: string, name: string): string => uuidv5(name, namespace)

/** A key for a create nobody keyed: fresh and random, so that it can never collide with another create. */
export const freshKey = (): string => randomUUID()

export interface KeyChoice {
  key: string
  /** The caller gave or named it: a repeat of the request is expected to replay. */
  chosen: boolean
}

/** The key of one create: the one given, else the one a name stands for, else a fresh one. */
export function keyFor(choice: {key?: string; name?: string}): KeyChoice {
  if (choice.key !== undefined) return {chosen: true, key: choice.key}
  if (choice.name !== undefined) return {chosen: true, key: keyNamed(choice.name)}
  return {chosen: false, key: freshKey()}
}

/** How much earlier than our request a record must have been made to be an earlier one (the clocks may differ). */
const REPLAY_MARGIN_MS = 60_000

/** Whether the answer to a create is the record an earlier request made with the same key. */
export function wasReplayed(answer: {headers: Record<string, string>; madeAt: unknown; sentAt: number; chosen: boolean}): boolean {
  if (/^true$/i.test(answer.headers['idempotent-replayed'] ?? '')) return true
  if (!answer.chosen) return false
  const made = readTimestamp(answer.madeAt)
  return made !== undefined && made < answer.sentAt - REPLAY_MARGIN_MS
}
