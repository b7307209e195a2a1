/**
 * The OpenAPI 3.1 `webhooks` section: what the sandbox sends to a registered endpoint, one entry per event of
 * SANDBOX_EVENTS (the table WebhookCreate's enum is made from too), its body, its headers, the answer it waits for
 * and its retries, from the same constants the deliveries use (decisions.ts). A receiver's author reads it here.
 */
import {DELIVERY_RETRY_DELAYS_MS, DELIVERY_TIMEOUT_MS, SANDBOX_EVENTS, type SandboxEvent} from './decisions.js'
import {object, ref, type Schema, string} from './openapi-schemas.js'

/** The resource an event carries in `data`. */
const DATA: Record<string, string> = {customer: 'Customer', order: 'Order'}

const seconds = (ms: number) => (ms < 60_000 ? `${ms / 1000} s` : `${ms / 60_000} min`)

/** The event envelopes, one named shape per resource: `{id, type, created_at, data}`. */
export function eventSchemas(): Record<string, Schema> {
  const out: Record<string, Schema> = {}
  for (const [prefix, resource] of Object.entries(DATA))
    out[`${resource}Event`] = object(
      {
        created_at: string({format: 'date-time'}),
        data: ref(resource),
        id: string({description: 'The event id (`evt_…`), also in `X-Service-Event-Id`; the same on every retry.'}),
        type: string({enum: SANDBOX_EVENTS.filter((e) => e.startsWith(`${prefix}.`))}),
      },
      ['id', 'type', 'created_at', 'data'],
      {description: `A ${prefix} event: \`data\` is the ${prefix} as the API shows it, after the change.`},
    )
  return out
}

const HEADERS: Schema[] = [
  {
    description:
      'The signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the endpoint\'s signing secret>`; several `v1=` may follow (any one matching is enough). Compare in constant time, and refuse a `t` far from now.',
    in: 'header',
    name: 'X-Service-Signature',
    required: true,
    schema: string({pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$'}),
  },
  {
    description: 'The event id, the same on every retry: keep it to process each event once.',
    in: 'header',
    name: 'X-Service-Event-Id',
    required: true,
    schema: string(),
  },
]

function entry(event: SandboxEvent): Schema {
  const resource = DATA[event.split('.')[0]]
  const retries = DELIVERY_RETRY_DELAYS_MS.map(seconds).join(', ')
  return {
    post: {
      description: `Sent to every endpoint subscribed to \`${event}\` when it happens. Answer 2xx within ${seconds(DELIVERY_TIMEOUT_MS)}; anything else (or no answer) is retried after ${retries} (${DELIVERY_RETRY_DELAYS_MS.length + 1} attempts in all), each attempt signed afresh.`,
      operationId: `${event.replace(/\.(\w)/, (_, c: string) => c.toUpperCase())}Event`,
      parameters: HEADERS,
      requestBody: {content: {'application/json': {schema: ref(`${resource}Event`)}}, required: true},
      responses: {
        '200': {description: 'Received (any 2xx): not sent again.'},
        '400': {description: 'Refused (any other status, or no answer in time): sent again on the schedule above.'},
      },
      security: [],
      summary: `The ${event} event`,
      tags: ['webhooks'],
    },
  }
}

export function webhooksSection(): Record<string, Schema> {
  return Object.fromEntries(SANDBOX_EVENTS.map((event) => [event, entry(event)]))
}
