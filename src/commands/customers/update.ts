import {Args} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import type {PickKind} from '../../services/pick-kinds.js'
import {ApiCommand} from '../../base/command.js'
import {CUSTOMER_FIELD_FLAGS, customerFieldFlags} from '../../base/customer-flags.js'
import {customerStatusFlag, dryRunFlag, fieldsFlag, parseIdArg, pickedYesFlag} from '../../base/flags.js'
import {RESOURCE_COLUMNS} from '../../domain/schema.js'
import {UsageError} from '../../errors.js'
import {confirmAfterCheck} from '../../io/prompt.js'
import {sanitize} from '../../io/sanitize.js'
import {getCustomer, updateCustomer} from '../../services/customers.js'

export default class CustomersUpdate extends ApiCommand<typeof CustomersUpdate> {
  static operations: readonly OperationId[] = ['getCustomer', 'updateCustomer']
  static pick: PickKind = 'customer'
  static args = {id: Args.custom<number>({parse: parseIdArg})({description: 'Customer id (left out on a terminal: pick one).'})}
  static summary = `Change a customer (API v2).`
  static examples = [
    '<%= config.bin %> customers update 42 --status archived',
    '<%= config.bin %> customers update 42 --name "Ada King" --plan enterprise',
  ]
  static fieldFlags = CUSTOMER_FIELD_FLAGS
  static description = `With the id left out on a terminal, a picker offers the customers; the one picked is shown and the change asked for before it is sent (--yes skips the question).`
  static flags = {...fieldsFlag('customer'), ...customerFieldFlags, status: customerStatusFlag(), ...pickedYesFlag, ...dryRunFlag}

  async run(): Promise<void> {
    const {flags} = this
    if ([flags.email, flags.metadata, flags.name, flags.plan, flags.status].every((v) => v === undefined))
      throw new UsageError('Nothing to change: pass at least one of --email, --name, --status, --plan, --metadata.')
    const picked = this.args.id === undefined
    const id = this.args.id ?? ((await this.pick(() => this.ctx.client())) as number)
    // A record chosen in a picker is shown before it changes, as delete does: the person confirms it is the one.
    if (picked)
      await confirmAfterCheck(this.io, flags.yes, async () => {
        const c = await getCustomer(await this.ctx.client(), id, {version: 'v2'})
        const change = (['email', 'name', 'status', 'plan', 'metadata'] as const)
          .filter((k) => flags[k] !== undefined)
          .map((k) => `${k} ${sanitize(typeof flags[k] === 'string' ? flags[k] : JSON.stringify(flags[k]), 'cell')}`)
          .join(', ')
        return `Update customer ${id} (${sanitize(String(c.name), 'cell')} <${sanitize(String(c.email), 'cell')}>, ${c.status}): set ${change}?`
      })
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
