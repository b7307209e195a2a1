/**
 * The tools that change the account, offered only when the server was started with --allow-writes. A delete and a
 * refund take `dry_run`: the same checks run, and the request that would be sent is returned instead of sent. An
 * order is created with the Idempotency-Key its caller gives or names (domain/idempotency.ts, as `orders create`
 * does), returned with it, so that a call repeated after a lost answer makes one order and a new purchase another. A
 * new webhook's signing secret is kept in the profile, never returned.
 */
import {checked, DryRunStop, dryRunDocument} from '../../api/dry-run.js'
import {CURRENCIES, CUSTOMER_STATUSES, EVENT_TYPES, LIMITS} from '../../domain/schema.js'
import {createCustomer, type CustomerInput, deleteCustomer, deleteFacts, getCustomer, updateCustomer} from '../customers.js'
import {checkRefund, createOrder, refundFacts, refundOrder} from '../orders.js'
import {UsageError} from '../../errors.js'
import {createWebhook, endpointFor} from '../webhooks/endpoints.js'
import {
  anything,
  type Args,
  dryRunResult,
  id,
  moneyUnit,
  nullable,
  object,
  oneOf,
  recordResult,
  result,
  text,
  type Tool,
  type ToolDeps,
  writer,
} from './tool-kit.js'

const dryRun = {
  default: false,
  description: 'Run the checks and return the request that would be sent, sending nothing that changes anything.',
  type: 'boolean',
}
const metadata = {additionalProperties: {type: 'string'}, description: 'Key-value pairs kept with the customer.', type: 'object'}

/** `work` against a client that stops at the first request that would change something: the dry-run document. */
async function planned(deps: ToolDeps, work: (client: Awaited<ReturnType<ToolDeps['client']>>) => Promise<unknown>): Promise<unknown> {
  try {
    await work(await deps.dryRunClient())
  } catch (error) {
    if (error instanceof DryRunStop) return dryRunDocument(error)
    throw error
  }
  return dryRunDocument(null)
}

const customerFields = (a: Args): CustomerInput => ({
  email: a.email as string | undefined,
  metadata: a.metadata as Record<string, unknown> | undefined,
  name: a.name as string | undefined,
  plan: a.plan as string | undefined,
  send_invite: a.send_invite as boolean | undefined,
  status: a.status as never,
})

