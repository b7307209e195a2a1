/**
 * The OpenAPI document names every shape a generator would name (issue: openapi-python-client merged the three
 * inline `metadata` objects into one duplicate `CustomerMetadata` and dropped every customer response): an object
 * schema with properties is a component of its own, or the second member of a component's `allOf` (an extension of
 * a named base), never inline in a property, an array's items, a parameter or a response; and an `allOf` never has
 * sibling `properties` (generators take such a schema for an alias of its base).
 */
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {describe, expect, it} from 'vitest'

import {SANDBOX_EVENTS} from '../../src/sandbox/decisions.js'
import {openApiDocument, SANDBOX_API_VERSION} from '../../src/sandbox/openapi.js'
import {problemsAgainst} from '../helpers/openapi-check.js'
import {startTestSandbox} from '../helpers/sandbox.js'
import {call} from '../helpers/sandbox-client.js'

type Node = Record<string, unknown>
const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value)

/** Every schema with `properties` below `value`, with its path; `allowed` is true for where a named shape may be. */
function inlineObjects(value: unknown, path: string, out: string[]): void {
  if (Array.isArray(value)) return value.forEach((v, i) => inlineObjects(v, `${path}/${i}`, out))
  if (!isNode(value)) return
  if (isNode(value.properties)) out.push(path)
  for (const [key, child] of Object.entries(value)) inlineObjects(child, `${path}/${key}`, out)
}

describe('named shapes', () => {
  const document = openApiDocument(SANDBOX_API_VERSION) as {components: {schemas: Record<string, Node>}; paths: Node; webhooks?: Node}

  it('no object schema with properties outside the components, and inside them only at a component or its allOf', () => {
    const found: string[] = []
    inlineObjects(document.paths, '#/paths', found)
    inlineObjects(document.webhooks ?? {}, '#/webhooks', found)
    inlineObjects(document.components.schemas, '#/components/schemas', found)
    const named = /^#\/components\/schemas\/\w+(\/allOf\/\d+)?$/
    expect(found.filter((path) => !named.test(path))).toEqual([])
  })

  it('every amount of money is the one Amount schema: an integer count of the minor unit, marked as the sandbox decision', () => {
    const amount = document.components.schemas.Amount
    expect(amount).toMatchObject({type: 'integer', 'x-money-unit': 'minor', 'x-sandbox-decision': true})
    expect(amount.description).toMatch(/integer count of the currency's minor unit/)
    const MONEY = ['total', 'price', 'amount', 'unit_price', 'amount_refunded']
    const bare: string[] = []
    const walk = (value: unknown, path: string): void => {
      if (Array.isArray(value)) return value.forEach((v, i) => walk(v, `${path}/${i}`))
      if (!isNode(value)) return
      if (isNode(value.properties))
        for (const [name, schema] of Object.entries(value.properties))
          if (MONEY.includes(name) && !/#\/components\/schemas\/Amount"/.test(JSON.stringify(schema))) bare.push(`${path}/properties/${name}`)
      for (const [key, child] of Object.entries(value)) walk(child, `${path}/${key}`)
    }
    walk(document.components.schemas, '#/components/schemas')
    // The page envelope's total is a count of records, not money.
    expect(bare.filter((path) => !path.startsWith('#/components/schemas/PageMeta'))).toEqual([])
    expect((document.components.schemas.OrderSummary.properties as Node).total).toEqual({$ref: '#/components/schemas/Amount'})
  })

  it('no schema named Error (it shadows the global in generated TypeScript); each enumeration named once and referenced', () => {
    expect(Object.keys(document.components.schemas)).not.toContain('Error')
    const text = JSON.stringify(document)
    // The currencies are written once, in Currency; every other use is a reference to it.
    expect(text.split('["USD","EUR","GBP"]')).toHaveLength(2)
    expect(document.components.schemas.Currency).toMatchObject({enum: ['USD', 'EUR', 'GBP'], type: 'string'})
    for (const name of ['CustomerStatus', 'OrderStatus', 'EventType']) expect(document.components.schemas, name).toHaveProperty(name)
    expect((document.components.schemas.Refund.properties as Node).currency).toEqual({$ref: '#/components/schemas/Currency'})
  })

  it('429 is declared on every operation a token calls (a service may limit any: the spec shows some limits only)', () => {
    const missing: string[] = []
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, {responses: Node; security?: unknown[]}>>))
      for (const [method, operation] of Object.entries(item))
        if (operation.responses?.['401'] && !operation.responses['429']) missing.push(`${method.toUpperCase()} ${path}`)
    expect(missing).toEqual([])
    const paths = document.paths as Record<string, Record<string, {responses: Record<string, Node>}>>
    expect(paths['/api/v2/customers'].get.responses['429']).toBeDefined()
    expect(paths['/api/v2/orders/{order}/refunds'].post.responses['429']).toBeDefined()
  })

  it('an allOf has no sibling properties: an extension is a second member', () => {
    const siblings = Object.entries(document.components.schemas)
      .filter(([, schema]) => Array.isArray(schema.allOf) && ('properties' in schema || 'required' in schema))
      .map(([name]) => name)
    expect(siblings).toEqual([])
  })
})

describe('the webhooks section', () => {
  const document = openApiDocument(SANDBOX_API_VERSION) as {components: {schemas: Record<string, any>}; webhooks: Record<string, any>}

  it('names one entry per event the sandbox sends, the events an endpoint may subscribe to', () => {
    const subscribable = (document.components.schemas.EventType as {enum: string[]}).enum
    expect(Object.keys(document.webhooks)).toEqual([...SANDBOX_EVENTS])
    expect(subscribable).toEqual([...SANDBOX_EVENTS])
    for (const event of SANDBOX_EVENTS) {
      const post = document.webhooks[event].post
      expect(post.parameters.map((p: {name: string}) => p.name)).toEqual(['X-Service-Signature', 'X-Service-Event-Id'])
      expect(post.description).toContain('retried')
    }
  })

  it("a delivery the sandbox makes is what its entry says: the body its event's schema, the headers declared, the signature in the scheme", async () => {
    const received: Array<{headers: Record<string, unknown>; body: string}> = []
    const receiver = createServer((req, res) => {
      let body = ''
      req
        .on('data', (d: Buffer) => (body += d.toString()))
        .on('end', () => {
          received.push({body, headers: req.headers})
          res.writeHead(204).end()
        })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const sb = await startTestSandbox()
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
      await sb.seed({
        customers: {ana: {email: 'ana@hooks.example.com', name: 'Ana'}},
        orders: {o: {currency: 'USD', customer_id: '${ana.id}', items: [{product_id: 3, quantity: 1}]}},
        webhooks: {hook: {events: ['order.paid', 'customer.updated'], url}},
      })
      const paid = await call(sb, 'POST', '/_sandbox/events', {json: {type: 'order.paid'}})
      expect(paid.status, paid.text).toBeLessThan(300)
      await sb.deliveriesSettled()
      expect(received.length).toBeGreaterThan(0)
      const post = document.webhooks['order.paid'].post
      for (const {body, headers} of received) {
        const event = JSON.parse(body) as {type: string}
        const schema = event.type.startsWith('order.') ? 'OrderEvent' : 'CustomerEvent'
        expect(problemsAgainst(schema, event), body).toEqual([])
        for (const declared of post.parameters) {
          const value = headers[declared.name.toLowerCase()]
          expect(value, declared.name).toBeDefined()
          if (declared.schema.pattern) expect(String(value)).toMatch(new RegExp(declared.schema.pattern))
        }
      }
    } finally {
      await sb.close()
      receiver.close()
    }
  })
})
