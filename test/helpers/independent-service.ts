/**
 * A second, independent fake of the service (not the sandbox): written from service-spec.md alone, and deciding
 * its gaps differently from src/sandbox/decisions.ts, so that a test passing against both depends on no sandbox
 * decision. Where the sandbox answers a DELETE with a body, this one answers 204; its webhook list is a bare array;
 * its refunds have string ids; its error bodies carry `{message, errors}` under `error`; a pending order refused a
 * refund is a 409; every resource it returns carries fields the spec does not show (withExtras). It keeps every request it was sent, and `hold` makes matching requests take effect and then
 * never be answered (the client's answer lost), which is how a client killed mid-request is produced.
 */
import {randomBytes} from 'node:crypto'
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'

export interface SeenRequest {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: any
}

interface Order {
  id: number
  customer_id: number
  status: 'pending' | 'paid' | 'shipped' | 'refunded'
  total: number
  currency: string
  items: Array<{product_id: number; quantity: number; unit_price: number}>
  placed_at: string
}

export interface IndependentService {
  url: string
  key: {key_id: string; key_secret: string}
  requests: SeenRequest[]
  customers: Map<number, {id: number; email: string; name: string; status: string; created_at: string}>
  orders: Map<number, Order>
  webhooks: Array<{id: string; url: string; events: string[]}>
  refunds: Array<{id: string; order_id: number; amount: number}>
  /** Requests for which `when` is true take effect, then are never answered (until close). */
  hold(when: (req: SeenRequest) => boolean): void
  /** Resolves when a held request has arrived. */
  held(): Promise<SeenRequest>
  pay(orderId: number): void
  /** A new access token, as a token issue would give (each issue gives another; all stay valid). */
  issueToken(): string
  /** Requests other than token issues. */
  apiRequests(): SeenRequest[]
  close(): Promise<void>
}

type Reply = [status: number, body?: unknown]

/**
 * Every resource it returns carries fields the spec does not show, as real services' do (`object`, `updated_at`,
 * `_links`): a CLI that reads only the fields it knows, or refuses the others, fails against it.
 */
function withExtras(answer: unknown, path: string): unknown {
  const object = /\/api\/v\d\/(\w+?)s?(?:\/|\?|$)/.exec(path)?.[1] ?? 'resource'
  const extra = (record: unknown): unknown =>
    record !== null && typeof record === 'object' && !Array.isArray(record) && 'id' in record
      ? {
          ...record,
          _links: {self: `${path.split('?')[0]}`},
          object: /\/refunds$/.test(path) ? 'refund' : object,
          updated_at: new Date().toISOString(),
        }
      : record
  if (Array.isArray(answer)) return answer.map(extra)
  if (answer !== null && typeof answer === 'object' && Array.isArray((answer as {data?: unknown}).data))
    return {...answer, data: (answer as {data: unknown[]}).data.map(extra)}
  return extra(answer)
}

