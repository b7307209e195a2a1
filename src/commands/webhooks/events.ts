import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base/command.js'
import {listInboxEvents} from '../../services/webhooks/inbox.js'

const COLUMNS = ['received_at', 'id', 'type', 'forward_status', 'duration_ms', 'forward_error'] as const

export default class WebhooksEvents extends BaseCommand<typeof WebhooksEvents> {
  static description = `List the deliveries recorded in the local inbox by \`webhooks listen\`, newest first.

Every verified delivery is recorded (headers and raw body) in webhook-inbox.jsonl in the config directory, keeping the newest 1000 or 16 MiB. --json prints the whole records, bodies included; the table does not.`
  static examples = ['<%= config.bin %> webhooks events --limit 5', '<%= config.bin %> webhooks events --json | jq -r \'.[0].body\'']
  static flags = {
    limit: Flags.integer({description: 'Show only the newest N records.', min: 1}),
  }

  async run(): Promise<void> {
    const {records} = await listInboxEvents(process.env, this.flags.limit)
    await this.output.list(records as unknown as Array<Record<string, unknown>>, {columns: COLUMNS})
  }
}
