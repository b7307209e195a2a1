import {Args} from '@oclif/core'

import {ApiCommand} from '../../base/command.js'
import {parseIdArg, yesFlag} from '../../base/flags.js'
import {confirmOrThrow} from '../../io/prompt.js'
import {deleteCustomer} from '../../services/customers.js'

export default class CustomersDelete extends ApiCommand<typeof CustomersDelete> {
  static args = {id: Args.custom<number>({parse: parseIdArg})({description: 'Customer id.', required: true})}
  static description = 'Delete a customer (API v2). Asks for confirmation on a terminal; needs --yes without one.'
  static examples = ['<%= config.bin %> customers delete 42', '<%= config.bin %> customers delete 42 --yes --json']
  static flags = {...yesFlag}

  async run(): Promise<void> {
    const {args, flags, io} = this
    const client = await this.ctx.client()
    await confirmOrThrow(io, `Delete customer ${args.id}? This cannot be undone.`, flags.yes)
    const result = await deleteCustomer(client, args.id)
    await this.output.result(result, () => this.output.success(`Deleted customer ${args.id}.`))
  }
}
