/**
 * The sandbox's answers to every "not shown" of `service-spec.md`.
 *
 * Values the code uses are exported constants; `DECISIONS` states each gap and its answer in words, in the
 * order of the README's table. The CLI must not import this module: it talks to any service, not only to
 * the sandbox, and learns these behaviours from responses (status codes, headers, bodies).
 */
import type {Currency, MoneyUnit, Scope} from '../domain/schema.js'

/**
 * Money amounts (`total`, `unit_price`, `price`, refund `amount`) are integers in minor units (cents, pence): the
 * profile setting `money_unit` that `auth login --sandbox` stores (via the sandbox's state file).
 */
export const MONEY_UNIT_SETTING: MoneyUnit = 'minor'

/** The sandbox-only control path (no authentication), outside `/api/`. */
export const CONTROL_PREFIX = '/_sandbox'

/** `per_page` when the query does not give one. Deliberately not the CLI's default of 30. */
export const DEFAULT_PER_PAGE = 20

/**
 * Fixed conversion rates, in units of the currency per 10,000 US cents' worth. A price converts as
 * `round_half_up(price * RATES[to] / RATES[from])`.
 */
export const CURRENCY_RATES: Readonly<Record<Currency, number>> = {USD: 10_000, EUR: 9_200, GBP: 7_900}

export function convertPrice(amount: number, from: Currency, to: Currency): number {
  if (from === to) return amount
  return Math.floor((amount * CURRENCY_RATES[to]) / CURRENCY_RATES[from] + 0.5)
}

/** Operation id (src/domain/schema.ts OPERATIONS) -> scope a token needs. Absent: a valid token is enough. */
export const OPERATION_SCOPES: Readonly<Record<string, Scope>> = {
  listCustomers: 'customers:read',
  getCustomer: 'customers:read',
  createCustomer: 'orders:write',
  updateCustomer: 'orders:write',
  deleteCustomer: 'orders:write',
  listOrders: 'orders:read',
  getOrder: 'orders:read',
  createOrder: 'orders:write',
  refundOrder: 'orders:write',
  listWebhooks: 'orders:read',
  createWebhook: 'orders:write',
}

/** Rejected key pairs a `key_id` may have in a window before its token requests are refused (429) until it ends. */
export const TOKEN_FAILURE_LIMIT = {limit: 10, windowSeconds: 60} as const

/** `DELETE /api/v2/customers/{customer}` answers 204 with no body. */
export const DELETE_CUSTOMER_STATUS = 204

/** Request bodies larger than this answer 413. */
export const MAX_BODY_BYTES = 1024 * 1024
/** JSON bodies nesting objects/arrays deeper than this answer 400 (they could not be sent back out). */
export const MAX_JSON_DEPTH = 32

/** `Deprecation` and `Sunset` headers on every v1 response (Sunset: 2026-09-01, an HTTP date). */
export const V1_DEPRECATION_HEADER = 'true'
export const V1_SUNSET_HEADER = 'Tue, 01 Sep 2026 00:00:00 GMT'

/**
 * Webhook delivery retry schedule: the delay before each retry after a failed attempt (non-2xx, network
 * error, or no answer within DELIVERY_TIMEOUT_MS). 1 attempt + 5 retries, then the delivery is `failed`.
 */
export const DELIVERY_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 25_000, 120_000, 600_000]

/**
 * An endpoint that has refused every connection for 10 minutes (a `webhooks listen` that has ended: the service
 * has no operation to delete an endpoint) gets no more retries; its deliveries are `abandoned`.
 */
export const DELIVERY_ABANDON_REFUSED_MS = 10 * 60_000
export const DELIVERY_TIMEOUT_MS = 10_000
/** The delivery log keeps the most recent attempts only. */
export const DELIVERY_LOG_LIMIT = 1_000

/**
 * The events the sandbox sends, each when its change happens through any path (API, control path, scenario):
 * `data` is the order (create/GET shape) or the customer as the API shows it, after the change.
 */
export const SANDBOX_EVENTS = [
  'order.created',
  'order.paid',
  'order.shipped',
  'order.refunded',
  'customer.created',
  'customer.updated',
  'customer.deleted',
] as const
export type SandboxEvent = (typeof SANDBOX_EVENTS)[number]

/** The request log keeps the most recent requests only; bodies over REQUEST_LOG_BODY_BYTES are left out. */
export const REQUEST_LOG_LIMIT = 1_000
export const REQUEST_LOG_BODY_BYTES = 16 * 1024
/** The request log file is moved to FILE.1 past this size (so at most twice this on disk). */
export const REQUEST_LOG_FILE_BYTES = 10 * 1024 * 1024

/** An order line without `quantity` counts as one unit. */
export const DEFAULT_QUANTITY = 1

