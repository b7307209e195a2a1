import {Flags} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {apiVersionFlag, currencyFlag, dryRunFlag, fieldsFlag, idFlag, shaped} from '../../base/flags.js'
import {askForOrder, canAskForOrder, createAsking} from '../../base/order-wizard.js'
import {RESOURCE_COLUMNS} from '../../domain/schema.js'
import {createOrder, type OrderInput, parseItemSpec, readOrderFile} from '../../services/orders.js'

export default class OrdersCreate extends ApiCommand<typeof OrdersCreate> {
  static operations: readonly OperationId[] = ['getCustomer', 'createOrder']
  static summary = `Create an order (status pending); on a terminal, asks for what is missing.`
  static description = `In v2 every order carries an Idempotency-Key: the one given with --idempotency-key, or a fresh UUID printed on stderr. Rerunning with that key replays the original order instead of creating a second one, and the CLI retries a lost response with the same key. In v1 there is no such key, and a failed request is never retried.`
  static examples = [
    '<%= config.bin %> orders create --customer 42 --currency USD --item 3:2 --item 7',
    '<%= config.bin %> orders create --from-file order.json --idempotency-key 5f0c6a52-8f2e-4c1e-9b7a-0d7e3f1e2a11 --json',
    '<%= config.bin %> orders create --from-file order.json --idempotency-name "$GITHUB_RUN_ID/order" --json',
    'echo \'{"customer_id":42,"currency":"EUR","items":[{"product_id":3,"quantity":1}]}\' | <%= config.bin %> orders create --from-file -',
  ]
  static fieldFlags = {currency: '--currency', customer_id: '--customer', 'Idempotency-Key': '--idempotency-key', items: '--item'}
  static flags = {
    ...dryRunFlag,
    ...fieldsFlag('order'),
    ...apiVersionFlag,
    currency: shaped(currencyFlag(), {prompted: true}),
    customer: shaped(idFlag({description: 'Customer id.'}), {prompted: true}),
    'from-file': Flags.string({description: 'Read {customer_id, currency, items} from a JSON file (- for stdin); flags override its fields.'}),
    'idempotency-key': Flags.string({
      description: 'UUID identifying this logical order (v2); a rerun with it replays the original order.',
      exclusive: ['idempotency-name'],
    }),
    'idempotency-name': Flags.string({
      description:
        'Derive the Idempotency-Key from this name (a UUID v5 of the text, outer spaces dropped): the same name, e.g. "$RUN_ID/order", gives the same key on every machine and run, and in `commerce mcp`.',
      exclusive: ['idempotency-key'],
      helpValue: 'TEXT',
    }),
    item: shaped(Flags.string({description: 'Line item PRODUCT_ID[:QUANTITY] (repeatable).', multiple: true}), {
      prompted: true,
      valueType: 'product[:quantity]',
    }),
  }

  async run(): Promise<void> {
    const {flags, io} = this
    // The user's key, given or named: either way theirs (not printed as one of ours, not asked again).
    const theirs = flags['idempotency-key'] !== undefined || flags['idempotency-name'] !== undefined
    const fromFile = flags['from-file'] ? await readOrderFile(flags['from-file'], this.deps.stdin) : {}
    let input: OrderInput = {
      currency: flags.currency ?? fromFile.currency,
      customer_id: flags.customer ?? fromFile.customer_id,
      items: flags.item ? flags.item.map((spec) => parseItemSpec(spec)) : fromFile.items,
    }
    // On a terminal with something missing, it is asked for (base/order-wizard.ts); otherwise validation says what.
    const wizard = {client: () => this.ctx.client(), env: this.deps.env, io, now: this.deps.now, usage: `${this.commandLine()} --customer ID`}
    const asked = canAskForOrder(io, input)
    if (asked) input = await askForOrder(wizard, input)
    const create = async (body: OrderInput) =>
      createOrder(await this.ctx.client(), body, {
        idempotencyKey: flags['idempotency-key'],
        idempotencyName: flags['idempotency-name'],
        // A key of our making is said on Ctrl-C during the request (the order may have been created), and after it.
        onKey: (key) => {
          if (!theirs)
            io.interruptNote = `The order may have been created. To get it without creating a second one, rerun\nwith --idempotency-key ${key}.`
        },
        now: this.deps.now,
        version: await this.ctx.apiVersion(),
      })
    // A key the user gave belongs to the body as it was: a refusal is then theirs to act on, not asked again.
    const {idempotencyKey, order, replayed} = asked && !theirs ? await createAsking(wizard, input, create) : await create(input)
    io.interruptNote = undefined
    if (idempotencyKey && !theirs) io.info(`Idempotency-Key: ${idempotencyKey}`)
    const shown = idempotencyKey ? {...order, idempotency_key: idempotencyKey, replayed: replayed === true} : order
    if (replayed)
      this.output.success(
        `Order ${order.id} was created earlier with this Idempotency-Key: the service answered with it, and nothing new was created.`,
      )
    else this.output.success(`Created order ${order.id}.`)
    await this.output.record(shown, [...RESOURCE_COLUMNS.order, 'items', 'idempotency_key'])
  }
}
