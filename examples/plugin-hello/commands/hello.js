// `commerce hello`: the number of customers in the account, counted through the CLI's own client, so the profile,
// the token, retries, exit codes and --json all work as in the built-in commands.
'use strict'
const {CommerceCommand, listing} = require('commerce-service-cli')

class Hello extends CommerceCommand {
  static summary = 'Say hello with the number of customers in the account (an example plugin).'
  static description = 'With --json, prints {"customers": N}.'
  static examples = ['<%= config.bin %> hello', '<%= config.bin %> hello --json']

  async run() {
    const client = await this.ctx.client()
    // One record per page is enough when the service says the total; otherwise every page is counted.
    const request = {auth: true, method: 'GET', path: '/customers', version: 'v2'}
    const count = async (list) => {
      let n = 0
      for await (const record of list.records) if (record) n++
      return n
    }
    const first = listing(client, request, {page: 1, perPage: 1})
    const seen = await count(first)
    const total = first.position()?.total
    const customers = total ?? (seen === 0 ? 0 : await count(listing(client, request, {all: true})))
    await this.output.result({customers}, () => this.io.out(`Hello! This account has ${customers} customer${customers === 1 ? '' : 's'}.`))
  }
}

module.exports = Hello
