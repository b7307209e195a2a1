/**
 * The service described once: an OpenAPI 3.1 document of the 24 operations, made from the tables the sandbox and
 * the CLI validate with (OPERATIONS, LIMITS and the enums of src/domain/schema.ts; the scopes, statuses and shapes
 * the sandbox decided in decisions.ts), so that it cannot drift from them. Where the spec is silent, the document
 * says what the sandbox decided and marks it `x-sandbox-decision: true`. Served at `/openapi.json` by the sandbox,
 * printed by `commerce api --spec`; the test suite checks every answer of the sandbox against it.
 */
import {CUSTOMER_INCLUDES, LIMITS, OPERATIONS, type Operation, V1_SUNSET_DATE} from '../domain/schema.js'
import {DEFAULT_PER_PAGE, DELETE_CUSTOMER_STATUS, OPERATION_SCOPES, TOKEN_FAILURE_LIMIT} from './decisions.js'
import {decided, integer, page, ref, type Schema, SCHEMAS, string} from './openapi-schemas.js'
import {eventSchemas, webhooksSection} from './openapi-webhooks.js'

/** What each scope lets a token do (the scopes are the spec's; what they cover, the sandbox's OPERATION_SCOPES). */
const SCOPE_DESCRIPTIONS: Record<string, string> = {
  'customers:read': 'Read customers.',
  'orders:read': 'Read orders and webhook endpoints.',
  'orders:write': 'Create and refund orders, create, change and delete customers, register webhook endpoints.',
}

/** The document's `info.version`: bumped when what it describes changes. */
export const SANDBOX_API_VERSION = '1.8.0'

/** The schema (a name of the document's components) an operation answers with when it succeeds, if it has a body. */
export const responseSchemaOf = (operation: string): string | undefined => SHAPES[operation]?.schema

/** What each operation answers when it succeeds, and the bodies it takes. */
const SHAPES: Record<string, {status: number; schema?: string; body?: string; description: string}> = {
  createCustomer: {body: 'CustomerCreate', description: 'The customer.', schema: 'Customer', status: 201},
  createOrder: {body: 'OrderCreate', description: 'The order, in `pending` state.', schema: 'Order', status: 201},
  createWebhook: {body: 'WebhookCreate', description: 'The endpoint and its signing secret.', schema: 'WebhookCreated', status: 201},
  deleteCustomer: {description: 'Deleted (the status is the sandbox’s decision).', status: DELETE_CUSTOMER_STATUS},
  getCustomer: {description: 'The customer, with the collection asked for by `include`.', schema: 'CustomerWithIncludes', status: 200},
  getOrder: {description: 'The order.', schema: 'Order', status: 200},
  getProduct: {description: 'The product.', schema: 'Product', status: 200},
  issueToken: {body: 'TokenRequest', description: 'An access token.', schema: 'Token', status: 201},
  listCustomers: {description: 'A page of customers, newest first.', schema: 'CustomerPage', status: 200},
  listOrders: {description: 'A page of orders, newest first.', schema: 'OrderSummaryPage', status: 200},
  listProducts: {description: 'A page of products.', schema: 'ProductPage', status: 200},
  listWebhooks: {description: 'Every endpoint, on one page.', schema: 'WebhookPage', status: 200},
  refundOrder: {body: 'RefundCreate', description: 'The refund.', schema: 'Refund', status: 201},
  revokeToken: {description: 'Revoked (also when it already was).', status: 204},
  searchProducts: {description: 'The matching products, on one page.', schema: 'ProductPage', status: 200},
  updateCustomer: {body: 'CustomerUpdate', description: 'The customer as changed.', schema: 'Customer', status: 200},
}

