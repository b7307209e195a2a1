import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {currencyFlag, pagerFlag} from '../../base/flags.js'
import {chartLines, heading, reading, statsFlags, windowOf} from '../../base/stats-window.js'
import {ORDER_STATUSES} from '../../domain/schema.js'
import {formatCount} from '../../domain/text.js'
import {sanitize} from '../../io/sanitize.js'
import {formatMoney} from '../../io/values.js'
import {type OrderStats, orderStats} from '../../services/stats.js'

export default class OrdersStats extends ApiCommand<typeof OrdersStats> {
  static operations: readonly OperationId[] = ['listOrders']
  static effect = 'reads' as const
  static summary = `Orders, gross, refunded and net per period, per currency (API v2).`
  static description = `Reads the orders newest first and stops past --since once the list has shown that order (the list has no date filter; when the service does not list newest first, every page is read). An order met twice while reading is counted once; one that does not hold together (an amount that is not a whole number) is not counted, and the count says so. Periods are counted in the local time zone (TZ) unless --utc.

Refunds count in the period in which their order was placed, whenever they were made: "refunded" is what has been refunded so far of the orders placed in the period.

On a terminal: each currency's totals and counts by status, then a bar chart of its gross per period. On a pipe: tab-separated rows, one per currency and period. --json: the whole series, every period present (zeros where no order; a window with no order and no --currency is one series whose currency is null), amounts in the service's money unit with their currency, the unit as the profile states it (money_unit: minor, major or unknown), refunds_counted_by, and the time zone.`
  static examples = [
    '<%= config.bin %> orders stats',
    '<%= config.bin %> orders stats --since 12w --by week --currency EUR',
    "<%= config.bin %> orders stats --since 2026-11-01 --until 2026-11-30 --utc --json | jq '.currencies[].totals'",
  ]
  static flags = {...pagerFlag, ...statsFlags, currency: currencyFlag({description: 'Only orders in this currency.'})}

  async run(): Promise<void> {
    const {flags, io} = this
    const {span, window} = await windowOf(flags, this.deps.now(), this.deps.env, io)
    const client = await this.ctx.client()
    const found = await reading(io, 'orders', (onRecord) => orderStats(client, window, {currency: flags.currency, onRecord}))
    const stats = {money_unit: await this.moneyUnit(), ...found}
    await this.output.result(stats, () => this.human(stats, span))
  }

  private async human(stats: OrderStats, span: string): Promise<void> {
    const {io} = this
    const money = (n: number, currency: string) => formatMoney(n, currency, io.values.moneyUnit)
    if (!io.tableOutput) {
      // The status counts are prefixed: `refunded` is also the amount refunded. `label` and `period` as in --json: the
      // period as the zone names it, and the instant it starts.
      const header = ['label', 'period', 'currency', 'orders', 'gross', 'refunded', 'net', ...ORDER_STATUSES.map((st) => `status_${st}`)]
      const rows = stats.currencies.flatMap((c) =>
        c.series.map((p) => [
          p.label,
          p.period,
          c.currency ?? '',
          p.orders,
          p.gross,
          p.refunded,
          p.net,
          ...ORDER_STATUSES.map((st) => p.by_status[st] ?? 0),
        ]),
      )
      io.out([header, ...rows].map((row) => row.map((cell) => sanitize(String(cell), 'tsv')).join('\t')).join('\n'))
      return
    }
    // Summary lines wrap at words on a narrow terminal (the chart fits itself).
    const lines = [io.wrapped(heading('Orders placed', span, stats.time_zone, stats.by))]
    const seen = stats.currencies.filter((c): c is typeof c & {currency: string} => c.currency !== null)
    if (seen.length === 0) lines.push('No orders in this window.')
    for (const c of seen) {
      const currency = sanitize(c.currency, 'cell')
      const t = c.totals
      lines.push(
        '',
        io.chalk.bold(
          io.wrapped(
            `${currency}: ${formatCount(t.orders)} order${t.orders === 1 ? '' : 's'}, gross ${money(t.gross, c.currency)}, refunded ${money(t.refunded, c.currency)}, net ${money(t.net, c.currency)}`,
            2,
          ),
        ),
        io.wrapped(`  ${ORDER_STATUSES.map((st) => `${st} ${formatCount(t.by_status[st] ?? 0)}`).join(' · ')}`, 2),
        ...chartLines(
          io,
          c.series.map((p) => ({label: p.label, text: `${money(p.gross, c.currency)} (${formatCount(p.orders)})`, value: p.gross})),
        ),
      )
    }
    await this.output.paged(lines.join('\n'))
  }
}
