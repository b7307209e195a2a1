/**
 * The schemas of the OpenAPI document (openapi.ts): the service's resources and bodies, from the tables the sandbox
 * and the CLI validate with. What the spec leaves open is marked `x-sandbox-decision`.
 */
import {CURRENCIES, CUSTOMER_STATUSES, LIMITS, ORDER_STATUSES, SCOPES} from '../domain/schema.js'
import {SANDBOX_EVENTS} from './decisions.js'

export type Schema = Record<string, unknown>

export const ref = (name: string): Schema => ({$ref: `#/components/schemas/${name}`})
export const decided = (schema: Schema, why: string): Schema => ({...schema, description: why, 'x-sandbox-decision': true})
export const integer = (extra: Schema = {}): Schema => ({type: 'integer', ...extra})
export const string = (extra: Schema = {}): Schema => ({type: 'string', ...extra})
export const object = (properties: Record<string, Schema>, required: string[] = [], extra: Schema = {}): Schema => ({
  properties,
  required,
  type: 'object',
  ...extra,
})
export const page = (item: string): Schema =>
  object({data: {items: ref(item), type: 'array'}, meta: ref('PageMeta')}, ['data', 'meta'], {description: 'The page envelope of every list.'})

/** The spec's "arbitrary key/value pairs": one named shape (Metadata), so that every generator makes one type of it. */
const METADATA = ref('Metadata')

