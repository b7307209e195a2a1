import {BaseCommand} from '../../base/command.js'
import {reset} from '../../services/sandbox/scenario.js'
import {counted} from '../../domain/text.js'

export default class SandboxReset extends BaseCommand<typeof SandboxReset> {
  static summary = `Empty the local sandbox's data; ids start at 1 again.`
  static description = `Customers, orders, refunds, webhooks and idempotency keys are removed. The product catalogue and the key pairs stay, so profiles keep working. Save the state first with \`sandbox snapshot save NAME\` to come back to it. With --json: {"removed": {customers, orders, refunds, webhooks}}.`
  static examples = ['<%= config.bin %> sandbox reset']

  async run(): Promise<void> {
    const {io} = this
    const removed = await reset(process.env)
    await this.output.result({removed}, () => {
      io.out(
        `Removed ${counted(removed.customers, 'customer')}, ${counted(removed.orders, 'order')}, ${counted(removed.refunds, 'refund')} and ${counted(removed.webhooks, 'webhook')}.`,
      )
    })
  }
}
