import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {currencyFlag, listFlags, searchFlag} from '../../base/flags.js'
import {RESOURCE_COLUMNS} from '../../domain/schema.js'
import {listProducts} from '../../services/products.js'

export default class ProductsList extends ApiCommand<typeof ProductsList> {
  static operations: readonly OperationId[] = ['listProducts']
  static effect = 'reads' as const
  static summary = `List products in the catalogue (public: no login needed).`
  static examples = [
    '<%= config.bin %> products list',
    '<%= config.bin %> products list --currency EUR --search mug --per-page 50',
    "<%= config.bin %> products list --all --json | jq '.[] | select(.in_stock) | .id'",
  ]
  static flags = {
    ...listFlags('product'),
    currency: currencyFlag({description: 'Show prices converted to this currency.'}),
    search: searchFlag({description: 'Free-text search over name and description (at most 120 characters).'}),
  }

  async run(): Promise<void> {
    const {flags} = this
    const client = await this.ctx.client()
    const list = listProducts(client, {
      all: flags.all,
      currency: flags.currency,
      limit: flags.limit,
      page: flags.page,
      perPage: flags['per-page'],
      search: flags.search,
      version: await this.ctx.apiVersion(),
    })
    await this.output.list(list.records, {columns: RESOURCE_COLUMNS.product, position: list.position})
  }
}
