import type {OperationId} from '../../domain/schema.js'
import {BulkCommand} from '../../base/bulk-command.js'
import {exportFlags} from '../../base/bulk-flags.js'
import {apiVersionFlag, customerFilterFlags, jqStreamingRefusal} from '../../base/flags.js'
import {RATE_LIMITS, RESOURCE_COLUMNS} from '../../domain/schema.js'
import {listCustomersRequest} from '../../services/customers.js'

export default class CustomersExport extends BulkCommand<typeof CustomersExport> {
  static operations: readonly OperationId[] = ['listCustomers']
  static effect = 'reads' as const
  static summary = `Export every matching customer, in the service's order (newest first).`
  static description = `Records stream as pages of 100 arrive (memory stays flat whatever the count): page 1 first, then the others with --concurrency pages in flight, written in order. JSONL (default): one customer per line. CSV: a header row of the customer's top-level fields, RFC 4180 quoting, nested values (metadata) as compact JSON; \`customers import\` reads it back. JSON: one array.

--output writes an exclusive temporary file beside FILE (mode 0600, never through a link) and renames it at the end, so a failed or interrupted export leaves no partial file. --escape-formulas (CSV) prefixes cells that a spreadsheet would run as formulas (= + - @ tab CR) with ', for files meant to be opened there. With --json and --output, stdout carries {"exported", "output"}; with --json alone, the records as one JSON array. A progress bar is drawn on stderr when it is a terminal (and the records do not go to it).`
  static examples = [
    '<%= config.bin %> customers export > customers.jsonl',
    '<%= config.bin %> customers export --format csv --output customers.csv',
    '<%= config.bin %> customers export --status invited --search "@example.com" --json | jq length',
  ]
  static fieldFlags = {q: '--search', status: '--status'}
  static flags = {
    ...apiVersionFlag,
    ...exportFlags,
    ...customerFilterFlags,
  }

  protected jqRefusal(): string {
    return jqStreamingRefusal('commerce customers export')
  }

  async run(): Promise<void> {
    const {flags} = this
    const version = await this.ctx.apiVersion()
    await this.exportRecords({
      columns: RESOURCE_COLUMNS.customer,
      expectedLimit: version === 'v1' ? RATE_LIMITS.v1CustomersList.limit : undefined,
      noun: 'customer',
      request: listCustomersRequest({search: flags.search, status: flags.status, version}),
    })
  }
}