export const SCHEMAS: Record<string, Schema> = {
  // The enumerations, each named once and referenced everywhere (a generator makes one type of each).
  Currency: string({description: 'A currency the service documents.', enum: [...CURRENCIES]}),
  CustomerStatus: string({enum: [...CUSTOMER_STATUSES]}),
  OrderStatus: string({enum: [...ORDER_STATUSES]}),
  EventType: decided(string({enum: [...SANDBOX_EVENTS]}), 'The event types the sandbox sends (the spec names the kinds, not every one).'),
  // Every amount of money, named once: generated clients then have one type that says what the number counts.
  Amount: decided(
    integer({minimum: 0, 'x-money-unit': 'minor'}),
    "An amount of money: an integer count of the currency's minor unit (cents of USD and EUR, pence of GBP). The spec shows no unit: this is the sandbox's; `commerce` says it beside every amount as money_unit: minor.",
  ),
  Address: decided(
    object({city: string(), country: string(), id: integer(), line1: string(), postal_code: string()}, ['id']),
    'An embedded address (`include=addresses`): not shown in the spec.',
  ),
  Metadata: {
    additionalProperties: true,
    description: 'Arbitrary key/value pairs; `plan` (a string) is the one the CLI has a flag for.',
    properties: {plan: string()},
    type: 'object',
  },
  Customer: object(
    {
      created_at: string({format: 'date-time'}),
      email: string({format: 'email'}),
      id: integer(),
      metadata: METADATA,
      name: string(),
      status: ref('CustomerStatus'),
    },
    ['id', 'email', 'name', 'status', 'created_at'],
  ),
  CustomerCreate: object(
    {
      email: string({format: 'email'}),
      metadata: METADATA,
      name: string({maxLength: LIMITS.customerNameMaxLength, minLength: 1, pattern: '\\S'}),
      // openapi-typescript makes a property with a default required unless told not to (--default-non-nullable false).
      send_invite: {default: true, description: 'Email an invitation; true when left out.', type: 'boolean'},
    },
    ['email', 'name'],
  ),
  CustomerUpdate: decided(
    object(
      {
        email: string({format: 'email'}),
        metadata: METADATA,
        name: string({maxLength: LIMITS.customerNameMaxLength, minLength: 1, pattern: '\\S'}),
        status: ref('CustomerStatus'),
      },
      [],
      {minProperties: 1},
    ),
    'Any of the create fields, and `status`; at least one.',
  ),
  // An extension of a named base is `allOf` of the base and a second member: generators make a type of each.
  CustomerWithIncludes: {
    allOf: [ref('Customer'), object({addresses: {items: ref('Address'), type: 'array'}, orders: {items: ref('OrderSummary'), type: 'array'}})],
  },
  // Not `Error`: generated TypeScript clients would shadow the global Error with it.
  ErrorMessage: decided(
    object({errors: {additionalProperties: {items: string(), type: 'array'}, type: 'object'}, message: string()}, ['message']),
    'Error bodies other than 422 are not shown in the spec: the sandbox sends `{message}`.',
  ),
  Order: {
    allOf: [
      ref('OrderSummary'),
      object(
        {
          amount_refunded: decided({allOf: [ref('Amount')]}, 'What was refunded so far.'),
          items: {items: ref('OrderItem'), type: 'array'},
          refunds: {items: ref('Refund'), type: 'array'},
        },
        ['items'],
      ),
    ],
  },
  OrderCreate: object(
    {
      currency: ref('Currency'),
      customer_id: integer({minimum: 1}),
      items: {items: ref('OrderItemCreate'), minItems: LIMITS.orderMinItems, type: 'array'},
    },
    ['customer_id', 'currency', 'items'],
  ),
  OrderItemCreate: object({product_id: integer({minimum: 1}), quantity: integer({minimum: 1})}),
  OrderItem: object({product_id: integer(), quantity: integer(), unit_price: ref('Amount')}, ['unit_price']),
  OrderSummary: object(
    {
      amount_refunded: decided({allOf: [ref('Amount')]}, 'What was refunded so far (in the list too: not shown in the spec).'),
      currency: ref('Currency'),
      customer_id: integer(),
      id: integer(),
      placed_at: string({format: 'date-time'}),
      status: ref('OrderStatus'),
      total: ref('Amount'),
    },
    ['id', 'customer_id', 'status', 'total', 'currency', 'placed_at'],
  ),
  PageMeta: object({page: integer(), per_page: integer(), total: integer()}, ['page', 'per_page', 'total']),
  Product: object(
    {
      currency: ref('Currency'),
      description: decided(string(), 'A sentence about the product (not shown in the spec).'),
      id: integer(),
      in_stock: {type: 'boolean'},
      name: string(),
      price: ref('Amount'),
    },
    ['id', 'name', 'price', 'currency', 'in_stock'],
  ),
  Refund: decided(
    object(
      {
        amount: ref('Amount'),
        created_at: string({format: 'date-time'}),
        currency: ref('Currency'),
        id: integer(),
        order_id: integer(),
        reason: {type: ['string', 'null']},
      },
      ['id', 'amount'],
    ),
    'Fields of a refund record are not shown in the spec.',
  ),
  RefundCreate: decided(
    object({amount: {allOf: [ref('Amount'), {minimum: 1}]}, reason: string()}),
    'The refund body is not shown: `amount` (default: what is left), `reason`.',
  ),
  Token: object({access_token: string(), expires_in: integer(), scopes: {items: string(), type: 'array'}, token_type: string()}, [
    'access_token',
    'token_type',
    'expires_in',
    'scopes',
  ]),
  TokenRequest: object(
    {key_id: string({minLength: 1}), key_secret: string({minLength: 1}), scopes: {items: string({enum: [...SCOPES]}), type: 'array'}},
    ['key_id', 'key_secret'],
  ),
  ValidationError: object({errors: {additionalProperties: {items: string(), type: 'array'}, type: 'object'}, message: string()}, [
    'message',
    'errors',
  ]),
  Webhook: object(
    {
      created_at: decided(string({format: 'date-time'}), 'When the endpoint was registered (not shown in the spec).'),
      events: {items: ref('EventType'), type: 'array'},
      id: string(),
      url: string({format: 'uri'}),
    },
    ['id', 'url', 'events'],
  ),
  WebhookCreate: object(
    {
      events: {items: ref('EventType'), minItems: LIMITS.webhookMinEvents, type: 'array'},
      url: string({
        description: 'HTTPS, with a host; the sandbox also takes http:// to a loopback host (its decision, for local listeners).',
        format: 'uri',
        pattern: '^(?:[Hh][Tt][Tt][Pp][Ss]://[^\\s/?#@:]+|[Hh][Tt][Tt][Pp]://(?:localhost|127\\.\\d+\\.\\d+\\.\\d+|\\[::1\\])(?:[:/?#]|$))',
      }),
    },
    ['url', 'events'],
  ),
  WebhookCreated: {allOf: [ref('Webhook'), object({signing_secret: string()}, ['signing_secret'])]},
}
