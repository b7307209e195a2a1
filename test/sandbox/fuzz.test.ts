/**
 * Property-based testing of the sandbox from its OpenAPI document (fast-check): generated requests, valid and
 * invalid, for every operation. Each answer: never a 5xx, a status the operation documents, a body that matches its
 * schema (test/helpers/openapi-check.ts); a request the document says is valid is accepted (for the operations
 * whose acceptance does not depend on earlier requests); and `commerce api`'s own body check agrees with the answer. Bounded: a fixed seed, 600 runs and 25 s at most; the
 * sandbox's clock moves a minute before each request, so rate limits never decide (a fresh token each time).
 */
import {isEmail} from '@hyperjump/json-schema-formats'
import {Ajv2020} from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {CURRENCIES, CUSTOMER_STATUSES, type HttpMethod, ORDER_STATUSES} from '../../src/domain/schema.js'
import {checkRequestBody} from '../../src/services/api-check.js'
import {SANDBOX_EVENTS} from '../../src/sandbox/decisions.js'
import {DOCUMENT, problemsOf} from '../helpers/openapi-check.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'
import {call, createCustomer, token} from '../helpers/sandbox-client.js'

let sb: TestSandbox
let customerId = 0
/** The customer PATCH and DELETE act on (so that the one orders go to stays active). */
let otherId = 0
let orderId = 0
beforeAll(async () => {
  sb = await startTestSandbox()
  const t = await token(sb)
  customerId = (await createCustomer(sb, t, 'fuzz-orders@example.com', {send_invite: false})).body.id
  otherId = (await createCustomer(sb, t, 'fuzz-other@example.com', {send_invite: false})).body.id
  const order = await call(sb, 'POST', '/api/v2/orders', {
    headers: {'idempotency-key': crypto.randomUUID()},
    json: {currency: 'USD', customer_id: customerId, items: [{product_id: 1}]},
    token: t,
  })
  orderId = order.body.id
})
afterAll(() => sb.close())

/** The oracle: the document's request schemas, with JSON Schema's email (RFC 5321 Mailbox and its sizes). */
const ajv = new Ajv2020({allErrors: true, strict: false})
addFormats.default(ajv)
ajv.addFormat('email', (s: string) => isEmail(s) && s.length <= 254 && s.lastIndexOf('@') <= 64)
ajv.addSchema({$id: 'doc', components: DOCUMENT.components})
const validBody = (name: string, body: unknown) => ajv.validate({$ref: `doc#/components/schemas/${name}`}, body)

let serial = 0
const text = fc.oneof(fc.string({maxLength: 40}), fc.string({maxLength: 300, unit: 'grapheme'}), fc.constant(''))
const anyJson = fc.jsonValue({maxDepth: 3})
const bodies: Record<string, fc.Arbitrary<unknown>> = {
  CustomerCreate: fc.oneof(
    fc.record(
      {email: fc.oneof(fc.emailAddress(), text), metadata: fc.oneof(fc.record({plan: text}), anyJson), name: text, send_invite: fc.constant(false)},
      {requiredKeys: ['send_invite']},
    ),
    anyJson,
  ),
  CustomerUpdate: fc.oneof(fc.record({name: text, status: fc.oneof(fc.constantFrom(...CUSTOMER_STATUSES), text)}, {requiredKeys: []}), anyJson),
  OrderCreate: fc.oneof(
    fc.record({
      currency: fc.oneof(fc.constantFrom(...CURRENCIES), text),
      customer_id: fc.oneof(fc.constant(-1), fc.integer({max: 5, min: -2})),
      items: fc.array(fc.record({product_id: fc.integer({max: 30, min: 0}), quantity: fc.integer({max: 4, min: 0})}, {requiredKeys: []}), {
        maxLength: 3,
      }),
    }),
    anyJson,
  ),
  RefundCreate: fc.oneof(fc.record({amount: fc.integer({max: 10_000, min: -1}), reason: text}, {requiredKeys: []}), anyJson),
  TokenRequest: fc.oneof(fc.record({key_id: text, key_secret: text, scopes: fc.array(text, {maxLength: 2})}, {requiredKeys: []}), anyJson),
  WebhookCreate: fc.oneof(
    fc.record({
      events: fc.array(fc.oneof(fc.constantFrom(...SANDBOX_EVENTS), text), {maxLength: 3}),
      url: fc.oneof(fc.webUrl({validSchemes: ['https']}), fc.webUrl(), text),
    }),
    anyJson,
  ),
}
const query = fc.record(
  {
    currency: fc.oneof(fc.constantFrom(...CURRENCIES), text),
    customer_id: fc.oneof(fc.bigInt({max: 10n ** 20n, min: -5n}).map(String), text),
    include: fc.oneof(fc.constantFrom('orders', 'addresses'), text),
    page: fc.oneof(fc.bigInt({max: 10n ** 20n, min: -5n}).map(String), text),
    per_page: fc.oneof(fc.integer({max: 120, min: -2}).map(String), text),
    q: fc.string({maxLength: 130, unit: 'grapheme'}),
    status: fc.oneof(fc.constantFrom(...CUSTOMER_STATUSES, ...ORDER_STATUSES), text),
  },
  {requiredKeys: []},
)
const operations = Object.entries(DOCUMENT.paths).flatMap(([template, methods]) =>
  Object.entries(methods).map(([method, op]) => ({method: method.toUpperCase(), op, template})),
)