/** Each operation as a reader of the document meets it: a summary, and what it does in a sentence or two. */
const ABOUT: Record<string, [summary: string, description: string]> = {
  createCustomer: ['Create a customer', 'Creates a customer; an invitation email is sent unless `send_invite` is false.'],
  createOrder: ['Create an order', 'Creates an order in `pending` state at catalogue prices.'],
  createWebhook: ['Register a webhook endpoint', 'Registers a URL for events; the answer carries its signing secret, once.'],
  deleteCustomer: ['Delete a customer', 'Deletes a customer.'],
  getCustomer: ['Retrieve a customer', 'One customer, with its orders or addresses when `include` asks for them.'],
  getOrder: ['Retrieve an order', 'One order, with its items and refunds.'],
  getProduct: ['Retrieve a product', 'One product, its price in `currency` when given.'],
  issueToken: ['Issue an access token', 'Exchanges a key pair for a bearer token valid for an hour, with the scopes asked for.'],
  listCustomers: ['List customers', 'A page of customers, newest first, filtered by `status` (and, in v2, by `q`).'],
  listOrders: ['List orders', 'A page of orders, newest first, filtered by `status` and `customer_id`.'],
  listProducts: ['List products', 'A page of the catalogue, prices in `currency` when given, filtered by `q`.'],
  listWebhooks: ['List webhook endpoints', 'Every registered endpoint, without signing secrets.'],
  refundOrder: ['Refund an order', 'Refunds a paid or shipped order, in whole or in part (`amount`).'],
  revokeToken: ['Revoke the access token', 'Revokes the bearer token the request carries.'],
  searchProducts: ['Search products', 'Products whose name or description holds every word of `q`.'],
  updateCustomer: ['Update a customer', 'Changes the fields given, `status` included.'],
}

/** The tags operations are grouped by (the first segment of their path), declared with what each covers. */
const TAGS = [
  {description: 'Access tokens from a key pair.', name: 'auth'},
  {description: 'The account’s customers.', name: 'customers'},
  {description: 'Orders and their refunds.', name: 'orders'},
  {description: 'The product catalogue (public).', name: 'products'},
  {description: 'Webhook endpoints; deliveries are signed with `X-Service-Signature`.', name: 'webhooks'},
]

/**
 * Where the operations are: the sandbox's own URL when it serves the document; otherwise (`commerce api --spec`)
 * a `base_url` variable, a local sandbox's by default.
 */
function serversOf(serverUrl: string | undefined): Schema[] {
  if (serverUrl) return [{description: 'This sandbox.', url: serverUrl}]
  return [
    {
      description: 'The service (or a sandbox: `commerce sandbox start`).',
      url: '{base_url}',
      variables: {base_url: {default: 'http://127.0.0.1:4242'}},
    },
  ]
}

const PAGING = [
  {in: 'query', name: 'per_page', schema: integer({default: DEFAULT_PER_PAGE, maximum: LIMITS.perPage.max, minimum: LIMITS.perPage.min})},
  {in: 'query', name: 'page', schema: integer({minimum: LIMITS.page.min})},
]
const Q = {in: 'query', name: 'q', schema: string({maxLength: LIMITS.searchMaxLength, minLength: 1})}
const CURRENCY = {description: 'Prices converted to this currency.', in: 'query', name: 'currency', schema: ref('Currency')}

function parameters(op: Operation, version: string): Schema[] {
  const path = [...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({in: 'path', name, required: true, schema: integer({minimum: 1})}))
  const query: Record<string, Schema[]> = {
    getCustomer: [{in: 'query', name: 'include', schema: string({enum: [...CUSTOMER_INCLUDES]})}],
    listCustomers: [...PAGING, {in: 'query', name: 'status', schema: ref('CustomerStatus')}, ...(version === 'v2' ? [Q] : [])],
    listOrders: [
      ...PAGING,
      {in: 'query', name: 'status', schema: ref('OrderStatus')},
      {in: 'query', name: 'customer_id', schema: integer({minimum: 1})},
    ],
    getProduct: [CURRENCY],
    listProducts: [...PAGING, CURRENCY, Q],
    searchProducts: [
      {...decided(Q, 'Parameters of the v1 search are not shown: `q`, as on the list, required (422 without it).'), required: true},
      ...PAGING,
      CURRENCY,
    ],
  }
  const header =
    op.id === 'createOrder' && version === 'v2'
      ? [
          {
            description: 'One key per logical order; a replay returns the original order.',
            in: 'header',
            name: 'Idempotency-Key',
            required: true,
            schema: string({format: 'uuid'}),
          },
        ]
      : []
  return [...path, ...(query[op.id] ?? []), ...header]
}

function errorResponse(status: number, description: string): Schema {
  const schema = status === 422 ? 'ValidationError' : 'ErrorMessage'
  return {content: {'application/json': {schema: ref(schema)}}, description}
}

