/**
 * The shapes the sandbox's control path (`/_sandbox/...`) answers with: declared once, for the sandbox that
 * sends them and the CLI commands that read them.
 */

export interface FaultRule {
  id: number
  path: string
  method: string | null
  status: number | null
  retry_after: number | null
  delay_ms: number | null
  drop: boolean
  /** Applications left; null: unlimited (with `rate`, or until cleared). */
  remaining: number | null
  rate: number | null
  random_seed: number | null
  applied: number
}

export interface LogEntry {
  seq: number
  time: string
  method: string
  path: string
  query: string
  status: number
  duration_ms: number
  key_id: string | null
  request_body: unknown
  response_body: unknown
  /** Set when a fault rule shaped the answer. */
  fault?: string
}

export interface SnapshotInfo {
  name: string
  saved_at: string
  customers: number
  orders: number
  refunds: number
  webhooks: number
}