export interface Decision {
  gap: string
  decision: string
}

export const DECISIONS: readonly Decision[] = [
  {gap: 'Money unit', decision: 'Integers in minor units (cents, pence) for `total`, `unit_price`, `price` and refund `amount`.'},
  {
    gap: 'Customer statuses',
    decision:
      'Create gives `invited` when `send_invite` is true (the default), else `active`. PATCH may set any of `active`, `invited`, `archived`. An archived customer cannot place orders (422 on `customer_id`).',
  },
  {
    gap: 'PATCH /customers/{id}',
    decision:
      'Body: any of `email`, `name`, `status`, `metadata` (at least one). `metadata` is merged key by key into the stored one. 200 with the customer; 422 `{message, errors}` on invalid or taken email (case-insensitive), bad name or status; 404 unknown id.',
  },
  {
    gap: 'DELETE /customers/{id}',
    decision: "204, no body; 404 unknown id. The customer's orders remain (with their `customer_id`); the email becomes free.",
  },
  {
    gap: 'Order transitions',
    decision:
      '`pending` -> `paid` -> `shipped` only through the sandbox control path; `paid`/`shipped` -> `refunded` when refunds reach the total. Becoming `paid` emits `order.paid`.',
  },
  {
    gap: 'Order totals and items',
    decision:
      "`unit_price` is the product's price converted to the order currency; `quantity` defaults to 1; `total` = sum of `unit_price * quantity`. An item without `product_id` (optional in the spec) has no catalogue price: it costs 0 (`unit_price` 0) and is shown without `product_id`; one with an unknown id is 422 on `items.N.product_id`; an unknown or archived customer is 422 on `customer_id`. Stock is not enforced.",
  },
  {
    gap: 'Order shapes',
    decision:
      'Create and GET return `id, customer_id, status, total, currency, items, placed_at, amount_refunded, refunds`. Lists return `id, customer_id, status, total, currency, placed_at`.',
  },
  {
    gap: 'GET /orders/{id}, GET /products/{id}',
    decision: '200 with the resource; 404 `{message}` for an unknown or non-integer id. Products take `currency` as the list does.',
  },
  {
    gap: 'Refunds',
    decision:
      'Body `{amount?, reason?}`, both optional (`amount` in minor units; absent means the whole remaining amount). 201 with `{id, order_id, amount, currency, reason, created_at}`. Only `paid` or `shipped` orders (else 422 on `status`); more than the remaining amount is 422 on `amount`. When refunds reach the total the order becomes `refunded`.',
  },
  {
    gap: 'Idempotency-Key (v2 POST /orders)',
    decision:
      'Missing or not a UUID (any RFC 4122 form): 422 with `errors` on `Idempotency-Key`, as the spec lists for the operation. Same key (per key pair) and same body: 201 with the original order as first returned, plus `Idempotent-Replayed: true`; replays are not rate limited. Same key, different body: 422 on `Idempotency-Key`. Only successful creations are remembered (kept with the data). v1 with the header: 400 `{message}`.',
  },
  {
    gap: 'include',
    decision:
      "`orders`: array of the customer's orders (list shape, newest first). `addresses`: array of `{id, line1, city, postal_code, country}` (demo customers have one; others `[]`). Any other value: 422 on `include`.",
  },
  {
    gap: 'Currency conversion',
    decision:
      'Fixed rates per 1 USD: EUR 0.92, GBP 0.79. price_to = round-half-up(price * rate_to / rate_from). Without `currency`, each product shows its own price and currency.',
  },
  {
    gap: 'GET /api/v1/products/search',
    decision: 'Query `q` (required, at most 120 characters), `currency`, `page`, `per_page`; same page envelope as the list.',
  },
  {
    gap: 'Product search fields',
    decision:
      'Products carry a `description`; `q` is split into words, and a product matches when every word, in any order, is a case-insensitive substring of its name or description (`tea pot` finds "Teapot 1 l").',
  },
  {
    gap: 'Webhook list fields',
    decision:
      'Page envelope with every endpoint on page 1, newest first, each `{id, url, events, created_at}`; the `signing_secret` only in the registration response. Loopback `http://` URLs are accepted by the sandbox.',
  },
  {
    gap: 'Scopes per operation',
    decision:
      'customers list/get: `customers:read`; customer create/update/delete: `orders:write`; orders list/get and webhooks list: `orders:read`; order create, refund, webhook register: `orders:write`; token revoke: any valid token. Missing scope: 403 naming it.',
  },
  {
    gap: 'Token issue',
    decision:
      '`scopes` absent: every scope of the key; empty, unknown or not entitled: 422 `{message}`. Tokens live `tokenTtl` (3600 s) and are not kept across restarts (the CLI re-issues on 401). Revoking an already revoked token is 204; an expired or unknown one is 401.',
  },
  {
    gap: 'Error bodies',
    decision:
      '`{message}` for 400, 401, 403, 404, 405 (with `Allow`), 409, 413, 415, 429 and 500; 422 `{message, errors}` (token endpoints: `{message}`). 401 carries `WWW-Authenticate: Bearer`. Bodies: invalid JSON or nesting deeper than 32 levels 400, not `application/json` (or `+json`) 415, over 1 MiB 413.',
  },
  {
    gap: 'per_page default and range',
    decision: 'Default 20. Outside 1-100 or not an integer: 422 on `per_page` (likewise `page` < 1). A page past the end has empty `data`.',
  },
  {gap: 'List order', decision: 'Newest first = reverse creation order (id descending).'},
  {gap: 'Search cost', decision: '`q` filters scan the collection; unfiltered and status/customer-filtered lists read prebuilt indexes.'},
  {
    gap: 'Rate limits',
    decision:
      'Fixed windows. Order creation (v1 and v2 together): 10/60 s per key pair. v1 customer list: 60/60 s per key pair. v1 product list: 300/60 s per client address. Token issue: after 10 rejected key pairs in 60 s for one `key_id`, every further rejected pair for it is 429 until the window ends; the right pair is always issued its token and never counts. What is counted is a failed guess; what is held back is only the next guess: key ids are not secret (they are in logs, `auth status` and CI artifacts), so a throttle on the id alone would let anyone who saw one lock its owner out, again and again. No other operation is limited. 429 `{message}` with `Retry-After` (whole seconds until the window frees); a 429 changes nothing and does not count. Every other authorised request counts, 422s included.',
  },
  {
    gap: 'Event names',
    decision:
      '`order.created` (an order is placed), `order.paid` (pending -> paid), `order.shipped` (paid -> shipped), `order.refunded` (each refund, partial or full; `data` shows `amount_refunded` and `refunds`), `customer.created`, `customer.updated` (any PATCH that is accepted), `customer.deleted` (`data`: the customer as it was). Webhook registration accepts these names (422 on any other).',
  },
  {
    gap: 'Webhook deliveries',
    decision:
      'Body `{id, type, created_at, data: <order or customer>}`, headers `X-Service-Signature`, `X-Service-Event-Id`, `Content-Type: application/json`, `User-Agent: commerce-sandbox/<v>`. A 2xx within 10 s is success; otherwise retried after 1 s, 5 s, 25 s, 2 min, 10 min (6 attempts), each attempt signed afresh. Pending retries are dropped on stop.',
  },
  {gap: 'Unknown query parameters', decision: 'Ignored (so v1 ignores `q` on customers).'},
  {
    gap: 'Durability (sandbox only)',
    decision:
      'A change is answered only once it is appended to `<data file>.journal` and fsynced (concurrent requests share one fsync); the journal is compacted into the data file in the background once it outgrows it, and on a clean stop. After kill -9 nothing answered is lost and no answered id is reused; temp files a killed sandbox left are removed at start.',
  },
  {
    gap: 'Request log (sandbox only)',
    decision:
      'Every answered request but reads (GET) of the control path: time, method, path, query, status, duration, key id, bodies with key secrets, access tokens and signing secrets masked (by field name and by prefix) and response bodies over 16 KiB omitted. The last 1,000 in memory (`GET /_sandbox/logs`); `sandbox start` appends them to `sandbox.log`, rotated to `.1` past 10 MiB.',
  },
  {
    gap: 'Scenarios, reset, snapshots (sandbox only)',
    decision:
      'A scenario is applied first to a scratch copy of the store (no deliveries), then for real: any error is 422 on `kind.name.field` with nothing created. Reset and restore replace the data but keep the key pairs; reset starts ids at 1 again. Snapshots are files in a directory (in memory without a data file).',
  },
  {
    gap: 'Fault rules (sandbox only)',
    decision:
      'Checked in the order added, on `/api/...` requests only; the first matching rule applies (delay, then drop or status `{message}` with `Retry-After` if given) and uses one of its `count` (default 1); a `rate` rule draws from a mulberry32 generator seeded with `random_seed` and stays until cleared. Rules live in memory (not in the data file or snapshots).',
  },
  {
    gap: 'Control path access (sandbox only)',
    decision:
      "`/_sandbox/...` has no authentication, so it answers only requests whose `Host` names the bound address and port (bound to loopback: also `localhost`, `127.0.0.1`, `[::1]`), with no `Origin` or the sandbox's own (403), and writes with a JSON `Content-Type` (415): a web page cannot reach it. `sandbox start --host` beyond loopback warns on stderr.",
  },
]
