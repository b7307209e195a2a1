import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {listFlags, orderFilterFlags} from '../../base/flags.js'
import {RESOURCE_COLUMNS} from '../../domain/schema.js'
import {listOrders} from '../../services/orders.js'

export default class OrdersList extends ApiCommand<typeof OrdersList> {
  static operations: readonly OperationId[] = ['listOrders']
  static effect = 'reads' as const
  static summary = `List orders, newest first.`
  static examples = ['<%= config.bin %> orders list --status paid', '<%= config.bin %> orders list --customer 42 --all --json']
  static fieldFlags = {customer_id: '--customer', status: '--status'}
  static flags = {...listFlags('order'), ...orderFilterFlags}

  async run(): Promise<void> {
    const {flags} = this
    const list = listOrders(await this.ctx.client(), {
      all: flags.all,
      customerId: flags.customer,
      limit: flags.limit,
      page: flags.page,
      perPage: flags['per-page'],
      status: flags.status,
      version: await this.ctx.apiVersion(),
    })
    await this.output.list(list.records, {columns: RESOURCE_COLUMNS.order, position: list.position})
  }
}
