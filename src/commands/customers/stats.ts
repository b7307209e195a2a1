import {ApiCommand} from '../../base/command.js'
import {chartLines, reading, statsFlags, windowOf} from '../../base/stats.js'
import {CUSTOMER_STATUSES} from '../../domain/schema.js'
import {formatCount} from '../../domain/text.js'
import {sanitize} from '../../io/sanitize.js'
import {type CustomerStats, customerStats} from '../../services/stats.js'

export default class CustomersStats extends ApiCommand<typeof CustomersStats> {
  static readOnly = true
  static summary = `New customers per period, by their status now (API v2).`
  static description = `Reads the customers newest first and stops past --since (the list has no date filter; when the service does not list newest first, every page is read). Periods are counted in the local time zone unless --utc.

On a terminal: the totals by status, then a bar chart of new customers per period. On a pipe: tab-separated rows, one per period. --json: the whole series, every period present (zeros where none), and the time zone.`
  static examples = ['<%= config.bin %> customers stats', '<%= config.bin %> customers stats --since 6mo --by month --json']
  static flags = statsFlags

  async run(): Promise<void> {
    const {flags, io} = this
    const window = windowOf(flags, this.deps.now())
    const client = await this.ctx.client()
    const stats = await reading(io, 'customers', (onRecord) => customerStats(client, window, {onRecord}))
    await this.output.result(stats, () => this.human(stats))
  }

  private human(stats: CustomerStats): void {
    const {io} = this
    if (!io.tableOutput) {
      const header = ['period', 'customers', ...CUSTOMER_STATUSES]
      const rows = stats.series.map((p) => [p.period, p.customers, ...CUSTOMER_STATUSES.map((st) => p.by_status[st] ?? 0)])
      io.out([header, ...rows].map((row) => row.map((cell) => sanitize(String(cell), 'tsv')).join('\t')).join('\n'))
      return
    }
    const t = stats.totals
    io.out(
      [
        `New customers ${stats.series[0]?.label ?? ''} to ${stats.series.at(-1)?.label ?? ''}, by ${stats.by} (${stats.time_zone}).`,
        '',
        io.chalk.bold(`${formatCount(t.customers)} new customer${t.customers === 1 ? '' : 's'}`),
        `  ${CUSTOMER_STATUSES.map((st) => `${st} ${formatCount(t.by_status[st] ?? 0)}`).join(' · ')}`,
        ...chartLines(
          io,
          stats.series.map((p) => ({label: p.label, text: formatCount(p.customers), value: p.customers})),
        ),
      ].join('\n'),
    )
  }
}