export async function startIndependentService(): Promise<IndependentService> {
  const key = {key_id: `ind_${randomBytes(4).toString('hex')}`, key_secret: `ind_secret_${randomBytes(12).toString('hex')}`}
  const tokens = new Set<string>()
  const issueToken = () => {
    const token = `ind_tok_${randomBytes(12).toString('hex')}`
    tokens.add(token)
    return token
  }
  const customers: IndependentService['customers'] = new Map()
  const orders = new Map<number, Order>()
  const keys = new Map<string, number>()
  const webhooks: IndependentService['webhooks'] = []
  const refunds: IndependentService['refunds'] = []
  const requests: SeenRequest[] = []
  let holdWhen: ((req: SeenRequest) => boolean) | undefined
  let onHeld: ((req: SeenRequest) => void) | undefined
  const heldQueue: SeenRequest[] = []
  let next = 100

  const invalid = (field: string, message: string): Reply => [422, {error: {errors: {[field]: [message]}, message: `${field} ${message}`}}]

  function route(req: SeenRequest): Reply {
    const {method, path} = req
    if (method === 'POST' && path === '/api/v2/auth/tokens') {
      if (req.body?.key_id !== key.key_id || req.body?.key_secret !== key.key_secret) return [422, {message: 'key pair rejected'}]
      return [201, {access_token: issueToken(), expires_in: 3600, scopes: ['orders:read', 'orders:write', 'customers:read'], token_type: 'Bearer'}]
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
    if (bearer === undefined || !tokens.has(bearer)) return [401, {error: {message: 'unauthenticated'}}]
    const m = /^\/api\/v2\/(customers|orders|webhooks)(?:\/(\d+))?(\/refunds)?(?:\?(.*))?$/.exec(path)
    if (!m) return [404, {error: {message: 'no such route'}}]
    const [, kind, id, refundsPath, query] = m
    if (kind === 'customers') return customersRoute(method, id === undefined ? undefined : Number(id), req.body, new URLSearchParams(query))
    if (kind === 'orders') return ordersRoute(method, id === undefined ? undefined : Number(id), refundsPath !== undefined, req)
    if (method === 'POST') {
      const hook = {events: req.body.events, id: `ep${next++}`, url: req.body.url}
      webhooks.push(hook)
      return [201, {...hook, signing_secret: `ind_whsec_${randomBytes(8).toString('hex')}`}]
    }
    return [200, webhooks]
  }

  function customersRoute(method: string, id: number | undefined, body: any, query: URLSearchParams): Reply {
    if (id === undefined && method === 'POST') {
      if ([...customers.values()].some((c) => c.email === body.email)) return invalid('email', 'has already been taken')
      const c = {created_at: new Date().toISOString(), email: body.email, id: next++, name: body.name, status: 'active'}
      customers.set(c.id, c)
      return [201, c]
    }
    if (id === undefined) {
      const q = query.get('q')?.toLowerCase() ?? ''
      const data = [...customers.values()].filter((c) => c.email.toLowerCase().includes(q) || c.name.toLowerCase().includes(q)).reverse()
      return [200, {data, meta: {page: 1, per_page: 30, total: data.length}}]
    }
    const c = customers.get(id)
    if (!c) return [404, {error: {message: 'customer not found'}}]
    if (method === 'DELETE') {
      customers.delete(id)
      return [204]
    }
    return [200, c]
  }

  function ordersRoute(method: string, id: number | undefined, refund: boolean, req: SeenRequest): Reply {
    if (id === undefined && method === 'POST') {
      const k = req.headers['idempotency-key']
      if (typeof k !== 'string') return invalid('idempotency_key', 'is required')
      const replay = keys.get(k)
      if (replay !== undefined) return [201, orders.get(replay)]
      if (!customers.has(req.body.customer_id)) return invalid('customer_id', 'does not exist')
      const items = req.body.items.map((i: any) => ({product_id: i.product_id, quantity: i.quantity ?? 1, unit_price: 1000}))
      const total = items.reduce((s: number, i: any) => s + i.quantity * i.unit_price, 0)
      const o: Order = {
        currency: req.body.currency,
        customer_id: req.body.customer_id,
        id: next++,
        items,
        placed_at: new Date().toISOString(),
        status: 'pending',
        total,
      }
      orders.set(o.id, o)
      keys.set(k, o.id)
      return [201, o]
    }
    if (id === undefined && req.method === 'GET') {
      // Newest first, one page of everything (it decides its own page size: the spec does not show one).
      const data = [...orders.values()].reverse()
      return [200, {data, meta: {page: 1, per_page: Math.max(1, data.length), total: data.length}}]
    }
    const o = id === undefined ? undefined : orders.get(id)
    if (!o) return [404, {error: {message: 'order not found'}}]
    if (!refund) return [200, o]
    if (o.status !== 'paid' && o.status !== 'shipped') return [409, {error: {message: `a ${o.status} order cannot be refunded`}}]
    o.status = 'refunded'
    const r = {amount: req.body?.amount ?? o.total, id: `rf_${next++}`, order_id: o.id}
    refunds.push(r)
    return [201, r]
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = ''
    req.setEncoding('utf8').on('data', (d: string) => (text += d))
    req.on('end', () => {
      let body: unknown
      try {
        body = text ? JSON.parse(text) : undefined
      } catch {}
      const seen: SeenRequest = {body, headers: req.headers, method: req.method ?? 'GET', path: req.url ?? '/'}
      requests.push(seen)
      const [status, answer] = route(seen)
      if (holdWhen?.(seen)) {
        heldQueue.push(seen)
        onHeld?.(seen)
        return // took effect; never answered
      }
      res.writeHead(status, answer === undefined ? {} : {'content-type': 'application/json'})
      res.end(answer === undefined ? undefined : JSON.stringify(withExtras(answer, seen.path)))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    apiRequests: () => requests.filter((r) => !r.path.endsWith('/auth/tokens')),
    close: () =>
      new Promise<void>((resolve) => {
        // Held requests are never answered: their connections are closed with the idle ones.
        server.closeAllConnections()
        server.close(() => resolve())
      }),
    customers,
    held: () => (heldQueue.length > 0 ? Promise.resolve(heldQueue[0]) : new Promise((resolve) => (onHeld = resolve))),
    hold(when) {
      holdWhen = when
    },
    issueToken,
    key,
    orders,
    pay(orderId) {
      orders.get(orderId)!.status = 'paid'
    },
    refunds,
    requests,
    url: `http://127.0.0.1:${port}`,
    webhooks,
  }
}