/** Whether the document says the query is valid: each parameter of the operation against its schema. */
function validQuery(op: any, params: Record<string, string>): boolean {
  const known = new Map<string, any>((op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => [p.name, p.schema]))
  return Object.entries(params).every(([name, value]) => {
    const schema = known.get(name)
    if (!schema) return true // unknown parameters are ignored (a decision)
    // A named schema (Currency, OrderStatus) is resolved in the document.
    const typed = schema.type === 'integer' ? (/^-?\d+$/.test(value) ? Number(value) : value) : value
    return ajv.validate(typeof schema.$ref === 'string' ? {$ref: `doc${schema.$ref}`} : schema, typed)
  })
}

describe('property-based requests from the document', () => {
  it('every operation: no 5xx, documented statuses and bodies; valid creations and lists are accepted', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...operations), query, fc.nat(), async ({method, op, template}, params, pick) => {
        sb.clock.advance(61_000)
        const t = await token(sb)
        const customer = method === 'GET' ? customerId : otherId
        const ids: Record<string, number> = {customer: [customer, 999_999][pick % 2], order: [orderId, 999_999][pick % 2], product: (pick % 30) + 1}
        const path = template.replace(/\{(\w+)\}/g, (_: string, name: string) => String(ids[name]))
        const schemaName: string | undefined = op.requestBody?.content['application/json'].schema.$ref.split('/').pop()
        let body = schemaName ? fc.sample(bodies[schemaName], {numRuns: 1, seed: pick})[0] : undefined
        // Emails unique per run (a taken one is a 422 the document cannot foresee), kept valid or not as generated.
        if (schemaName === 'CustomerCreate' && body && typeof body === 'object' && typeof (body as any).email === 'string')
          body = {...body, email: (body as any).email.replace(/@/, `@u${++serial}.`)}
        if (schemaName === 'OrderCreate' && body && typeof body === 'object' && (body as any).customer_id === -1)
          body = {...body, customer_id: customerId}
        const usedParams = method === 'GET' ? params : {}
        const qs = new URLSearchParams(usedParams).toString()
        const headers: Record<string, string> = path === '/api/v2/orders' && method === 'POST' ? {'idempotency-key': crypto.randomUUID()} : {}
        const answer = await call(sb, method, `${path}${qs ? `?${qs}` : ''}`, {headers, json: body, token: t})
        expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(500)
        expect(problemsOf({method, path, requestBody: body ?? null, status: answer.status, text: answer.text || undefined})).toEqual([])
        // `commerce api` checks a body before sending it: never refusing one the sandbox takes, and each one it
        // refuses one the sandbox refuses too.
        let cliRefuses = false
        try {
          checkRequestBody({auth: true, body, method: method as HttpMethod, path}, path)
        } catch {
          cliRefuses = true
        }
        if (answer.status < 300) expect(cliRefuses, `commerce api refuses ${method} ${path} ${JSON.stringify(body)}`).toBe(false)
        if (cliRefuses) expect(answer.status, `commerce api refuses ${method} ${path} ${JSON.stringify(body)}`).toBeGreaterThanOrEqual(400)
        const accepts = ['createCustomer', 'createOrder', 'createWebhook', 'listCustomers', 'listOrders', 'listProducts']
        const opName = String(op.operationId).replace(/V\d$/, '')
        if (accepts.includes(opName) && (!schemaName || validBody(schemaName, body)) && validQuery(op, usedParams)) {
          // What the document cannot know: the order's customer and products exist (the catalogue's 24).
          const order = body as {customer_id?: number; items?: Array<{product_id?: number}>}
          const known = opName !== 'createOrder' || (order.customer_id === customerId && order.items!.every((i) => (i.product_id ?? 1) <= 24))
          if (known) expect(answer.status, `${method} ${path} ${JSON.stringify(body)} ${qs}: ${answer.text}`).toBeLessThan(300)
        }
      }),
      {interruptAfterTimeLimit: 25_000, numRuns: 600, seed: 36},
    )
  }, 60_000)
})
