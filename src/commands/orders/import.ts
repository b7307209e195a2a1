import {Args} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import {BulkCommand} from '../../base/bulk-command.js'
import {importFlags} from '../../base/bulk-flags.js'
import {apiVersionFlag} from '../../base/flags.js'
import {UsageError} from '../../errors.js'
import {ORDER_EXPECTED_LIMIT} from '../../domain/bulk-formats.js'

export default class OrdersImport extends BulkCommand<typeof OrdersImport> {
  static operations: readonly OperationId[] = ['createOrder']
  static args = {file: Args.string({description: 'CSV or JSONL file of orders.', required: true})}
  static summary = `Create orders from a CSV or JSONL file, resumably and never twice (v2 only).`
  static description = `Rows: CSV columns customer_id, currency, items (PRODUCT_ID[:QUANTITY] entries separated by ";") and optional idempotency_key; or JSONL objects {"customer_id", "currency", "items": [{"product_id", "quantity"}], "idempotency_key"?}. The format comes from --format or the file's extension (.csv, .jsonl, .ndjson).

Every row is validated first; bad rows are reported by their line in the file and nothing is sent (exit 2), unless --skip-invalid leaves them out. Each order's Idempotency-Key is its idempotency_key, or a UUID v5 derived from the file's content and the row, so that no rerun, even after kill -9, creates an order twice. Requests are paced to the order-creation limit (learned from 429 and Retry-After), with the time left on the progress bar. A journal in the config directory lets the same command resume where it stopped. v1 is refused: it has no Idempotency-Key, so a retried row could create a second order. Prints {created, updated, skipped, failed, invalid, already_done}, counting what this run did (already_done: rows an earlier run of the same import had done); exit 1 when a row failed, 130 when interrupted.`
  static examples = [
    '<%= config.bin %> orders import orders.csv',
    '<%= config.bin %> orders import backlog.jsonl --errors-file failed.jsonl --json',
    '<%= config.bin %> orders import orders.csv --dry-run',
  ]
  static flags = {
    ...apiVersionFlag,
    ...importFlags,
  }

  async run(): Promise<void> {
    if ((await this.ctx.apiVersion()) === 'v1')
      throw new UsageError(
        'orders import needs API v2: v1 has no Idempotency-Key, so a retried row could create a second order. Drop --api-version v1.',
      )
    await this.importRecords({expectedLimit: ORDER_EXPECTED_LIMIT, file: this.args.file, kind: 'orders'})
  }
}
