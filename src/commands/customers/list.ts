import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {customerFilterFlags, listFlags} from '../../base/flags.js'
import {RESOURCE_COLUMNS} from '../../domain/schema.js'
import {listCustomers} from '../../services/customers.js'

export default class CustomersList extends ApiCommand<typeof CustomersList> {
  static operations: readonly OperationId[] = ['listCustomers']
  static effect = 'reads' as const
  static summary = `List customers, newest first.`
  static examples = [
    '<%= config.bin %> customers list',
    '<%= config.bin %> customers list --status invited --search "@example.com" --per-page 100',
    "<%= config.bin %> customers list --all --json | jq -r '.[].email'",
  ]
  static fieldFlags = {q: '--search', status: '--status'}
  static flags = {...listFlags('customer'), ...customerFilterFlags}

  async run(): Promise<void> {
    const {flags} = this
    const list = listCustomers(await this.ctx.client(), {
      all: flags.all,
      limit: flags.limit,
      page: flags.page,
      perPage: flags['per-page'],
      search: flags.search,
      status: flags.status,
      version: await this.ctx.apiVersion(),
    })
    await this.output.list(list.records, {columns: RESOURCE_COLUMNS.customer, position: list.position})
  }
}
