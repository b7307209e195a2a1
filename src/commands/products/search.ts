import {Args} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {apiVersionFlag, currencyFlag, fieldsFlag, pageFlags, pagerFlag} from '../../base/flags.js'
import {RESOURCE_COLUMNS} from '../../domain/schema.js'
import {checkSearch} from '../../domain/validate.js'
import {searchProducts} from '../../services/products.js'

export default class ProductsSearch extends ApiCommand<typeof ProductsSearch> {
  static operations: readonly OperationId[] = ['searchProducts', 'listProducts']
  static effect = 'reads' as const
  static args = {
    text: Args.string({
      description: 'Search text (at most 120 characters).',
      async parse(input) {
        const problem = checkSearch(input)
        if (problem) throw new Error(`TEXT ${problem}`)
        return input
      },
      required: true,
    }),
  }
  static summary = `Search the catalogue (public).`
  static description = `v2 lists with q; --api-version v1 calls the v1 search operation.`
  static examples = ['<%= config.bin %> products search mug', '<%= config.bin %> products search "tea pot" --currency EUR --json']
  static flags = {
    ...pagerFlag,
    ...fieldsFlag('product', 'list'),
    ...apiVersionFlag,
    currency: currencyFlag({description: 'Show prices converted to this currency.'}),
    page: pageFlags.page,
    'per-page': pageFlags['per-page'],
  }

  async run(): Promise<void> {
    const {args, flags} = this
    const list = searchProducts(await this.ctx.client(), args.text, {
      currency: flags.currency,
      page: flags.page,
      perPage: flags['per-page'],
      version: await this.ctx.apiVersion(),
    })
    await this.output.list(list.records, {columns: RESOURCE_COLUMNS.product, position: list.position})
  }
}
