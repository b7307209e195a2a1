import {Args} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import type {PickKind} from '../../services/pick-kinds.js'
import {ApiCommand} from '../../base/command.js'
import {dryRunFlag, parseIdArg, yesFlag} from '../../base/flags.js'
import {confirmAfterCheck} from '../../io/prompt.js'
import {sanitize} from '../../io/sanitize.js'
import {checked} from '../../base/error-shape.js'
import {deleteCustomer, deleteFacts, getCustomer} from '../../services/customers.js'

export default class CustomersDelete extends ApiCommand<typeof CustomersDelete> {
  static operations: readonly OperationId[] = ['getCustomer', 'deleteCustomer']
  static pick: PickKind = 'customer'
  static args = {id: Args.custom<number>({parse: parseIdArg})({description: 'Customer id (left out on a terminal: pick one).'})}
  static summary = `Delete a customer (API v2).`
  static description = `Asks for confirmation on a terminal; needs --yes without one.`
  static examples = ['<%= config.bin %> customers delete 42', '<%= config.bin %> customers delete 42 --yes --json']
  static flags = {...yesFlag, ...dryRunFlag}

  async run(): Promise<void> {
    const id = this.args.id ?? ((await this.pick(() => this.ctx.client())) as number)
    const {flags, io} = this
    const client = await this.ctx.client()
    let facts = {}
    await confirmAfterCheck(io, flags.yes, async () => {
      const customer = await getCustomer(client, id, {version: 'v2'})
      facts = deleteFacts(customer)
      return `Delete customer ${id} (${sanitize(String(customer.email), 'cell')}, ${sanitize(String(customer.name), 'cell')})? This cannot be undone.`
    })
    const result = await checked(facts, () => deleteCustomer(client, id))
    await this.output.result(result, () => this.output.success(`Deleted customer ${id}.`))
  }
}
