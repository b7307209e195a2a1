/**
 * The bulk formats and limits, shared by the flags (src/base/bulk-flags.ts) and the engine (src/bulk).
 */
import {LIMITS, RATE_LIMITS} from './schema.js'

export const EXPORT_FORMATS = ['jsonl', 'csv', 'json'] as const
export const IMPORT_FORMATS = ['csv', 'jsonl', 'json'] as const
export type ImportFormat = (typeof IMPORT_FORMATS)[number]

/** customers import --on-conflict: what a taken email does to its row. */
export const ON_CONFLICT = ['fail', 'skip', 'update'] as const
export type OnConflict = (typeof ON_CONFLICT)[number]

export const EXPORT_PER_PAGE = LIMITS.perPage.max
export const MAX_CONCURRENCY = 16
/** The documented order-creation limit: past it, before a 429, order requests go one at a time. */
export const ORDER_EXPECTED_LIMIT = RATE_LIMITS.orderCreate.limit

/**
 * The most bytes one line of an import file may hold. The service takes request bodies of up to 1 MiB; a row
 * between that and this bound is sent and refused (413, a failed row), a longer one is an invalid row, read
 * without ever holding more than this in memory.
 */
export const MAX_RECORD_BYTES = 4 * 1024 * 1024

/**
 * The deepest nesting of objects and arrays the service takes in a request body (the body itself is level 1):
 * a row nesting deeper is invalid, never sent.
 */
export const MAX_JSON_DEPTH = 32

export interface OrderItemInput {
  product_id?: number
  quantity?: number
}

/** `PRODUCT_ID[:QUANTITY]` (the CSV `items` column's entries, and `--item`), or undefined when malformed. */
export function parseItemSpec(spec: string): OrderItemInput | undefined {
  const m = /^\s*(\d+)\s*(?::\s*(\d+)\s*)?$/.exec(spec)
  if (!m) return undefined
  const item: OrderItemInput = {product_id: Number(m[1])}
  if (m[2] !== undefined) item.quantity = Number(m[2])
  return item
}
