import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {pagerFlag} from '../../base/flags.js'
import {chartLines, heading, reading, statsFlags, windowOf} from '../../base/stats-window.js'
import {CUSTOMER_STATUSES} from '../../domain/schema.js'
import {formatCount} from '../../domain/text.js'
import {sanitize} from '../../io/sanitize.js'
import {type CustomerStats, customerStats} from '../../services/stats.js'

export default class CustomersStats extends ApiCommand<typeof CustomersStats> {
  static operations: readonly OperationId[] = ['listCustomers']
  static effect = 'reads' as const
  static summary = `New customers per period, by their status now (API v2).`
  static description = `Reads the customers newest first and stops past --since once the list has shown that order (the list has no date filter; when the service does not list newest first, every page is read). A customer met twice while reading is counted once. Periods are counted in the local time zone (TZ) unless --utc.

On a terminal: the totals by status, then a bar chart of new customers per period. On a pipe: tab-separated rows, one per period. --json: the whole series, every period present (zeros where none), and the time zone.`
  static examples = ['<%= config.bin %> customers stats', '<%= config.bin %> customers stats --since 6mo --by month --json']
  static flags = {...statsFlags, ...pagerFlag}

  async run(): Promise<void> {
    const {flags, io} = this
    const {span, window} = await windowOf(flags, this.deps.now(), this.deps.env, io)
    const client = await this.ctx.client()
    const stats = await reading(io, 'customers', (onRecord) => customerStats(client, window, {onRecord}))
    await this.output.result(stats, () => this.human(stats, span))
  }

  private async human(stats: CustomerStats, span: string): Promise<void> {
    const {io} = this
    if (!io.tableOutput) {
      // `label` and `period` as in --json: the period as the zone names it, and the instant it starts.
      const header = ['label', 'period', 'customers', ...CUSTOMER_STATUSES.map((st) => `status_${st}`)]
      const rows = stats.series.map((p) => [p.label, p.period, p.customers, ...CUSTOMER_STATUSES.map((st) => p.by_status[st] ?? 0)])
      io.out([header, ...rows].map((row) => row.map((cell) => sanitize(String(cell), 'tsv')).join('\t')).join('\n'))
      return
    }
    const t = stats.totals
    await this.output.paged(
      [
        io.wrapped(heading('New customers', span, stats.time_zone, stats.by)),
        '',
        io.chalk.bold(`${formatCount(t.customers)} new customer${t.customers === 1 ? '' : 's'}`),
        io.wrapped(`  ${CUSTOMER_STATUSES.map((st) => `${st} ${formatCount(t.by_status[st] ?? 0)}`).join(' · ')}`, 2),
        ...chartLines(
          io,
          stats.series.map((p) => ({label: p.label, text: formatCount(p.customers), value: p.customers})),
        ),
      ].join('\n'),
    )
  }
}
