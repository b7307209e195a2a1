/**
 * `orders create` on a terminal with flags missing: it asks for them as `customers create` does. The customer
 * through the customers picker, the currency (the customer's latest order's first, else a list), line items by
 * searching products with a quantity each and a running total in that currency; then the whole order, confirmed
 * before anything is sent. Without a terminal (or with --json) nothing is asked: the missing fields are the
 * validation's exit 2, as before.
 */
import type {ApiClient} from '../api/client.js'
import {CURRENCIES, type Currency} from '../domain/schema.js'
import {ApiError} from '../errors.js'
import {confirmOrThrow, promptCount, promptSelect, promptYesNo} from '../io/prompt.js'
import {sanitize} from '../io/sanitize.js'
import type {IOStreams} from '../io/streams.js'
import {formatMoney} from '../io/values.js'
import {cellWidth, padCells} from '../io/width.js'
import {getCustomer} from '../services/customers.js'
import type {OrderInput, OrderItemInput} from '../services/orders.js'
import {lastCurrency} from '../services/pickers.js'
import {getProduct} from '../services/products.js'
import {canPick, pickId} from './pick.js'

export interface WizardOptions {
  io: IOStreams
  client: () => Promise<ApiClient>
  env: NodeJS.ProcessEnv
  now: () => number
  usage: string
}

/** Whether the order may be built by asking: a terminal both ways, no --json, and something missing. */
export function canAskForOrder(io: IOStreams, input: OrderInput): boolean {
  const missing = input.customer_id === undefined || input.currency === undefined || !input.items || input.items.length === 0
  return missing && canPick(io)
}

/** A customer who can order (not archived), from the picker. */
export async function pickCustomer(o: WizardOptions): Promise<number> {
  const message = 'Which customer? (active or invited; type to filter, Esc to cancel)'
  return (await pickId({...o, kind: 'orderable-customer', message, source: {client: o.client, env: o.env}})) as number
}

export async function askForOrder(o: WizardOptions, input: OrderInput): Promise<OrderInput> {
  const {io} = o
  const client = await o.client()
  const customerId = input.customer_id ?? (await pickCustomer(o))
  const customer = await getCustomer(client, customerId, {version: 'v2'})
  let currency = input.currency as Currency | undefined
  if (currency === undefined) {
    const last = await lastCurrency(client, customerId)
    currency = await promptSelect(io, last ? `Currency (${last}, as in their latest order):` : 'Currency:', CURRENCIES, last)
  }
  const money = (n: number) => formatMoney(n, currency, io.values.moneyUnit)
  let items: OrderItemInput[] = input.items ?? []
  const lines: Array<{text: string; amount: string}> = []
  let total = 0
  if (items.length === 0) {
    items = []
    do {
      const productId = await pickId({
        ...o,
        kind: 'product',
        message: `Add a product (prices in ${currency}; type to search, Esc to ${items.length > 0 ? 'add none' : 'cancel'}):`,
        source: {client: o.client, currency, env: o.env},
      }).catch((error: Error) => {
        // Esc once items are in: back to "Add another product?", the order kept (Ctrl-C still ends it all).
        if (error.name === 'AbortPromptError' && items.length > 0) return undefined
        throw error
      })
      if (productId === undefined) continue
      const product = await getProduct(client, productId as number, {currency})
      const quantity = await promptCount(io, `Quantity of ${sanitize(product.name, 'cell')}:`, 1)
      items.push({product_id: productId as number, quantity})
      total += product.price * quantity
      lines.push({amount: money(product.price * quantity), text: `  ${quantity} × ${sanitize(product.name, 'cell')} (${productId})`})
      io.info(`${lines.at(-1)!.text}  ${lines.at(-1)!.amount}    running total ${money(total)}`)
    } while (await promptYesNo(io, 'Add another product?', false))
  }
  io.info(
    `Order for customer ${customerId} (${sanitize(String(customer.name), 'cell')} <${sanitize(String(customer.email), 'cell')}>), in ${currency}:`,
  )
  if (lines.length > 0) {
    // The amounts in one column, right-aligned, the total under them.
    const rows = [...lines, {amount: money(total), text: '  Total'}]
    const left = Math.max(...rows.map((r) => cellWidth(r.text)))
    const right = Math.max(...rows.map((r) => cellWidth(r.amount)))
    const aligned = rows.map((r) => `${padCells(r.text, left)}  ${' '.repeat(right - cellWidth(r.amount))}${r.amount}`)
    // The note on a line of its own: beside the total it wrapped mid-phrase at 80 columns.
    io.info([...aligned, '  At catalogue prices; the service sets the final total.'].join('\n'))
  } else io.info(items.map((i) => `  ${i.quantity ?? 1} × product ${i.product_id}`).join('\n'))
  await confirmOrThrow(io, 'Create this order?', false)
  return {currency, customer_id: customerId, items}
}

/**
 * Creates an order built by asking: when the service refuses it for its customer (archived since, or gone), says
 * why and asks for another customer, the rest of the order kept, until one is taken (Esc or Ctrl-C ends it).
 */
export async function createAsking<T>(o: WizardOptions, input: OrderInput, create: (input: OrderInput) => Promise<T>): Promise<T> {
  for (let current = input; ;) {
    try {
      return await create(current)
    } catch (error) {
      const refused = error instanceof ApiError && error.status === 422 && error.fieldErrors?.customer_id
      if (!refused) throw error
      o.io.warn(`The service refused customer ${current.customer_id}: ${sanitize(refused.join('; '), 'cell')}. Choose another customer.`)
      current = {...current, customer_id: await pickCustomer(o)}
    }
  }
}