function responses(op: Operation, version: string): Record<string, Schema> {
  const shape = SHAPES[op.id]
  const out: Record<string, Schema> = {
    [shape.status]: {description: shape.description, ...(shape.schema ? {content: {'application/json': {schema: ref(shape.schema)}}} : {})},
  }
  if (shape.body) {
    out[400] = errorResponse(400, 'The body is not JSON, is cut short, or nests too deep (the sandbox’s decision).')
    out[413] = errorResponse(413, 'The body is larger than 1 MiB (the sandbox’s decision).')
    out[415] = errorResponse(415, 'The body is not `application/json` (the sandbox’s decision).')
  }
  if (op.auth) out[401] = errorResponse(401, 'Missing, malformed or expired bearer token.')
  if (op.auth && OPERATION_SCOPES[op.id]) out[403] = errorResponse(403, `The token lacks the ${OPERATION_SCOPES[op.id]} scope.`)
  if (op.path.includes('{')) out[404] = errorResponse(404, 'No record has that id (an id that is not a positive integer names none).')
  if (op.id === 'issueToken')
    out[422] = {
      content: {'application/json': {schema: ref('ErrorMessage')}},
      description: 'The key pair (or a scope) was rejected: `{message}` only.',
    }
  // A GET answers 422 only for a query parameter it reads: listWebhooks reads none.
  else if (op.id === 'createOrder' && version === 'v2')
    out[422] = errorResponse(422, 'Validation failed, or the Idempotency-Key was used before with another body (`errors["Idempotency-Key"]`).')
  else if (shape.body || (op.method === 'GET' && parameters(op, version).some((p) => p.in === 'query')))
    out[422] = errorResponse(422, 'Validation failed.')
  if (op.id === 'createOrder' && version === 'v1')
    out[400] = errorResponse(400, 'An Idempotency-Key header, which v1 does not accept (the sandbox’s decision), or a bad body.')
  const limited = op.id === 'createOrder' || (version === 'v1' && (op.id === 'listCustomers' || op.id === 'listProducts'))
  if (op.id === 'issueToken')
    out[429] = {
      ...errorResponse(
        429,
        `Too many rejected key pairs for this \`key_id\` (${TOKEN_FAILURE_LIMIT.limit} in ${TOKEN_FAILURE_LIMIT.windowSeconds} s): every request for it is refused until \`Retry-After\` seconds have passed.`,
      ),
      headers: {'Retry-After': {description: 'Seconds to wait before trying again.', required: true, schema: integer()}},
    }
  if (limited)
    out[429] = {
      ...errorResponse(429, 'Rate limited: wait `Retry-After` seconds.'),
      headers: {'Retry-After': {description: 'Seconds to wait before trying again.', required: true, schema: integer()}},
    }
  // The spec shows the limits of order creation and of v1's lists only, and says other operations' limits are not
  // shown: a real service may limit any of them (v2's lists, a refund), so a generated client handles 429 on each.
  else if (op.auth)
    out[429] = {
      ...errorResponse(429, 'Rate limited: wait `Retry-After` seconds. The sandbox does not limit this operation; a service may.'),
      headers: {'Retry-After': {description: 'Seconds to wait before trying again, when the service says.', schema: integer()}},
    }
  return withHeaders(out, op, version, limited)
}

