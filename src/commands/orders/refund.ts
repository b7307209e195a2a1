import {Args, Flags} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import type {PickKind} from '../../services/pick-kinds.js'
import {ApiCommand} from '../../base/command.js'
import {dryRunFlag, parseIdArg, type ValueShape, yesFlag} from '../../base/flags.js'
import {parseId} from '../../domain/validate.js'
import {confirmAfterCheck} from '../../io/prompt.js'
import {formatMoney} from '../../io/values.js'
import {checked} from '../../base/error-shape.js'
import {checkRefund, type RefundCheck, refundFacts, refundOrder} from '../../services/orders.js'

export default class OrdersRefund extends ApiCommand<typeof OrdersRefund> {
  static operations: readonly OperationId[] = ['getOrder', 'refundOrder']
  static pick: PickKind = 'refundable-order'
  static args = {id: Args.custom<number>({parse: parseIdArg})({description: 'Order id (left out on a terminal: pick one).'})}
  static summary = `Refund an order, in whole or in part (API v2).`
  static description = `--amount is an integer in the service's money unit, sent unchanged; without it the whole remaining amount is refunded. Asks for confirmation on a terminal; needs --yes without one. The checks (the order's status, what is left to refund, --expect-refunded) run with --yes and --dry-run too. The service takes no idempotency key for refunds: a job that may run again passes --expect-refunded with what it saw, so that a second run refuses instead of refunding twice.`
  static examples = [
    '<%= config.bin %> orders refund 1001',
    '<%= config.bin %> orders refund 1001 --amount 500 --reason "damaged box" --yes --json',
    '<%= config.bin %> orders refund 1001 --amount 500 --expect-refunded 0 --yes --json',
  ]
  static fieldFlags = {amount: '--amount', reason: '--reason'}
  static flags = {
    ...dryRunFlag,
    ...yesFlag,
    amount: Flags.custom<number>({
      ...({min: 1, valueType: 'money'} satisfies ValueShape),
      async parse(input) {
        const amount = parseId(input.trim())
        if (amount === undefined) throw new Error(`must be a positive integer, in the service's money unit (got ${JSON.stringify(input)})`)
        return amount
      },
    })({
      description:
        "Amount to refund, an integer in the service's money unit (cents when the profile's money_unit is minor, whole units when major); default: all that remains.",
    }),
    reason: Flags.string({description: 'Why the order is refunded.'}),
    'expect-refunded': Flags.integer({
      description:
        'Refund only if exactly this much has been refunded of the order so far (0 for none), else exit 2 (precondition_failed) sending nothing: a re-run of a job that already refunded does not refund twice.',
      helpValue: 'AMOUNT',
      min: 0,
    }),
  }

  async run(): Promise<void> {
    const id = this.args.id ?? ((await this.pick(() => this.ctx.client())) as number)
    const {flags, io} = this
    const client = await this.ctx.client()
    let check: RefundCheck | undefined
    await confirmAfterCheck(io, flags.yes, async () => {
      // Amounts as the tables show them (the profile's money unit on a terminal), the typed integer beside its own.
      const money = (n: number, currency: string) => formatMoney(n, currency, io.values.moneyUnit)
      check = await checkRefund(client, id, {amount: flags.amount, expectRefunded: flags['expect-refunded'], money})
      const {amount, order, remaining} = check
      const before = order.total - remaining
      return `Refund ${money(amount, order.currency)} of order ${id}? (total ${money(order.total, order.currency)}${before > 0 ? `, ${money(before, order.currency)} refunded already` : ''}; ${money(remaining - amount, order.currency)} would remain)`
    })
    const refund = await checked(check ? refundFacts(check) : {}, () => refundOrder(client, id, {amount: flags.amount, reason: flags.reason}))
    this.output.success(`Refunded order ${id}.`)
    // A service that answers with no refund record: --json prints {}, human output only the line above.
    if (Object.keys(refund).length > 0) await this.output.record(refund)
    else await this.output.result(refund)
  }
}
