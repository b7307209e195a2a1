import type {OperationId} from '../../domain/schema.js'
import {BulkCommand} from '../../base/bulk-command.js'
import {exportFlags} from '../../base/bulk-flags.js'
import {apiVersionFlag, jqStreamingRefusal, orderFilterFlags} from '../../base/flags.js'
import {RESOURCE_COLUMNS} from '../../domain/schema.js'
import {listOrdersRequest} from '../../services/orders.js'

export default class OrdersExport extends BulkCommand<typeof OrdersExport> {
  static operations: readonly OperationId[] = ['listOrders']
  static effect = 'reads' as const
  static summary = `Export every matching order, in the service's order, as the list operation returns them.`
  static description = `Records stream as pages of 100 arrive (memory stays flat whatever the count): page 1 first, then the others with --concurrency pages in flight, written in order. JSONL (default): one order per line. CSV: a header row of the order's top-level fields, RFC 4180 quoting, nested values as compact JSON. JSON: one array. (The list operation does not return items, so an order export cannot be imported back as is.)

--output writes an exclusive temporary file beside FILE (mode 0600, never through a link) and renames it at the end, so a failed or interrupted export leaves no partial file. --escape-formulas (CSV) prefixes cells that a spreadsheet would run as formulas (= + - @ tab CR) with ', for files meant to be opened there. With --json and --output, stdout carries {"exported", "output"}; with --json alone, the records as one JSON array. A progress bar is drawn on stderr when it is a terminal (and the records do not go to it).`
  static examples = [
    '<%= config.bin %> orders export > orders.jsonl',
    '<%= config.bin %> orders export --status paid --format csv --output paid.csv',
    "<%= config.bin %> orders export --customer 42 --json | jq 'map(.total) | add'",
  ]
  static fieldFlags = {customer_id: '--customer', status: '--status'}
  static flags = {
    ...apiVersionFlag,
    ...exportFlags,
    ...orderFilterFlags,
  }

  protected jqRefusal(): string {
    return jqStreamingRefusal('commerce orders export')
  }

  async run(): Promise<void> {
    const {flags} = this
    await this.exportRecords({
      // Every row carries money: its unit is a column of an empty export's header too.
      columns: [...RESOURCE_COLUMNS.order, 'money_unit'],
      noun: 'order',
      request: listOrdersRequest({customerId: flags.customer, status: flags.status, version: await this.ctx.apiVersion()}),
    })
  }
}
