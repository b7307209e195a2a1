/**
 * The tools that only read: what an operator looks up (customers, orders, products), the account's figures, whether
 * the credentials work, the webhook endpoints and the deliveries `webhooks listen` received. Each result is one
 * page at most, with the call that reads the next; a document that carries money says its unit (`money_unit`).
 */
import {DEFAULT_SINCE} from '../../domain/window-grammar.js'
import {CURRENCIES, CUSTOMER_INCLUDES, CUSTOMER_STATUSES, type CustomerInclude, LIMITS, ORDER_STATUSES} from '../../domain/schema.js'
import {GRANULARITIES} from '../../domain/periods.js'
import {status as authStatus} from '../auth-status.js'
import {getCustomer, listCustomers} from '../customers.js'
import {getOrder, listOrders} from '../orders.js'
import {getProduct, listProducts} from '../products.js'
import {customerStats, orderStats} from '../stats.js'
import {topProducts} from '../top.js'
import {listWebhooks} from '../webhooks/endpoints.js'
import {listInboxEvents, STATUS_FILTERS} from '../webhooks/inbox-queries.js'
import {
  type Args,
  figuresResult,
  id,
  object,
  onePage,
  oneOf,
  pageResult,
  paging,
  reader,
  recordResult,
  result,
  searchText,
  text,
  type Tool,
  type ToolDeps,
  windowArgs,
} from './tool-kit.js'

type Currency = (typeof CURRENCIES)[number]

/** Each tool says what its currency does: a price converted to it, or only the records in it. */
const convertTo = oneOf(CURRENCIES, 'Show prices converted to this currency (default: each product in its own).')
const onlyIn = oneOf(CURRENCIES, 'Count only the orders in this currency (default: a series per currency met).')
const by = oneOf(GRANULARITIES, 'The period of each figure (default: hour up to two days, day up to 62 days, week up to a year, else month).')
/** The page a list tool reads, in the API version in effect, as the services take it. */
const pageOf = async (a: Args, deps: ToolDeps) => ({
  page: a.page as number | undefined,
  perPage: a.per_page as number | undefined,
  version: await deps.apiVersion(),
})
const money = async <T extends object>(deps: ToolDeps, value: T) => ({money_unit: await deps.moneyUnit(), ...value})
const window = (deps: ToolDeps, a: Args) =>
  deps.window({
    by: a.by as string | undefined,
    since: (a.since as string | undefined) ?? DEFAULT_SINCE,
    until: a.until as string | undefined,
    utc: a.utc === true,
  })

export const READ_TOOLS: Tool[] = [
  reader({
    description: 'List customers, newest first, one page at a time (filter by status, search name and email).',
    inputSchema: object({...paging, search: searchText, status: oneOf(CUSTOMER_STATUSES, 'Only customers with this status.')}),
    name: 'customers_list',
    outputSchema: pageResult(),
    async run(a, deps) {
      const list = listCustomers(await deps.client(), {...(await pageOf(a, deps)), search: a.search as string, status: a.status as never})
      return onePage(list, 'customers_list', a)
    },
    title: 'List customers',
  }),
  reader({
    description: "One customer by id; with include, its orders or addresses too. An order's customer_id is this id.",
    inputSchema: object({id: id('customer'), include: oneOf(CUSTOMER_INCLUDES, 'Embed these records.')}, ['id']),
    name: 'customers_get',
    outputSchema: recordResult(),
    async run(a, deps) {
      return getCustomer(await deps.client(), a.id as number, {include: a.include as CustomerInclude | undefined, version: 'v2'})
    },
    title: 'Get a customer',
  }),
  reader({
    description: 'List orders, newest first, one page at a time (filter by status or customer). Amounts in money_unit.',
    inputSchema: object({...paging, customer_id: id('customer'), status: oneOf(ORDER_STATUSES, 'Only orders with this status.')}),
    name: 'orders_list',
    outputSchema: pageResult(true),
    async run(a, deps) {
      const list = listOrders(await deps.client(), {...(await pageOf(a, deps)), customerId: a.customer_id as number, status: a.status as never})
      return money(deps, await onePage(list, 'orders_list', a))
    },
    title: 'List orders',
  }),
  reader({
    description: 'One order by id, with its items and refunds. Amounts in money_unit.',
    inputSchema: object({id: id('order')}, ['id']),
    name: 'orders_get',
    outputSchema: recordResult(true),
    run: async (a, deps) => money(deps, await getOrder(await deps.client(), a.id as number)),
    title: 'Get an order',
  }),
  reader({
    description: 'List the product catalogue, one page at a time (search by name; prices in a currency).',
    inputSchema: object({
      ...paging,
      currency: convertTo,
      search: text('Free text matched against product names.', {maxLength: LIMITS.searchMaxLength, minLength: 1}),
    }),
    name: 'products_list',
    outputSchema: pageResult(true),
    async run(a, deps) {
      // v2 whatever the profile says: v1's product list is rate-limited harder, and search is a query here.
      const options = {...(await pageOf(a, deps)), currency: a.currency as Currency, search: a.search as string, version: 'v2' as const}
      const list = listProducts(await deps.client(), options)
      return money(deps, await onePage(list, 'products_list', a))
    },
    title: 'List products',
  }),
  reader({
    description: "One product by id (an order item's product_id), its price in a currency.",
    inputSchema: object({currency: convertTo, id: id('product')}, ['id']),
    name: 'products_get',
    outputSchema: recordResult(true),
    run: async (a, deps) => money(deps, await getProduct(await deps.client(), a.id as number, {currency: a.currency as Currency})),
    title: 'Get a product',
  }),
  ...figures(),
  ...account(),
]

