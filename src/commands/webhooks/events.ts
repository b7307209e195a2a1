import {Flags} from '@oclif/core'
import {pagerFlag} from '../../base/flags.js'

import {BaseCommand} from '../../base/command.js'
import {inboxFilterFlags, sinceOf} from '../../base/webhook-flags.js'
import {formatCount} from '../../domain/text.js'
import {splitEvents} from '../../services/webhooks/endpoints.js'
import {listInboxEvents} from '../../services/webhooks/inbox-queries.js'

const COLUMNS = ['received_at', 'id', 'type', 'forward_status', 'duration_ms', 'forward_error'] as const
/** How many records a terminal shows without --limit. */
const TERMINAL_DEFAULT = 30

export default class WebhooksEvents extends BaseCommand<typeof WebhooksEvents> {
  static effect = 'reads' as const
  static summary = `List the deliveries recorded in the local inbox by \`webhooks listen\`, newest first.`
  static description = `Every verified delivery is recorded (headers, raw body, and the receiver's answer: status, headers, the first 64 KiB of its body, duration, or the error) in webhook-inbox.jsonl in the config directory, keeping the newest 1000 or 16 MiB; each \`webhooks replay\` is recorded too ("replayed": true). A sender retries, so one event may have several records. --status failed keeps the records whose forwarding failed (unreachable, timed out) or whose receiver answered other than 2xx. --json prints the whole records; the table does not. See one event whole with \`webhooks events get EVENT_ID\`.`
  static examples = [
    '<%= config.bin %> webhooks events --limit 5',
    '<%= config.bin %> webhooks events --status failed --since 10m',
    "<%= config.bin %> webhooks events --type order.paid --json | jq -r '.[0].response.body'",
  ]
  static flags = {
    ...pagerFlag,
    ...inboxFilterFlags,
    limit: Flags.integer({char: 'L', description: 'Show only the newest N records.', min: 1}),
    status: Flags.option({
      char: 's',
      description: "Only records with this outcome: failed (not forwarded, or answered other than 2xx), or the receiver's status class.",
      options: ['failed', '2xx', '3xx', '4xx', '5xx'] as const,
    })(),
  }

  async run(): Promise<void> {
    const {flags, io} = this
    // On a terminal, a screenful by default (a pipe or --json gets every record, for scripts).
    const screen = io.tableOutput && !this.output.json && flags.limit === undefined
    const {records, total} = await listInboxEvents(this.deps.env, {
      limit: flags.limit ?? (screen ? TERMINAL_DEFAULT : undefined),
      since: await sinceOf(flags.since, {env: this.deps.env, io, now: this.deps.now()}),
      status: flags.status,
      types: flags.type ? splitEvents(flags.type) : undefined,
    })
    await this.output.list(records as unknown as Array<Record<string, unknown>>, {columns: COLUMNS, whole: ['type']})
    if (screen && total > records.length)
      io.info(`The newest ${records.length} of ${formatCount(total)}; \`--limit ${total}\` shows them all (a pipe and --json always do).`)
  }
}
