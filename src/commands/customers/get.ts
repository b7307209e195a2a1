import {Args, Flags} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import type {PickKind} from '../../services/pick-kinds.js'
import {ApiCommand} from '../../base/command.js'
import {apiVersionFlag, parseIdArg, fieldsFlag} from '../../base/flags.js'
import {CUSTOMER_INCLUDES, RESOURCE_COLUMNS} from '../../domain/schema.js'
import {getCustomer} from '../../services/customers.js'

export default class CustomersGet extends ApiCommand<typeof CustomersGet> {
  static operations: readonly OperationId[] = ['getCustomer']
  static pick: PickKind = 'customer'
  static effect = 'reads' as const
  static args = {id: Args.custom<number>({parse: parseIdArg})({description: 'Customer id (left out on a terminal: pick one).'})}
  static summary = `Show one customer.`
  static examples = ['<%= config.bin %> customers get 42', '<%= config.bin %> customers get 42 --include orders --json']
  static flags = {
    ...fieldsFlag('customer'),
    ...apiVersionFlag,
    include: Flags.option({description: 'Embed a related collection.', options: CUSTOMER_INCLUDES})(),
  }

  async run(): Promise<void> {
    const id = this.args.id ?? ((await this.pick(() => this.ctx.client())) as number)
    const customer = await getCustomer(await this.ctx.client(), id, {include: this.flags.include, version: await this.ctx.apiVersion()})
    await this.output.record(customer, RESOURCE_COLUMNS.customer)
  }
}
