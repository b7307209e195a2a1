import {Args} from '@oclif/core'

import {ApiCommand} from '../../base/command.js'
import {CUSTOMER_FIELD_FLAGS, customerFieldFlags} from '../../base/customer-flags.js'
import {customerStatusFlag, parseIdArg, fieldsFlag} from '../../base/flags.js'
import {RESOURCE_COLUMNS} from '../../domain/schema.js'
import {UsageError} from '../../errors.js'
import {updateCustomer} from '../../services/customers.js'

export default class CustomersUpdate extends ApiCommand<typeof CustomersUpdate> {
  static args = {id: Args.custom<number>({parse: parseIdArg})({description: 'Customer id (left out on a terminal: pick one).'})}
  static summary = `Change a customer (API v2).`
  static examples = [
    '<%= config.bin %> customers update 42 --status archived',
    '<%= config.bin %> customers update 42 --name "Ada King" --plan enterprise',
  ]
  static fieldFlags = CUSTOMER_FIELD_FLAGS
  static flags = {...fieldsFlag('customer'), ...customerFieldFlags, status: customerStatusFlag()}

  async run(): Promise<void> {
    const id = this.args.id ?? ((await this.pick('customer', () => this.ctx.client())) as number)
    const {flags} = this
    if ([flags.email, flags.metadata, flags.name, flags.plan, flags.status].every((v) => v === undefined))
      throw new UsageError('Nothing to change: pass at least one of --email, --name, --status, --plan, --metadata.')
    const customer = await updateCustomer(await this.ctx.client(), id, {
      email: flags.email,
      metadata: flags.metadata,
      name: flags.name,
      plan: flags.plan,
      status: flags.status,
    })
    this.output.success(`Updated customer ${customer.id}.`)
    await this.output.record(customer, RESOURCE_COLUMNS.customer)
  }
}