/** The headers the sandbox sends on the responses of an operation, declared on each response that may carry them. */
function withHeaders(out: Record<string, Schema>, op: Operation, version: string, limited: boolean): Record<string, Schema> {
  const rateLimit = {
    'RateLimit-Limit': {description: 'Requests allowed in the window (the operation’s own limit).', schema: integer()},
    'RateLimit-Remaining': {description: 'Requests left in the window.', schema: integer()},
    'RateLimit-Reset': {description: 'Seconds until the window starts afresh.', schema: integer()},
  }
  const deprecation = {
    Deprecation: {description: 'v1 is deprecated (`true`).', required: true, schema: string()},
    Link: {description: 'Where its successor is: `</api/v2>; rel="successor-version"`.', required: true, schema: string()},
    Sunset: {description: `When v1 retires (${V1_SUNSET_DATE}), as an HTTP date.`, required: true, schema: string()},
  }
  for (const [status, response] of Object.entries(out)) {
    const headers = {
      ...(response.headers as Record<string, Schema> | undefined),
      ...(limited ? rateLimit : {}),
      ...(version === 'v1' ? deprecation : {}),
      ...(status === '401' ? {'WWW-Authenticate': {description: 'The scheme to authenticate with: `Bearer` (RFC 6750).', schema: string()}} : {}),
      ...(op.id === 'issueToken' && status === '201'
        ? {'Cache-Control': {description: '`no-store`: a token is never kept by a cache.', required: true, schema: string({enum: ['no-store']})}}
        : {}),
      ...(op.id === 'createOrder' && version === 'v2' && status === '201'
        ? {
            'Idempotent-Replayed': {
              description: '`true` when this is the order an earlier request with the same key made.',
              schema: string({enum: ['true']}),
            },
          }
        : {}),
    }
    if (Object.keys(headers).length > 0) out[status] = {...response, headers}
  }
  return out
}

/**
 * The document: 24 operations under 20 paths, v1's marked deprecated with their Sunset. `serverUrl`: the sandbox
 * serving it (its `servers`); without it a `{base_url}` variable.
 */
export function openApiDocument(version: string, serverUrl?: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const op of Object.values(OPERATIONS) as Operation[])
    for (const v of op.versions) {
      const shape = SHAPES[op.id]
      const path = `/api/${v}${op.path}`
      paths[path] ??= {}
      const [summary, about] = ABOUT[op.id]
      paths[path][op.method.toLowerCase()] = {
        ...(v === 'v1' ? {deprecated: true} : {}),
        description: v === 'v1' ? `${about} v1 is deprecated and retires on ${V1_SUNSET_DATE} (\`Sunset\` header); use v2.` : about,
        operationId: `${op.id}${v.toUpperCase()}`,
        parameters: parameters(op, v),
        ...(shape.body ? {requestBody: {content: {'application/json': {schema: ref(shape.body)}}, required: op.id !== 'refundOrder'}} : {}),
        responses: responses(op, v),
        // The scope the token needs, said to every tool through the OAuth2 scheme; or any bearer token that has it.
        security: op.auth ? [{clientCredentials: OPERATION_SCOPES[op.id] ? [OPERATION_SCOPES[op.id]] : []}, {bearer: []}] : [],
        ...(OPERATION_SCOPES[op.id] ? {'x-sandbox-scope': OPERATION_SCOPES[op.id]} : {}),
        summary: `${summary}${v === 'v1' ? ' (v1, deprecated)' : ''}`,
        tags: [op.path.split('/')[1]],
      }
    }
  return {
    components: {
      schemas: {
        ...SCHEMAS,
        ...eventSchemas(),
        CustomerPage: page('Customer'),
        OrderSummaryPage: page('OrderSummary'),
        ProductPage: page('Product'),
        WebhookPage: decided(page('Webhook'), 'The spec does not show the list’s body: the page envelope, every endpoint on page 1.'),
      },
      securitySchemes: {
        bearer: {description: 'An access token from POST /api/v2/auth/tokens (1 hour).', scheme: 'bearer', type: 'http'},
        clientCredentials: {
          description:
            'A key pair exchanged for a bearer token (1 hour) with the scopes each operation names. The token request is JSON `{key_id, key_secret, scopes}` (the operation issueToken), not the form-encoded request of RFC 6749: a client that cannot send that uses `bearer` with a token it got so.',
          flows: {clientCredentials: {scopes: SCOPE_DESCRIPTIONS, tokenUrl: '/api/v2/auth/tokens'}},
          type: 'oauth2',
        },
      },
    },
    info: {
      contact: {name: 'commerce-cli', url: 'https://github.com/commerce-cli/commerce-cli/issues'},
      description:
        'The Commerce Service as the local sandbox of commerce-cli serves it. What the spec leaves open is marked `x-sandbox-decision` (a real service may differ).',
      license: {identifier: 'MIT', name: 'MIT'},
      title: 'Commerce Service (commerce-cli sandbox)',
      version,
    },
    openapi: '3.1.0',
    paths,
    security: [{clientCredentials: []}, {bearer: []}],
    servers: serversOf(serverUrl),
    tags: TAGS,
    webhooks: webhooksSection(),
  }
}
