import {Args} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import type {PickKind} from '../../services/pick-kinds.js'
import {ApiCommand} from '../../base/command.js'
import {parseIdArg, fieldsFlag} from '../../base/flags.js'
import {RESOURCE_COLUMNS} from '../../domain/schema.js'
import {getOrder} from '../../services/orders.js'

export default class OrdersGet extends ApiCommand<typeof OrdersGet> {
  static operations: readonly OperationId[] = ['getOrder']
  static pick: PickKind = 'order'
  static effect = 'reads' as const
  static args = {id: Args.custom<number>({parse: parseIdArg})({description: 'Order id (left out on a terminal: pick one).'})}
  static summary = `Show one order (API v2).`
  static examples = ['<%= config.bin %> orders get 1001', '<%= config.bin %> orders get 1001 --jq .items']
  static flags = fieldsFlag('order')

  async run(): Promise<void> {
    const id = this.args.id ?? ((await this.pick(() => this.ctx.client())) as number)
    const order = await getOrder(await this.ctx.client(), id)
    await this.output.record(order, [...RESOURCE_COLUMNS.order, 'items'])
  }
}
