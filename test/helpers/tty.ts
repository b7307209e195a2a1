/**
 * What the terminal tests share: a sandbox on an ephemeral port, a private config directory, the environment
 * that logs the CLI in with the sandbox's full-scope key, and a few direct requests to arrange data.
 */
import {afterAll, afterEach, beforeAll} from 'vitest'

import {tempConfigDir} from './cli.js'
import {startTestSandbox, type TestSandbox} from './sandbox.js'
import {killAllSessions} from './tmux.js'

export interface TtyFixture {
  sb: TestSandbox
  configDir: string
  /** COMMERCE_CONFIG_DIR plus the base URL and key pair in the environment. */
  env: Record<string, string>
  /** A request to the sandbox with a token of the full-scope key; resolves with status and parsed body. */
  api(method: string, path: string, body?: unknown): Promise<{status: number; body: any}>
}

/** Registers the hooks of one test file and returns the fixture, filled in by beforeAll. */
export function useTtyFixture(): TtyFixture {
  const fixture = {} as TtyFixture
  let cleanup = () => {}
  let token: string | undefined

  beforeAll(async () => {
    const sb = await startTestSandbox()
    const config = tempConfigDir()
    cleanup = config.cleanup
    const key = sb.keys[0]
    fixture.sb = sb
    fixture.configDir = config.dir
    fixture.env = {COMMERCE_BASE_URL: sb.baseUrl, COMMERCE_CONFIG_DIR: config.dir, COMMERCE_KEY_ID: key.key_id, COMMERCE_KEY_SECRET: key.key_secret}
    fixture.api = async (method, path, body) => {
      token ??= (await request(sb, 'POST', '/api/v2/auth/tokens', {key_id: key.key_id, key_secret: key.key_secret})).body.access_token
      return request(sb, method, path, body, token)
    }
  })
  afterEach(killAllSessions)
  afterAll(async () => {
    await fixture.sb?.close()
    cleanup()
  })
  return fixture
}

async function request(sb: TestSandbox, method: string, path: string, body?: unknown, token?: string) {
  const headers: Record<string, string> = {accept: 'application/json'}
  if (token) headers.authorization = `Bearer ${token}`
  if (body !== undefined || path.startsWith('/_sandbox/')) headers['content-type'] = 'application/json'
  if (method === 'POST' && path === '/api/v2/orders') headers['idempotency-key'] = crypto.randomUUID()
  const res = await fetch(sb.baseUrl + path, {body: body === undefined ? undefined : JSON.stringify(body), headers, method})
  const text = await res.text()
  return {body: text ? JSON.parse(text) : undefined, status: res.status}
}

let serial = 0

/** A new customer through the API; resolves with its id. */
export async function newCustomer(fixture: TtyFixture): Promise<number> {
  const email = `tty-${process.pid}-${++serial}@example.com`
  const created = await fixture.api('POST', '/api/v2/customers', {email, name: `TTY ${serial}`, send_invite: false})
  if (created.status !== 201) throw new Error(`customer create: ${created.status} ${JSON.stringify(created.body)}`)
  return created.body.id
}

/** A paid order (created, then paid through the sandbox control path); resolves with its id. */
export async function newPaidOrder(fixture: TtyFixture): Promise<number> {
  const customerId = await newCustomer(fixture)
  const products = await fixture.api('GET', '/api/v2/products?per_page=1')
  const product = products.body.data[0]
  const order = await fixture.api('POST', '/api/v2/orders', {
    currency: product.currency ?? 'USD',
    customer_id: customerId,
    items: [{product_id: product.id, quantity: 1}],
  })
  if (order.status !== 201) throw new Error(`order create: ${order.status} ${JSON.stringify(order.body)}`)
  const paid = await fixture.api('POST', `/_sandbox/orders/${order.body.id}/pay`)
  if (paid.status !== 200) throw new Error(`order pay: ${paid.status} ${JSON.stringify(paid.body)}`)
  return order.body.id
}