export const WRITE_TOOLS: Tool[] = [
  writer({
    description:
      'Create a customer. The service emails an invitation unless send_invite is false. Not idempotent: an email already taken is refused.',
    destructive: false,
    idempotent: false,
    inputSchema: object(
      {
        email: text('Email address.', {format: 'email'}),
        metadata,
        name: text('Name.', {maxLength: LIMITS.customerNameMaxLength, minLength: 1}),
        plan: text('The plan, kept as metadata.plan.'),
        send_invite: {default: true, description: 'Email an invitation.', type: 'boolean'},
      },
      ['email', 'name'],
    ),
    name: 'customers_create',
    outputSchema: recordResult(),
    run: async (a, deps) => createCustomer(await deps.client(), customerFields(a), await deps.apiVersion()),
    title: 'Create a customer',
  }),
  writer({
    description: 'Change a customer: email, name, status, plan or metadata (merged). The customer as it is afterwards.',
    destructive: false,
    idempotent: true,
    inputSchema: object(
      {
        email: text('Email address.', {format: 'email'}),
        id: id('customer'),
        metadata,
        name: text('Name.'),
        plan: text('The plan.'),
        status: oneOf(CUSTOMER_STATUSES, 'Status.'),
      },
      ['id'],
    ),
    name: 'customers_update',
    outputSchema: recordResult(),
    run: async (a, deps) => updateCustomer(await deps.client(), a.id as number, customerFields(a)),
    title: 'Update a customer',
  }),
  writer({
    description:
      'Delete a customer; it cannot be undone. The customer is read first (a missing one is an error); dry_run returns the request instead.',
    destructive: true,
    idempotent: true,
    inputSchema: object({dry_run: dryRun, id: id('customer')}, ['id']),
    name: 'customers_delete',
    outputSchema: {anyOf: [result({customer: {type: 'object'}, deleted: {const: true}, id: anything}), dryRunResult], type: 'object'},
    async run(a, deps) {
      const work = async (client: Awaited<ReturnType<ToolDeps['client']>>) => {
        const facts = deleteFacts(await getCustomer(client, a.id as number, {version: 'v2'}))
        return {...facts, ...(await checked(facts, () => deleteCustomer(client, a.id as number)))}
      }
      return a.dry_run === true ? planned(deps, work) : work(await deps.client())
    },
    title: 'Delete a customer',
  }),
  writer({
    description:
      'Create an order at catalogue prices. Name this purchase with idempotency_name (or give idempotency_key): a call repeated with the same name after a lost or failed answer returns the order the first call made (replayed: true) instead of a second one, while a new purchase, even of the same things, needs a new name. A name is required because a retry never sees a key drawn for a call whose answer was lost. The key is returned.',
    destructive: false,
    idempotent: true,
    inputSchema: object(
      {
        currency: oneOf(CURRENCIES, 'Currency.'),
        customer_id: id('customer'),
        idempotency_key: text('A UUID naming this order; a call repeated with it makes one order.', {format: 'uuid'}),
        idempotency_name: text(
          'A name for this purchase (e.g. "refill for customer 7, 2026-11-28"), repeated as is on a retry; its key is a UUID v5 of the name, as `commerce orders create --idempotency-name` derives it.',
          {maxLength: 200, minLength: 1},
        ),
        items: {
          description: 'The products and how many of each.',
          items: object({product_id: id('product'), quantity: {default: 1, minimum: 1, type: 'integer'}}, ['product_id']),
          minItems: LIMITS.orderMinItems,
          type: 'array',
        },
      },
      ['customer_id', 'currency', 'items'],
    ),
    name: 'orders_create',
    outputSchema: result({idempotency_key: {type: 'string'}, money_unit: moneyUnit, order: {type: 'object'}, replayed: {type: 'boolean'}}),
    async run(a, deps) {
      const input = {
        currency: a.currency as string,
        customer_id: a.customer_id as number,
        items: a.items as Array<{product_id: number; quantity?: number}>,
      }
      const idempotencyKey = a.idempotency_key as string | undefined
      const idempotencyName = a.idempotency_name as string | undefined
      if ((idempotencyKey === undefined) === (idempotencyName === undefined))
        throw new UsageError('Give exactly one of idempotency_name (a name for this purchase, repeated on a retry) and idempotency_key.')
      const made = await createOrder(await deps.client(), input, {idempotencyKey, idempotencyName, version: 'v2'})
      return {idempotency_key: made.idempotencyKey, money_unit: await deps.moneyUnit(), order: made.order, replayed: made.replayed === true}
    },
    title: 'Create an order',
  }),
  writer({
    description:
      'Refund a paid or shipped order, in whole or in part. The order is read first: its status, expect_refunded (required: what you saw refunded; a refund made since refuses, so a repeated call never refunds twice) and what remains are checked. The result and dry_run say the total, what was refunded before and after, and the status. dry_run returns the request instead of sending it.',
    destructive: true,
    idempotent: false,
    inputSchema: object(
      {
        amount: {description: "In the service's money unit (money_unit); default: what remains.", minimum: 1, type: 'integer'},
        dry_run: dryRun,
        expect_refunded: {
          description:
            'Required: what you saw refunded of the order so far (0 for none; orders_get says it). The refund is made only if that is still so: a call repeated after a lost answer is refused (precondition_failed) instead of refunding twice.',
          minimum: 0,
          type: 'integer',
        },
        id: id('order'),
        reason: text('Why it is refunded.'),
      },
      ['id', 'expect_refunded'],
    ),
    name: 'orders_refund',
    outputSchema: {anyOf: [result({checks: {type: 'object'}, money_unit: moneyUnit, refund: {type: 'object'}}), dryRunResult], type: 'object'},
    async run(a, deps) {
      const work = async (client: Awaited<ReturnType<ToolDeps['client']>>) => {
        const money = (n: number, currency: string) => `${n} ${currency}`
        const facts = refundFacts(
          await checkRefund(client, a.id as number, {amount: a.amount as number, expectRefunded: a.expect_refunded as number, money}),
        )
        return {
          checks: facts,
          refund: await checked(facts, () => refundOrder(client, a.id as number, {amount: a.amount as number, reason: a.reason as string})),
        }
      }
      if (a.dry_run === true) return planned(deps, work)
      return {money_unit: await deps.moneyUnit(), ...(await work(await deps.client()))}
    },
    title: 'Refund an order',
  }),
  writer({
    description:
      'Register a webhook endpoint (HTTPS), once: an endpoint that already has this URL and these events is returned (existing: true) instead of a second, as the API can delete none. Its signing secret is kept in the profile, never returned: `commerce webhooks secret ID --reveal` shows it to a person.',
    destructive: false,
    idempotent: true,
    inputSchema: object(
      {
        events: {
          description: `Event types (the service documents ${EVENT_TYPES.join(', ')}).`,
          items: {minLength: 1, type: 'string'},
          minItems: 1,
          type: 'array',
        },
        url: text('The HTTPS URL the service delivers to.', {format: 'uri'}),
      },
      ['url', 'events'],
    ),
    name: 'webhooks_create',
    outputSchema: result({
      endpoint: {type: 'object'},
      existing: {type: 'boolean'},
      note: nullable('string'),
      signing_secret_stored_in_profile: nullable('string'),
    }),
    async run(a, deps) {
      const input = {events: a.events as string[], url: a.url as string}
      const existing = await endpointFor(await deps.client(), input)
      if (existing) {
        const {signing_secret: _kept, ...endpoint} = existing as typeof existing & {signing_secret?: string}
        return {endpoint, existing: true, note: null, signing_secret_stored_in_profile: null}
      }
      const made = await createWebhook(deps.ctx, input)
      const {signing_secret: _secret, ...endpoint} = made.endpoint
      return {endpoint, existing: false, note: made.note ?? null, signing_secret_stored_in_profile: made.profile}
    },
    title: 'Register a webhook endpoint',
  }),
]
