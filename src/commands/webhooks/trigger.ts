import {Args} from '@oclif/core'

import {ApiCommand} from '../../base/command.js'
import {idFlag} from '../../base/flags.js'
import {EVENT_TYPES} from '../../domain/schema.js'
import {trigger} from '../../services/webhooks/trigger.js'

export default class WebhooksTrigger extends ApiCommand<typeof WebhooksTrigger> {
  static args = {event: Args.string({description: `Event to make happen (${EVENT_TYPES.join(', ')}).`, required: true})}
  static description = `Make an event happen in the local sandbox (only there), which then delivers it.

order.paid: the pending order given with --order becomes paid, or a new order is placed and paid. The sandbox delivers the event to every endpoint subscribed to it, retrying failed deliveries. With --json, prints the sandbox's answer {order, event_id, endpoints}.`
  static examples = [
    '<%= config.bin %> webhooks trigger order.paid',
    '<%= config.bin %> webhooks trigger order.paid --order 42 --json',
  ]
  static flags = {
    order: idFlag({description: 'A pending order to pay (default: a new order).'}),
  }

  async run(): Promise<void> {
    const {args, flags, io} = this
    // A base URL that is set must be the sandbox's; none set means the running sandbox.
    const baseUrl = flags['base-url'] || process.env.COMMERCE_BASE_URL || (await this.ctx.profile())?.base_url
    const answer = await trigger({
      baseUrl,
      env: process.env,
      orderId: flags.order,
      type: args.event,
      userAgent: `commerce-cli/${this.config.version} node/${process.version}`,
    })
    if (io.json) return io.outJson(answer)
    io.out(`${args.event}: order ${answer.order.id} is ${answer.order.status}; event ${answer.event_id} is being delivered to ${answer.endpoints} endpoint${answer.endpoints === 1 ? '' : 's'}.`)
  }
}
