import {Args} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import type {PickKind} from '../../services/pick-kinds.js'
import {ApiCommand} from '../../base/command.js'
import {currencyFlag, parseIdArg, fieldsFlag} from '../../base/flags.js'
import {RESOURCE_COLUMNS} from '../../domain/schema.js'
import {getProduct} from '../../services/products.js'

export default class ProductsGet extends ApiCommand<typeof ProductsGet> {
  static operations: readonly OperationId[] = ['getProduct']
  static pick: PickKind = 'product'
  static effect = 'reads' as const
  static args = {id: Args.custom<number>({parse: parseIdArg})({description: 'Product id (left out on a terminal: pick one).'})}
  static summary = `Show one product (API v2; public).`
  static examples = ['<%= config.bin %> products get 3', '<%= config.bin %> products get 3 --currency GBP --json']
  static flags = {...fieldsFlag('product'), currency: currencyFlag({description: 'Show the price converted to this currency.'})}

  async run(): Promise<void> {
    // The picker shows prices in the currency asked for, as the result will.
    const id = this.args.id ?? ((await this.pick(() => this.ctx.client(), {currency: this.flags.currency})) as number)
    const product = await getProduct(await this.ctx.client(), id, {currency: this.flags.currency})
    await this.output.record(product, RESOURCE_COLUMNS.product)
  }
}