/** The account's figures: as `orders stats`, `customers stats` and `products top` count them (docs/stats.md). */
function figures(): Tool[] {
  return [
    reader({
      description:
        'Orders placed in a window: count, gross (every order placed, pending ones included; by_status splits the count), refunded and net, per currency and per period. Pass by (day for a few days, week or month for longer): an hourly series of a day is mostly zeros. read.all_pages false means the list was read only until the window was past (newest first), not that anything is missing.',
      inputSchema: object({...windowArgs, by, currency: onlyIn}),
      name: 'orders_stats',
      outputSchema: figuresResult(true),
      async run(a, deps) {
        const w = await window(deps, a)
        return money(deps, {window: w.span, ...(await orderStats(await deps.client(), w.window, {currency: a.currency as string}))})
      },
      title: 'Orders over time',
    }),
    reader({
      description: 'New customers in a window, per period and by status. Pass by (day, week or month) for a window longer than a day.',
      inputSchema: object({...windowArgs, by}),
      name: 'customers_stats',
      outputSchema: figuresResult(false),
      async run(a, deps) {
        const w = await window(deps, a)
        return {window: w.span, ...(await customerStats(await deps.client(), w.window))}
      },
      title: 'Customers over time',
    }),
    reader({
      description: 'The products sold most in a window, by revenue or units, per currency.',
      inputSchema: object({
        ...windowArgs,
        currency: oneOf(CURRENCIES, 'Rank only the orders in this currency (default: a ranking per currency met).'),
        limit: {default: 10, description: 'How many products per currency.', maximum: 100, minimum: 1, type: 'integer'},
        rank: oneOf(['revenue', 'units'], 'What ranks them (default revenue).'),
      }),
      name: 'products_top',
      outputSchema: figuresResult(true),
      async run(a, deps) {
        const w = await window(deps, {...a, by: 'month'})
        const options = {currency: a.currency as string, limit: (a.limit as number) ?? 10, rank: a.rank as 'revenue' | 'units'}
        return money(deps, {window: w.span, ...(await topProducts(await deps.client(), w.window, options))})
      },
      title: 'Top products',
    }),
  ]
}

/** The credentials, the webhook endpoints, and the deliveries received by `webhooks listen`. */
function account(): Tool[] {
  return [
    reader({
      description: 'Whether the service accepts the credentials in effect: the profile, base URL, key id, scopes and expiry (never a secret).',
      inputSchema: object({}),
      name: 'auth_status',
      outputSchema: result({logged_in: {type: 'boolean'}}, ['logged_in']),
      run: async (_a, deps) => authStatus(deps.ctx),
      title: 'Credentials',
    }),
    reader({
      description: 'The webhook endpoints registered on the account, with the events each receives.',
      inputSchema: object({}),
      name: 'webhooks_list',
      outputSchema: result({endpoints: {items: {type: 'object'}, type: 'array'}}, ['endpoints']),
      run: async (_a, deps) => listWebhooks(await deps.client()),
      title: 'Webhook endpoints',
    }),
    reader({
      description:
        'The latest webhook deliveries `commerce webhooks listen` received on this machine, newest first, with what the receiver answered.',
      inputSchema: object({
        limit: {default: 20, description: 'How many.', maximum: 1000, minimum: 1, type: 'integer'},
        status: oneOf(STATUS_FILTERS, 'Only failed deliveries, or those the receiver answered with this status class.'),
        type: {description: 'Only events of this type (order.paid...).', type: 'string'},
      }),
      name: 'webhook_deliveries',
      outputSchema: result({deliveries: {items: {type: 'object'}, type: 'array'}, total: {type: 'integer'}}),
      async run(a, deps) {
        const found = await listInboxEvents(deps.env, {
          limit: (a.limit as number) ?? 20,
          status: a.status as never,
          types: typeof a.type === 'string' ? [a.type] : undefined,
        })
        return {deliveries: found.records, total: found.total}
      },
      title: 'Webhook deliveries',
    }),
  ]
}
