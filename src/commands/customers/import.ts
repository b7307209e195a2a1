import {Args, Flags} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import {BulkCommand} from '../../base/bulk-command.js'
import {importFlags} from '../../base/bulk-flags.js'
import {apiVersionFlag, yesFlag} from '../../base/flags.js'
import {UsageError} from '../../errors.js'
import {ON_CONFLICT} from '../../domain/bulk-formats.js'

export default class CustomersImport extends BulkCommand<typeof CustomersImport> {
  static operations: readonly OperationId[] = ['listCustomers', 'createCustomer', 'updateCustomer']
  static args = {file: Args.string({description: 'CSV or JSONL file of customers.', required: true})}
  static summary = `Create customers from a CSV or JSONL file, resumably.`
  static description = `Rows: CSV columns email, name, and optional send_invite (true/false), plan, metadata.<key> and metadata (a JSON object); or JSONL objects shaped like the create body ({"email", "name", "send_invite", "metadata"}). The columns an export writes but the service sets (id, status, created_at) are ignored, so \`customers export --format csv\` can be imported as is. The format comes from --format or the file's extension (.csv, .jsonl, .ndjson).

Every row is validated first; bad rows are reported by their line in the file (the CSV header is line 1) and nothing is sent (exit 2), unless --skip-invalid leaves them out. Then rows are created --concurrency at a time, paced together when the service answers 429. A journal in the config directory records each row as it is done: the same command run again after a crash, kill -9 or Ctrl-C goes on where it stopped and creates nothing twice. A taken email is failed (--on-conflict fail, the default), skipped, or updated (v2: PATCH of name and metadata). Rows that leave send_invite unset get an invitation email from the service: the command says how many before sending (and on --dry-run), and on a terminal asks first (--yes, --send-invite or --no-send-invite: no question); --no-send-invite sets send_invite false on those rows. Prints {created, updated, skipped, failed, invalid, already_done}, counting what this run did (already_done: rows an earlier run of the same import had done); exit 1 when a row failed, 130 when interrupted.`
  static examples = [
    '<%= config.bin %> customers import customers.csv',
    '<%= config.bin %> customers import customers.jsonl --on-conflict skip --errors-file failed.csv --json',
    '<%= config.bin %> customers import customers.csv --dry-run',
    '<%= config.bin %> customers import customers.csv --no-send-invite',
  ]
  static flags = {
    ...apiVersionFlag,
    ...importFlags,
    'on-conflict': Flags.option({default: 'fail' as const, description: 'When the email is already taken.', options: ON_CONFLICT})(),
    'send-invite': Flags.boolean({
      allowNo: true,
      description: 'send_invite for rows that leave it unset (default: the service invites; --no-send-invite: no emails).',
    }),
    ...yesFlag,
  }

  async run(): Promise<void> {
    const {flags} = this
    const onConflict = flags['on-conflict']
    if (onConflict === 'update' && (await this.ctx.apiVersion()) !== 'v2')
      throw new UsageError('--on-conflict update needs API v2 (it finds and updates customers); drop --api-version v1.')
    await this.importRecords({file: this.args.file, kind: 'customers', onConflict})
  }
}
