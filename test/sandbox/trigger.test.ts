/**
 * `commerce webhooks trigger` against the sandbox, as users run it (the built CLI): every event, --customer,
 * --set overrides that change the delivery only, unknown fields exit 2 with nothing fired or changed, and
 * a human line that says what was created.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {SANDBOX_EVENTS} from '../../src/sandbox/decisions.js'
import {type Receiver, type Session, startReceiver, startSession} from '../helpers/webhooks-setup.js'
import {call, token} from '../helpers/sandbox-client.js'

let session: Session
let receiver: Receiver
let t: string
beforeAll(async () => {
  session = await startSession()
  receiver = await startReceiver()
  t = await token(session.sandbox)
  const r = await call(session.sandbox, 'POST', '/api/v2/webhooks', {json: {url: receiver.url, events: [...SANDBOX_EVENTS]}, token: t})
  expect(r.status).toBe(201)
})
afterAll(async () => {
  await receiver.close()
  await session.close()
})

async function delivered(eventId: string): Promise<any> {
  await session.sandbox.deliveriesSettled()
  const got = receiver.received.find((r) => r.headers['x-service-event-id'] === eventId)
  return got && JSON.parse(got.body.toString())
}

describe('webhooks trigger', () => {
  it('without --order says which customer and order it created, then reuses the sandbox customer', async () => {
    const first = await session.cli(['webhooks', 'trigger', 'order.paid'])
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toMatch(
      /^order\.paid: order (\d+) is paid; created customer (\d+) \(sandbox-trigger@example\.com\) and order \1 in the sandbox; event evt_\w+ is being delivered to 1 endpoint\.\n$/,
    )
    const second = await session.cli(['webhooks', 'trigger', 'order.shipped'])
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toMatch(
      /^order\.shipped: order (\d+) is shipped; created order \1 for sandbox customer \d+ \(sandbox-trigger@example\.com\) in the sandbox;/,
    )
  })

  it('fires each event; --customer names the customer of a customer event', async () => {
    for (const type of SANDBOX_EVENTS) {
      const r = await session.cli(['webhooks', 'trigger', type, '--json'])
      expect(r.code, `${type}: ${r.stderr}`).toBe(0)
      expect((await delivered(r.json().event_id))?.type).toBe(type)
    }
    const c = (await call(session.sandbox, 'POST', '/api/v2/customers', {json: {email: 'named@example.com', name: 'Named'}, token: t})).body
    const r = await session.cli(['webhooks', 'trigger', 'customer.updated', '--customer', String(c.id)])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`^customer\\.updated: customer ${c.id} \\(named@example\\.com\\); event evt_\\w+`))
    // The customer a customer.created is about is made for it: said once.
    const created = await session.cli(['webhooks', 'trigger', 'customer.created'])
    expect(created.stdout).toMatch(
      /^customer\.created: created customer (\d+) \([^)]+\) in the sandbox; event evt_\w+ is being delivered to 1 endpoint\.\n$/,
    )
  })

  it('--set data.total=1: the delivery carries total 1, the stored order keeps its total', async () => {
    const r = await session.cli(['webhooks', 'trigger', 'order.paid', '--set', 'data.total=1', '--set', 'data.currency="XXX"', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const answer = r.json()
    const event = await delivered(answer.event_id)
    expect(event.data).toMatchObject({id: answer.order.id, total: 1, currency: 'XXX'})
    const stored = (await session.cli(['orders', 'get', String(answer.order.id), '--json'])).json()
    expect(stored.total).toBe(answer.order.total)
    expect(stored.total).not.toBe(1)
  })

  it('--set data.nope=1 is exit 2 naming the field: nothing fired, nothing changed', async () => {
    await session.sandbox.deliveriesSettled()
    const before = {counts: session.sandbox.counts(), received: receiver.received.length}
    for (const set of ['data.nope=1', 'total=1', 'data.total']) {
      const r = await session.cli(['webhooks', 'trigger', 'order.paid', '--set', set])
      expect(r.code, set).toBe(2)
      expect(r.stderr, set).toMatch(set === 'data.nope=1' ? /data\.nope/ : /data\.FIELD=VALUE/)
    }
    await session.sandbox.deliveriesSettled()
    expect(session.sandbox.counts()).toEqual(before.counts)
    expect(receiver.received.length).toBe(before.received)
  })
})
