import {Args, Flags} from '@oclif/core'

import {ApiCommand} from '../../base/command.js'
import {idFlag} from '../../base/flags.js'
import {describeTriggered, parseOverrides, trigger} from '../../services/webhooks/trigger.js'

export default class WebhooksTrigger extends ApiCommand<typeof WebhooksTrigger> {
  static args = {
    event: Args.string({
      description:
        'Event to make happen: order.created, order.paid, order.shipped, order.refunded, customer.created, customer.updated or customer.deleted.',
      required: true,
    }),
  }
  static summary = `Make an event happen in the local sandbox (only there), which then delivers it.`
  static effect = 'local' as const
  static description = `The change the event reports really happens: order.paid pays the pending order given with --order, order.shipped ships a paid one, order.refunded refunds what remains, customer.updated/deleted update or delete the customer given with --customer. Without --order, order events use a new order of one sandbox customer (sandbox-trigger@example.com, created once and reused), and the command says what it created. --set changes the delivered payload only (e.g. --set data.total=1: the delivery carries total 1, the stored order keeps its own); a field the payload does not have is exit 2, with nothing fired and nothing changed. With --json, prints the sandbox's answer {type, event_id, endpoints, order?, customer?, created}.`
  static examples = [
    '<%= config.bin %> webhooks trigger order.paid',
    '<%= config.bin %> webhooks trigger order.paid --order 42 --json',
    '<%= config.bin %> webhooks trigger order.refunded --set data.amount_refunded=1',
    '<%= config.bin %> webhooks trigger customer.updated --customer 7',
  ]
  static flags = {
    customer: idFlag({description: 'The customer a customer.* event concerns (default: a sandbox customer).', exclusive: ['order']}),
    order: idFlag({description: 'The order an order.* event concerns (default: a new order).', exclusive: ['customer']}),
    set: Flags.string({
      description: 'Override a field of the delivered payload: data.FIELD=VALUE (VALUE as JSON, else text). Repeatable.',
      multiple: true,
    }),
  }

  async run(): Promise<void> {
    const {args, flags, io} = this
    const set = parseOverrides(flags.set ?? [])
    // A base URL that is set must be the sandbox's; none set means the running sandbox.
    const baseUrl = await this.ctx.knownBaseUrl()
    const answer = await trigger({
      baseUrl,
      customerId: flags.customer,
      env: this.deps.env,
      orderId: flags.order,
      set,
      type: args.event,
      userAgent: `commerce-cli/${this.config.version} node/${process.version}`,
    })
    await this.output.result(answer, () => io.outWrapped(describeTriggered(answer)))
  }
}
