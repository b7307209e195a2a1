import {Flags} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {currencyFlag, pagerFlag} from '../../base/flags.js'
import {chartLines, heading, reading, statsFlags, windowOf} from '../../base/stats-window.js'
import {formatCount} from '../../domain/text.js'
import {sanitize} from '../../io/sanitize.js'
import {fitCells} from '../../io/width.js'
import {formatMoney} from '../../io/values.js'
import {type TopProducts, topProducts} from '../../services/top.js'

export default class ProductsTop extends ApiCommand<typeof ProductsTop> {
  static operations: readonly OperationId[] = ['listOrders', 'getOrder', 'listProducts']
  static effect = 'reads' as const
  static summary = `The products that sold most over a window: units and revenue, per currency (API v2).`
  static description = `Counts the items of the orders placed in the window (found as \`orders stats\` finds them; each order's items are read with it, a few at a time, where the list does not carry them). Revenue is quantity times unit price, refunds not subtracted (they are not tied to items). If an order's items cannot be read, the command fails rather than print a revenue short by that order; an order whose items do not hold together is not counted, and the count says so.

On a terminal: per currency, the products by revenue with a bar each. On a pipe: tab-separated rows. --json: every figure, amounts in the service's money unit with their currency and the unit as the profile states it (money_unit: minor, major or unknown).`
  static examples = [
    '<%= config.bin %> products top',
    '<%= config.bin %> products top --since 7d --currency EUR --limit 5 --json',
    '<%= config.bin %> products top --rank units',
  ]
  static flags = {
    ...pagerFlag,
    since: statsFlags.since,
    until: statsFlags.until,
    utc: statsFlags.utc,
    currency: currencyFlag({description: 'Only orders in this currency.'}),
    limit: Flags.integer({char: 'L', default: 10, description: 'How many products per currency.', min: 1}),
    rank: Flags.option({
      default: 'revenue' as const,
      description: 'Rank products by revenue or by units sold.',
      options: ['revenue', 'units'] as const,
    })(),
  }

  async run(): Promise<void> {
    const {flags, io} = this
    // The window's periods are not shown, only its edges: months, so that a long window is not refused for its days.
    const {span, window} = await windowOf({...flags, by: 'month'}, this.deps.now(), this.deps.env, io)
    const client = await this.ctx.client()
    const found = await reading(io, 'orders', (onRecord) =>
      topProducts(client, window, {currency: flags.currency, limit: flags.limit, onRecord, rank: flags.rank}),
    )
    const top = {money_unit: await this.moneyUnit(), ...found}
    await this.output.result(top, () => this.human(top, span))
  }

  private async human(top: TopProducts, span: string): Promise<void> {
    const {io} = this
    const money = (n: number, currency: string) => formatMoney(n, currency, io.values.moneyUnit)
    if (!io.tableOutput) {
      const header = ['currency', 'rank', 'product_id', 'name', 'units', 'revenue', 'orders']
      const rows = top.currencies.flatMap((c) =>
        c.products.map((p, i) => [c.currency, i + 1, p.product_id, p.name ?? '', p.units, p.revenue, p.orders]),
      )
      io.out([header, ...rows].map((row) => row.map((cell) => sanitize(String(cell), 'tsv')).join('\t')).join('\n'))
      return
    }
    const lines = [io.wrapped(heading(`Products sold by ${top.rank === 'units' ? 'units' : 'revenue'}`, span, top.time_zone))]
    // A name takes at most a third of the terminal, cut with … (the id before it tells products apart).
    const nameWidth = Math.max(12, Math.floor(io.width() / 3))
    if (top.currencies.length === 0) lines.push('No orders in this window.')
    for (const c of top.currencies) {
      lines.push('', io.chalk.bold(sanitize(c.currency, 'cell')))
      lines.push(
        ...chartLines(
          io,
          c.products.map((p) => ({
            label: fitCells(sanitize(`id ${p.product_id} ${p.name ?? ''}`.trimEnd(), 'cell'), nameWidth),
            text: `${money(p.revenue, c.currency)} (${formatCount(p.units)} sold)`,
            value: top.rank === 'units' ? p.units : p.revenue,
          })),
        ),
      )
    }
    await this.output.paged(lines.join('\n'))
  }
}
