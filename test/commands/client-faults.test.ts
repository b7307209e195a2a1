/**
 * The HTTP client's contract, proven with the fx.faulty server (faults the sandbox cannot produce): the headers
 * sent, retries of 5xx and dropped connections (GET yes; customer create and v1 order create never; v2 order
 * create with the same Idempotency-Key), 429 with Retry-After in seconds or as an HTTP date, exit 5, error
 * bodies of any shape, Deprecation/Sunset headers, and redirects not followed.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {run, tempConfigDir} from '../helpers/cli.js'
import {useSandboxFixture} from '../helpers/sandbox-fixture.js'
import {type Script, startFaultyServer} from '../helpers/faulty-server.js'
import {runInProcess} from '../helpers/in-process.js'
import {issueToken, keyPairEnv, occurrences, requestsTo, storeProfile} from '../helpers/login.js'

const fx = useSandboxFixture({orderLimit: {limit: 1000, windowSeconds: 60}})
let token: string
let customerId: number

beforeAll(async () => {
  token = await issueToken(fx.sb.baseUrl, fx.sb.keys[0])
  const res = await fetch(`${fx.sb.baseUrl}/api/v2/customers`, {
    body: JSON.stringify({email: 'faults@example.com', name: 'Faults'}),
    headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
    method: 'POST',
  })
  customerId = ((await res.json()) as {id: number}).id
})

/** A config dir of its own (so that no token cached by another test is reused), removed after the file. */
const extraDirs: Array<() => void> = []
function tempDir(): string {
  const {cleanup, dir} = tempConfigDir()
  extraDirs.push(cleanup)
  return dir
}
afterAll(() => {
  for (const cleanup of extraDirs) cleanup()
})

const CUSTOMER = {created_at: '2026-01-01T00:00:00Z', email: 'x@example.com', id: 9, name: 'X', status: 'active'}
const page = (data: unknown[] = [CUSTOMER], total = data.length) => ({body: {data, meta: {page: 1, per_page: 30, total}}, status: 200})

/** Runs the CLI against a fx.faulty server answering with `script`, with a static token (no token request). */
async function against(script: Script, args: string[], options: {upstream?: string; env?: Record<string, string>} = {}) {
  await fx.faulty?.close() // a test may call this more than once
  fx.faulty = await startFaultyServer(script, options)
  // In this process, through the commands' seam: the client's behaviour needs no child process.
  const r = await runInProcess(args, {
    env: {COMMERCE_ACCESS_TOKEN: token, COMMERCE_BASE_URL: fx.faulty.url, COMMERCE_CONFIG_DIR: fx.dir, ...options.env},
  })
  return {...r, requests: fx.faulty.requests}
}

const createCustomer = ['customers', 'create', '--email', 'new@example.com', '--name', 'New']
const createOrder = (version = 'v2') => [
  'orders',
  'create',
  '--customer',
  String(customerId),
  '--currency',
  'USD',
  '--item',
  '1',
  '--api-version',
  version,
  '--json',
]

describe('what goes on the wire', () => {
  it('Accept, User-Agent, Content-Type with a body, the bearer token on protected calls', async () => {
    const r = await against(() => ({body: CUSTOMER, status: 201}), [...createCustomer, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const [req] = r.requests
    expect(req).toMatchObject({method: 'POST', url: '/api/v2/customers'})
    expect(req.headers.accept).toBe('application/json')
    expect(req.headers['user-agent']).toMatch(/^commerce-cli\/\d+\.\d+\.\d+\S* node\/v\d+\.\d+\.\d+$/)
    expect(req.headers['content-type']).toBe('application/json')
    expect(req.headers.authorization).toBe(`Bearer ${token}`)
    expect(JSON.parse(req.body)).toEqual({email: 'new@example.com', name: 'New', send_invite: true})
  })

  it('key_secret goes only to POST /auth/tokens; a GET carries no Content-Type', async () => {
    fx.faulty = await startFaultyServer(() => ({forward: true}), {upstream: fx.sb.baseUrl})
    const key = fx.sb.keys[0]
    const r = await run(['customers', 'list', '--json'], {env: keyPairEnv(tempDir(), fx.faulty.url, key)})
    expect(r.code, r.stderr).toBe(0)
    const [issue, list] = fx.faulty.requests
    expect(issue).toMatchObject({method: 'POST', url: '/api/v2/auth/tokens'})
    expect(issue.headers.authorization).toBeUndefined()
    expect(JSON.parse(issue.body)).toMatchObject({key_id: key.key_id, key_secret: key.key_secret})
    expect(list.method).toBe('GET')
    expect(list.headers['content-type']).toBeUndefined()
    expect(JSON.stringify(list)).not.toContain(key.key_secret)
    expect(fx.faulty.requests).toHaveLength(2)
  })
})

describe('network errors and 5xx', () => {
  it('a 5xx on a GET is retried, then succeeds', async () => {
    const r = await against((_req, i) => (i === 0 ? {body: {message: 'try later'}, status: 503} : page()), ['customers', 'list', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.requests).toHaveLength(2)
    expect(r.json()).toEqual([CUSTOMER])
  })

  it('a dropped connection on a GET is retried, then succeeds', async () => {
    const r = await against((_req, i) => (i === 0 ? {drop: true} : page()), ['customers', 'list', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.requests).toHaveLength(2)
  })

  it('a GET that keeps failing: 2 retries (3 requests) backing off from 0.5 s, doubling, then exit 1', async () => {
    const at: number[] = []
    const r = await against(() => {
      at.push(Date.now())
      return {body: {message: 'down'}, status: 503}
    }, ['customers', 'list'])
    expect(r.code).toBe(1)
    expect(r.requests).toHaveLength(3)
    expect(r.stderr).toContain('down')
    const [first, second] = [at[1] - at[0], at[2] - at[1]]
    expect(first).toBeGreaterThanOrEqual(490)
    expect(first).toBeLessThan(1000)
    expect(second).toBeGreaterThanOrEqual(990)
    expect(second).toBeLessThan(2000)
  })

  it('a 500 on a customer create is NOT retried: 1 request, exit 1, outcome unknown', async () => {
    const r = await against(() => ({body: {message: 'internal'}, status: 500}), createCustomer)
    expect(r.code).toBe(1)
    expect(r.requests).toHaveLength(1)
    expect(r.stderr).toMatch(/outcome .*unknown/i)
  })

  it('a dropped connection on a customer create is NOT retried: 1 request, exit 1, outcome unknown', async () => {
    const r = await against(() => ({drop: true}), [...createCustomer, '--json'])
    expect(r.code).toBe(1)
    expect(r.requests).toHaveLength(1)
    expect(r.json().error).toMatchObject({message: expect.stringMatching(/outcome is unknown/), status: null})
  })

  it('v2 order create whose response is lost: retried with the SAME Idempotency-Key; exactly one order exists', async () => {
    const before = fx.sb.counts().orders
    const r = await against((req, i) => (i === 0 ? {drop: true, forward: true} : {forward: true}), createOrder('v2'), {upstream: fx.sb.baseUrl})
    expect(r.code, r.stderr).toBe(0)
    const posts = requestsTo(r.requests, 'POST', '/api/v2/orders')
    expect(posts).toHaveLength(2)
    const key = posts[0].headers['idempotency-key']
    expect(key).toMatch(/^[0-9a-f-]{36}$/)
    expect(posts[1].headers['idempotency-key']).toBe(key)
    expect(posts[1].body).toBe(posts[0].body)
    expect(fx.sb.counts().orders).toBe(before + 1)
    expect(r.json()).toMatchObject({customer_id: customerId, idempotency_key: key})
  })

  it('v2 order create whose every attempt is lost: exit 1, and the hint gives the key that replays it, in 80 columns', async () => {
    const r = await against(() => ({drop: true, forward: true}), createOrder('v2'), {upstream: fx.sb.baseUrl})
    expect(r.code).toBe(1)
    const key = String(requestsTo(r.requests, 'POST', '/api/v2/orders')[0].headers['idempotency-key'])
    expect(r.stderr).toContain(`The order may have been created. To get it without creating a second one, rerun\nwith --idempotency-key ${key}.`)
    for (const line of r.stderr.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80)
  })

  it('v1 order create whose response is lost: exactly 1 request, never retried, exit 1 (the order exists)', async () => {
    const before = fx.sb.counts().orders
    const r = await against(() => ({drop: true, forward: true}), createOrder('v1'), {upstream: fx.sb.baseUrl})
    expect(r.code).toBe(1)
    expect(requestsTo(r.requests, 'POST', '/api/v1/orders')).toHaveLength(1)
    expect(r.requests).toHaveLength(1)
    expect(r.json().error.message).toMatch(/outcome is unknown/)
    expect(fx.sb.counts().orders).toBe(before + 1)
  })

  it('connection refused on a GET (loopback): exit 1 naming the host', async () => {
    const closed = await startFaultyServer(() => ({status: 200}))
    const url = closed.url
    await closed.close()
    const r = await run(['customers', 'list', '--json'], {env: {COMMERCE_ACCESS_TOKEN: token, COMMERCE_BASE_URL: url, COMMERCE_CONFIG_DIR: fx.dir}})
    expect(r.code).toBe(1)
    expect(r.json().error).toMatchObject({
      code: 'network_refused',
      exit_code: 1,
      message: expect.stringContaining('connection refused'),
      status: null,
    })
    expect(r.json().error.message).toContain(new URL(url).host)
  })

  it('no answer within COMMERCE_HTTP_TIMEOUT on a customer create: 1 request, exit 1, outcome unknown', async () => {
    const r = await against(() => new Promise(() => {}), createCustomer, {env: {COMMERCE_HTTP_TIMEOUT: '0.5'}})
    expect(r.code).toBe(1)
    expect(r.requests).toHaveLength(1)
    expect(r.stderr).toMatch(/timed out.*outcome is unknown/)
  })

  it('v1 order create answered 503: never retried', async () => {
    const r = await against(() => ({body: {message: 'busy'}, status: 503}), createOrder('v1'))
    expect(r.code).toBe(1)
    expect(r.requests).toHaveLength(1)
  })
})

describe('429 Too Many Requests', () => {
  const limited = (retryAfter: string) => ({body: {message: 'slow down'}, headers: {'retry-after': retryAfter}, status: 429})

  it('Retry-After in seconds: waits, retries, succeeds', async () => {
    const started = Date.now()
    const r = await against((_req, i) => (i === 0 ? limited('1') : page()), ['customers', 'list', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.requests).toHaveLength(2)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
  })

  it('Retry-After as an HTTP date: waits until then, retries, succeeds', async () => {
    const r = await against((_req, i) => (i === 0 ? limited(new Date(Date.now() + 1500).toUTCString()) : page()), ['customers', 'list', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.requests).toHaveLength(2)
  })

  it('a 429 on a POST is retried too (the service refused it, nothing was created)', async () => {
    const r = await against((_req, i) => (i === 0 ? limited('0') : {body: CUSTOMER, status: 201}), [...createCustomer, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.requests).toHaveLength(2)
  })

  it('still 429 after 3 retries: exit 5, saying when to try again', async () => {
    const r = await against(() => limited('0'), ['customers', 'list'])
    expect(r.code).toBe(5)
    expect(r.requests).toHaveLength(4)
    expect(r.stderr).toMatch(/Try again after \d{4}-/)
  })

  it('--max-wait 0: exit 5 at once (1 request); --json gives the error document', async () => {
    const r = await against(() => limited('1'), ['customers', 'list', '--max-wait', '0', '--json'])
    expect(r.code).toBe(5)
    expect(r.requests).toHaveLength(1)
    expect(r.json().error).toMatchObject({message: expect.stringContaining('429'), status: 429})
    expect(r.stderr).toMatch(/Try again after/)
  })

  it('a Retry-After longer than --max-wait: exit 5 at once, naming the wait', async () => {
    const started = Date.now()
    const r = await against(() => limited('90'), ['customers', 'list', '--max-wait', '30'])
    expect(r.code).toBe(5)
    expect(r.requests).toHaveLength(1)
    expect(r.stderr).toContain('90 s')
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})

describe('Ctrl-C', () => {
  it('during a 429 wait (token issued and cached first): exit 130, not death by signal', async () => {
    const {spawn} = await import('node:child_process')
    const {BIN} = await import('../helpers/cli.js')
    fx.faulty = await startFaultyServer((req) =>
      req.url.endsWith('/auth/tokens')
        ? {body: {access_token: 'tok_ctrl_c_test', expires_in: 3600, scopes: [], token_type: 'Bearer'}, status: 201}
        : {body: {message: 'slow down'}, headers: {'retry-after': '30'}, status: 429},
    )
    const env = {
      COMMERCE_BASE_URL: fx.faulty.url,
      COMMERCE_CONFIG_DIR: tempDir(),
      COMMERCE_KEY_ID: 'k',
      COMMERCE_KEY_SECRET: 's',
      PATH: process.env.PATH ?? '',
    }
    const child = spawn(process.execPath, [BIN, 'customers', 'list'], {env, stdio: ['ignore', 'pipe', 'pipe']})
    while (fx.faulty.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 20))
    child.kill('SIGINT')
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])))
    expect({code, signal}).toEqual({code: 130, signal: null})
  })
})

describe('Retry-After values', () => {
  it('seconds (a fraction too) or an HTTP date; anything else is unreadable (the client then waits 1 s)', async () => {
    const {parseRetryAfter} = await import('../../src/api/client.js')
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfter('30', now)).toBe(30_000)
    expect(parseRetryAfter(' 1.5 ', now)).toBe(1500)
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:20 GMT', now)).toBe(20_000)
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0)
    for (const v of [undefined, '', 'soon', '-1', '2 5', '30s']) expect(parseRetryAfter(v, now), String(v)).toBeUndefined()
  })
})

describe('429 messages', () => {
  const limited = (headers: Record<string, string> = {}) => ({body: {message: 'slow down'}, headers, status: 429})

  it('no Retry-After: waits 1 s between retries, then exit 5 saying when to try again (not to raise --max-wait)', async () => {
    const r = await against(() => limited(), ['customers', 'list'])
    expect(r.code).toBe(5)
    expect(r.requests).toHaveLength(4)
    expect(r.stderr).toMatch(/after 3 retries/)
    expect(r.stderr).toMatch(/Try again after \d{4}-.*\(in 1 s\)\.$/m)
    expect(r.stderr).not.toMatch(/max-wait/)
  })

  it('a Retry-After date in the past: retried at once; exit 5 after 3 retries', async () => {
    const started = Date.now()
    const r = await against(() => limited({'retry-after': new Date(Date.now() - 60_000).toUTCString()}), ['customers', 'list', '--json'])
    expect(r.code).toBe(5)
    expect(r.requests).toHaveLength(4)
    expect(Date.now() - started).toBeLessThan(5000)
    expect(r.json().error).toMatchObject({status: 429})
    expect(r.stderr).toMatch(/Try again after/)
  })

  it('a Retry-After over --max-wait: the message names the wait and the bound', async () => {
    const r = await against(() => limited({'retry-after': '300'}), ['customers', 'list'])
    expect(r.code).toBe(5)
    expect(r.requests).toHaveLength(1)
    expect(r.stderr).toContain('the service asks to wait 300 s, which would pass --max-wait (120 s)')
    expect(r.stderr).toMatch(/Try again after .*\(in 300 s\), or raise --max-wait\./)
  })
})

describe('lists from a service that pages its own way', () => {
  const records = (from: number, n: number) => Array.from({length: Math.max(0, n)}, (_, i) => ({...CUSTOMER, id: from + i}))
  const pageOf = (url: string) => Number(new URL(url, 'http://x').searchParams.get('page'))
  /** 120 records in pages of 50, whatever per_page is asked for; meta says so. */
  const capped: Script = (req) => {
    const p = pageOf(req.url)
    return {body: {data: records((p - 1) * 50 + 1, Math.min(50, 120 - (p - 1) * 50)), meta: {page: p, per_page: 50, total: 120}}, status: 200}
  }

  it('a smaller page size than asked (meta says it): --all, and --limit from --page 2, get every record', async () => {
    const all = await against(capped, ['customers', 'list', '--all', '--per-page', '100', '--json'])
    expect(all.code, all.stderr).toBe(0)
    expect(all.json().map((c: {id: number}) => c.id)).toEqual(records(1, 120).map((c) => c.id))
    const fromPage2 = await against(capped, ['customers', 'list', '--page', '2', '--per-page', '100', '--limit', '500', '--json'])
    expect(fromPage2.code, fromPage2.stderr).toBe(0)
    expect(fromPage2.json().map((c: {id: number}) => c.id)).toEqual(records(51, 70).map((c) => c.id))
  })

  it('no meta, and a smaller page size than asked: --limit and --all keep fetching until a short or empty page', async () => {
    // 65 records in pages of 20, no meta at all.
    const noMeta: Script = (req) => {
      const p = pageOf(req.url)
      return {body: {data: records((p - 1) * 20 + 1, Math.min(20, 65 - (p - 1) * 20))}, status: 200}
    }
    const limit = await against(noMeta, ['customers', 'list', '--limit', '50', '--json'])
    expect(limit.code, limit.stderr).toBe(0)
    expect(limit.json()).toHaveLength(50)
    const all = await against(noMeta, ['customers', 'list', '--all', '--json'])
    expect(all.code, all.stderr).toBe(0)
    expect(all.json().map((c: {id: number}) => c.id)).toEqual(records(1, 65).map((c) => c.id))
    expect(all.requests).toHaveLength(4)
  })

  it('--json, and a later page fails: stdout carries the error document alone, not a partial array', async () => {
    const secondFails: Script = (req) =>
      pageOf(req.url) === 1
        ? {body: {data: records(1, 1), meta: {page: 1, per_page: 1, total: 3}}, status: 200}
        : {body: {message: 'gone'}, status: 404}
    const r = await against(secondFails, ['customers', 'list', '--all', '--per-page', '1', '--json'])
    expect(r.code).toBe(4)
    expect(r.json()).toEqual({
      error: {
        code: 'not_found',
        errors: {},
        exit_code: 4,
        hint: null,
        message: expect.stringMatching(/^Not found \(HTTP 404\): GET \S*customers\.$/),
        retry_after: null,
        service_message: 'gone',
        status: 404,
      },
    })
  })

  it('a --json list larger than the 8 MiB buffer streams out; a failure after that leaves the array unterminated and the error on stderr', async () => {
    // 100 records of ~1.1 KB a page: ~110 KB a page, so the buffer is passed after ~75 pages.
    const big = {...CUSTOMER, metadata: {note: 'x'.repeat(1000)}}
    const page = (p: number) => Array.from({length: 100}, (_, i) => ({...big, id: (p - 1) * 100 + i + 1}))
    const pages = 90
    const ok = await against(
      (req) => ({body: {data: page(pageOf(req.url)), meta: {page: pageOf(req.url), per_page: 100, total: pages * 100}}, status: 200}),
      ['customers', 'list', '--all', '--per-page', '100', '--json'],
    )
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.json()).toHaveLength(pages * 100)
    const failing: Script = (req) => {
      const p = pageOf(req.url)
      return p < pages
        ? {body: {data: page(p), meta: {page: p, per_page: 100, total: pages * 100}}, status: 200}
        : {body: {message: 'gone'}, status: 404}
    }
    const r = await against(failing, ['customers', 'list', '--all', '--per-page', '100', '--json'])
    expect(r.code).toBe(4)
    expect(r.stdout.startsWith('[\n{')).toBe(true)
    expect(() => JSON.parse(r.stdout)).toThrow()
    expect(r.stdout).not.toContain('"error"')
    expect(r.stderr).toContain('Error: Not found (HTTP 404)')
    expect(r.stderr).toContain('The service said: gone')
  }, 60_000)

  it('no meta, and a service that ignores page: --all stops at the first repeated page', async () => {
    const r = await against(() => ({body: {data: records(1, 3)}, status: 200}), ['customers', 'list', '--all', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toHaveLength(3)
    expect(r.requests).toHaveLength(2)
  })
})

describe('2xx responses of another shape than the resource', () => {
  it('update answered 204: the customer is fetched and shown, exit 0', async () => {
    const r = await against(
      (req) => (req.method === 'PATCH' ? {status: 204} : {body: {...CUSTOMER, name: 'B'}, status: 200}),
      ['customers', 'update', '9', '--name', 'B', '--json'],
    )
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual({...CUSTOMER, name: 'B'})
    // The customer is read before the update too: the history keeps the record as it was (docs/history.md).
    expect(r.requests.map((q) => q.method)).toEqual(['GET', 'PATCH', 'GET'])
  })

  it('refund answered 204: exit 0; --json prints {}', async () => {
    // The check --yes runs reads the order first; the refund itself is answered 204.
    const paid = {currency: 'USD', customer_id: 1, id: 9, placed_at: '2026-11-01T00:00:00Z', status: 'paid', total: 1000}
    const script = (req: {method: string}) => (req.method === 'GET' ? {body: paid} : {status: 204})
    const [json, human] = await Promise.all([
      against(script, ['orders', 'refund', '9', '--yes', '--json']),
      startFaultyServer(script).then(async (server) => {
        try {
          return await run(['orders', 'refund', '9', '--yes'], {
            env: {COMMERCE_ACCESS_TOKEN: token, COMMERCE_BASE_URL: server.url, COMMERCE_CONFIG_DIR: fx.dir},
          })
        } finally {
          await server.close()
        }
      }),
    ])
    expect(json.code, json.stderr).toBe(0)
    expect(json.json()).toEqual({})
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toBe('')
    expect(human.stderr).toContain('Refunded order 9')
  })

  it('an empty create response, or text for a get: exit 1 saying what came back (and how to check), no TypeError', async () => {
    const create = await against(() => ({status: 201}), createCustomer)
    expect(create.code).toBe(1)
    expect(create.stderr).toMatch(/Unexpected response \(HTTP 201\).*empty body/)
    expect(create.stderr).toMatch(/may have been created/)
    const order = await against(() => ({status: 201}), createOrder())
    expect(order.code).toBe(1)
    const key = order.requests[0].headers['idempotency-key']
    expect(order.json().error.message).toMatch(/Unexpected response/)
    expect(order.stderr).toContain(`with --idempotency-key ${String(key)}.`)
    const get = await against(() => ({body: 'hello', status: 200}), ['customers', 'get', '9', '--json'])
    expect(get.code).toBe(1)
    expect(get.json().error.message).toMatch(/not JSON/)
    for (const r of [create, order, get]) expect(r.stdout + r.stderr).not.toMatch(/Cannot read|Cannot use|undefined|TypeError/)
  })
})

describe('error bodies of any shape give a readable message', () => {
  it('JSON {message}', async () => {
    const r = await against(() => ({body: {message: 'Plain message from the service'}, status: 400}), ['customers', 'list'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('Plain message from the service')
  })

  it('JSON {error: {message}} (and --json keeps the status)', async () => {
    const r = await against(
      () => ({body: {error: {code: 'nope', message: 'Nested message from the service'}}, status: 404}),
      ['customers', 'get', '5', '--json'],
    )
    expect(r.code).toBe(4)
    expect(r.json()).toMatchObject({error: {code: 'not_found', service_message: 'Nested message from the service', status: 404}})
  })

  it('an errors list [{field, message}] names the field and its flag', async () => {
    const r = await against(() => ({body: {errors: [{field: 'email', message: 'is blocked'}], message: 'Invalid'}, status: 422}), createCustomer)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('email (--email): is blocked')
  })

  it('HTML (a proxy error page)', async () => {
    const html = '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>'
    const r = await against(() => ({body: html, headers: {'content-type': 'text/html'}, status: 502}), createCustomer)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('502 Bad Gateway')
    expect(r.stderr).not.toContain('<')
  })

  it('an empty body', async () => {
    const [forbidden, unavailable] = await Promise.all([
      against(() => ({status: 403}), ['customers', 'list']),
      startFaultyServer(() => ({status: 503})).then(async (server) => {
        try {
          return await run(createCustomer, {env: {COMMERCE_ACCESS_TOKEN: token, COMMERCE_BASE_URL: server.url, COMMERCE_CONFIG_DIR: fx.dir}})
        } finally {
          await server.close()
        }
      }),
    ])
    expect(forbidden.code).toBe(3)
    expect(forbidden.stderr).toMatch(/Forbidden/)
    expect(unavailable.code).toBe(1)
    expect(unavailable.stderr).toMatch(/Service unavailable.*503/i)
    for (const r of [forbidden, unavailable]) expect(r.stderr).not.toMatch(/\n\s+at |undefined|\[object/)
  })
})

describe('response headers and redirects', () => {
  it('Deprecation and Sunset headers on v2 responses are shown once, however many responses carry them', async () => {
    const headers = {deprecation: 'true', sunset: 'Wed, 01 Sep 2027 00:00:00 GMT'}
    const r = await against(
      (req) => {
        const p = Number(new URL(req.url, 'http://x').searchParams.get('page'))
        return {body: {data: [{...CUSTOMER, id: p}], meta: {page: p, per_page: 1, total: 3}}, headers, status: 200}
      },
      ['customers', 'list', '--all', '--per-page', '1', '--json'],
    )
    expect(r.code, r.stderr).toBe(0)
    expect(r.requests).toHaveLength(3)
    expect(r.json()).toHaveLength(3)
    expect(occurrences(r.stderr, 'deprecated')).toBe(1)
    expect(r.stderr).toContain('2027')
  })

  it('a redirect is not followed (the token must not travel): exit 1, one request', async () => {
    const r = await against(() => ({headers: {location: 'http://elsewhere.invalid/api/v2/customers'}, status: 302}), ['customers', 'list'])
    expect(r.code).toBe(1)
    expect(r.requests).toHaveLength(1)
    expect(r.stderr).toMatch(/redirect/i)
  })
})

describe('hostile servers: a bound on every response body, a deadline on the whole exchange', () => {
  const endless = {prefix: '{"data":[', chunk: JSON.stringify(CUSTOMER) + ','}

  it('a body that streams without end is cut at the bound (COMMERCE_HTTP_MAX_BYTES): exit 1, one request, saying so', async () => {
    const r = await against(() => ({stream: endless}), ['customers', 'list', '--json'], {env: {COMMERCE_HTTP_MAX_BYTES: '1MiB'}})
    expect(r.code).toBe(1)
    expect(r.requests).toHaveLength(1)
    expect(r.json().error.message).toMatch(/goes on past the bound.*\(1 MiB\)/)
    // Stopped near the bound (socket buffers aside), not gigabytes later.
    expect(fx.faulty!.streamedBytes()).toBeLessThan(16 * 1024 * 1024)
  })

  it('the default bound is 8 MiB', async () => {
    const r = await against(() => ({stream: endless}), ['products', 'list'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('(8 MiB)')
    expect(r.stderr).toContain('COMMERCE_HTTP_MAX_BYTES')
    expect(fx.faulty!.streamedBytes()).toBeLessThan(24 * 1024 * 1024)
  })

  it('a Content-Length of 10 GB is refused at the header, before the body is read', async () => {
    const r = await against(
      () => ({headers: {'content-length': String(10 * 1024 ** 3)}, stream: {...endless, intervalMs: 50}}),
      ['customers', 'list'],
    )
    expect(r.code).toBe(1)
    expect(r.requests).toHaveLength(1)
    expect(r.stderr).toMatch(/announces 10240 MiB \(Content-Length\)/)
  })

  it('a server dripping a byte at a time ends within COMMERCE_HTTP_TIMEOUT: exit 1, not retried, saying so', async () => {
    const started = Date.now()
    const r = await against(() => ({stream: {chunk: ' ', intervalMs: 100, prefix: '{'}}), ['customers', 'list', '--json'], {
      env: {COMMERCE_HTTP_TIMEOUT: '1'},
    })
    const elapsed = Date.now() - started
    expect(r.code).toBe(1)
    expect(r.requests).toHaveLength(1)
    expect(r.json().error.message).toMatch(/timed out: no complete response within 1 s \(COMMERCE_HTTP_TIMEOUT\)/)
    // Bounded by the deadline (plus start-up), not by the server: it would drip for ever.
    expect(elapsed).toBeLessThan(8000)
  })

  it('COMMERCE_HTTP_MAX_BYTES that is not a size: exit 2', async () => {
    const r = await against(() => page(), ['customers', 'list'], {env: {COMMERCE_HTTP_MAX_BYTES: 'lots'}})
    expect(r.code).toBe(2)
    expect(r.requests).toHaveLength(0)
    expect(r.stderr).toContain('COMMERCE_HTTP_MAX_BYTES')
  })
})

describe('unsafe input refused before anything is sent (exit 2, never "outcome unknown")', () => {
  it('a --header value with CR/LF', async () => {
    const r = await against(() => page(), ['api', 'customers', '-X', 'POST', '--header', 'X-Trace: a\r\nX-Injected: 1', '-F', 'a=1'])
    expect(r.code).toBe(2)
    expect(r.requests).toHaveLength(0)
    expect(r.stderr).toMatch(/--header X-Trace contains a carriage return \(CR\)/)
    expect(r.stderr).not.toMatch(/outcome|could not reach/i)
  })

  it('COMMERCE_ACCESS_TOKEN with CR/LF (or another control character), on a read and on a create; the token is not shown', async () => {
    for (const args of [['customers', 'list'], createCustomer]) {
      const r = await against(() => page(), args, {env: {COMMERCE_ACCESS_TOKEN: 'tok-SECRET\r\nX-Injected: 1'}})
      expect(r.code, r.stderr).toBe(2)
      expect(r.requests).toHaveLength(0)
      expect(r.stderr).toContain('COMMERCE_ACCESS_TOKEN contains a carriage return')
      expect(r.stderr).not.toContain('tok-SECRET')
      expect(r.stderr).not.toMatch(/outcome|could not reach/i)
    }
    const r = await against(() => page(), ['customers', 'list'], {env: {COMMERCE_ACCESS_TOKEN: 'tok\u0007x'}})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('a control character (U+0007)')
  })

  it('a base URL with a password: exit 2, the password never printed (not even with --debug)', async () => {
    fx.faulty = await startFaultyServer(() => page())
    const withPassword = fx.faulty.url.replace('//', '//ana:hunter2@')
    for (const env of [{COMMERCE_BASE_URL: withPassword}, {}]) {
      const args = ['customers', 'list', '--debug', ...(env.COMMERCE_BASE_URL ? [] : ['--base-url', withPassword])]
      const r = await run(args, {env: {COMMERCE_ACCESS_TOKEN: token, COMMERCE_CONFIG_DIR: fx.dir, ...env}})
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(/must not carry a user name or password/)
      expect(r.stderr + r.stdout).not.toContain('hunter2')
    }
    const login = await run(['auth', 'login', '--base-url', withPassword, '--key-id', 'k', '--key-secret', 's'], {
      env: {COMMERCE_CONFIG_DIR: tempDir()},
    })
    expect(login.code).toBe(2)
    expect(login.stderr + login.stdout).not.toContain('hunter2')
    expect(fx.faulty.requests).toHaveLength(0)
  })

  it('a base URL ending in ? or # (the API path would land in the query or fragment)', async () => {
    fx.faulty = await startFaultyServer(() => page())
    for (const suffix of ['?', '#', '/?x=1', '/#top']) {
      const r = await run(['customers', 'list'], {
        env: {COMMERCE_ACCESS_TOKEN: token, COMMERCE_BASE_URL: fx.faulty.url + suffix, COMMERCE_CONFIG_DIR: fx.dir},
      })
      expect(r.code, suffix).toBe(2)
      expect(r.stderr).toMatch(/must not have a query \(\?\) or fragment \(#\)/)
    }
    expect(fx.faulty.requests).toHaveLength(0)
  })

  it('`api` paths with . or .. segments (plain or percent-encoded)', async () => {
    for (const path of ['/api/../../admin', 'v2/customers/../../../admin', 'v2/%2e%2e/admin', 'v2/./customers']) {
      const r = await against(() => page(), ['api', path])
      expect(r.code, path).toBe(2)
      expect(r.requests).toHaveLength(0)
      expect(r.stderr).toMatch(/segment, which could take the request outside the API's path/)
    }
  })

  it('plain http:// to a host that is not loopback: exit 2 unless --allow-insecure-http or the profile allows it', async () => {
    // The faulty server is the HTTP proxy (it tunnels CONNECT to itself), so the "remote" host answers from here.
    fx.faulty = await startFaultyServer(() => page())
    const dir = tempDir()
    const env = {COMMERCE_ACCESS_TOKEN: token, COMMERCE_CONFIG_DIR: dir, HTTP_PROXY: fx.faulty.url}
    const remote = 'http://commerce.example.test'
    const refused = await run(['customers', 'list', '--base-url', remote], {env})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/plain http:\/\/ to a host that is not this machine/)
    expect(refused.stderr).toContain('--allow-insecure-http')
    const named = await run(['customers', 'list', '--base-url', remote, '--profile', 'lab'], {env})
    expect(named.code).toBe(2)
    expect(named.stderr).toContain('`commerce config set allow_insecure_http true --profile lab`')
    expect(fx.faulty.requests).toHaveLength(0)

    const flag = await run(['customers', 'list', '--base-url', remote, '--allow-insecure-http', '--json'], {env})
    expect(flag.code, flag.stderr).toBe(0)
    expect(fx.faulty.requests).toHaveLength(1)
    expect(fx.faulty.tunnels).toEqual(['commerce.example.test:80'])
    expect(fx.faulty.requests[0]).toMatchObject({headers: {host: 'commerce.example.test'}, url: '/api/v2/customers?page=1&per_page=30'})

    expect((await run(['config', 'set', 'base_url', remote], {env})).code).toBe(0)
    expect((await run(['customers', 'list'], {env})).code).toBe(2)
    expect((await run(['config', 'set', 'allow_insecure_http', 'yes'], {env})).code).toBe(2)
    expect((await run(['config', 'set', 'allow_insecure_http', 'true'], {env})).code).toBe(0)
    const profile = await run(['customers', 'list', '--json'], {env})
    expect(profile.code, profile.stderr).toBe(0)
    expect(fx.faulty.requests).toHaveLength(2)
  })

  it('`auth login --allow-insecure-http` to a plain http:// host opts that profile in; without the flag, login sends nothing', async () => {
    fx.faulty = await startFaultyServer((req) =>
      req.url.endsWith('/auth/tokens')
        ? {body: {access_token: 'tok', expires_in: 3600, scopes: ['customers:read'], token_type: 'Bearer'}, status: 201}
        : page(),
    )
    const env = {COMMERCE_CONFIG_DIR: tempDir(), HTTP_PROXY: fx.faulty.url}
    const login = ['auth', 'login', '--base-url', 'http://commerce.example.test', '--key-id', 'k', '--key-secret', 's3cret']
    expect((await run(login, {env})).code).toBe(2)
    expect(fx.faulty.requests).toHaveLength(0)
    const optedIn = await run([...login, '--allow-insecure-http'], {env})
    expect(optedIn.code, optedIn.stderr).toBe(0)
    const list = await run(['customers', 'list', '--json'], {env})
    expect(list.code, list.stderr).toBe(0)
    expect(fx.faulty.requests.map((r) => r.url)).toEqual(['/api/v2/auth/tokens', '/api/v2/customers?page=1&per_page=30'])
  })
})

describe('messages that are right', () => {
  async function closedPort(): Promise<string> {
    const closed = await startFaultyServer(() => ({status: 200}))
    await closed.close()
    return closed.url
  }

  it('a refused connection, on a POST too: "could not connect to HOST (nothing was sent)", never "outcome unknown"', async () => {
    const url = await closedPort()
    const r = await run([...createCustomer, '--json'], {env: {COMMERCE_ACCESS_TOKEN: token, COMMERCE_BASE_URL: url, COMMERCE_CONFIG_DIR: fx.dir}})
    expect(r.code).toBe(1)
    expect(r.json().error.message).toBe(`Could not connect to ${new URL(url).host} (connection refused; nothing was sent).`)
    expect(r.stderr).not.toMatch(/outcome/i)
  })

  it('the local sandbox not running (a loopback port that refuses): at once, no retries, saying how to start it', async () => {
    const url = await closedPort()
    const r = await run(['customers', 'list', '--debug'], {env: {COMMERCE_ACCESS_TOKEN: token, COMMERCE_BASE_URL: url, COMMERCE_CONFIG_DIR: fx.dir}})
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('commerce sandbox start --detach')
    expect(r.stderr).not.toMatch(/retry \d of/)
    expect(occurrences(r.stderr, '> GET ')).toBe(1)
  })

  it('a failed token request says so (not "The POST request … failed" for a read)', async () => {
    const key = fx.sb.keys[0]
    fx.faulty = await startFaultyServer((req) => (req.url.endsWith('/auth/tokens') ? {drop: true} : page()))
    const dropped = await run(['customers', 'list'], {env: keyPairEnv(tempDir(), fx.faulty.url, key)})
    expect(dropped.code).toBe(1)
    expect(dropped.stderr).toMatch(/The token request to 127\.0\.0\.1:\d+ failed/)
    expect(dropped.stderr).not.toMatch(/POST request|outcome/)
    await fx.faulty.close()
    fx.faulty = await startFaultyServer(() => ({body: {message: 'boom'}, status: 500}))
    const failed = await run(['customers', 'list'], {env: keyPairEnv(tempDir(), fx.faulty.url, key)})
    expect(failed.code).toBe(1)
    expect(failed.stderr).toContain('The token request failed: The service failed: Internal server error (HTTP 500)')
    expect(failed.stderr).toContain('The service said: boom')
    expect(failed.stderr).not.toMatch(/POST|outcome/)
  })

  it('a validation error says each problem once', async () => {
    const body = {errors: {status: ['order 1 is pending']}, message: 'Validation failed: status order 1 is pending'}
    const r = await against(() => ({body, status: 422}), ['orders', 'refund', '1', '--yes'])
    expect(r.code).toBe(2)
    expect(occurrences(r.stderr, 'order 1 is pending')).toBe(1)
    expect(r.stderr).toContain('Validation failed')
  })

  it('hints repeat the --profile, --base-url and --api-version the user gave', async () => {
    const dir = tempDir()
    fx.faulty = await startFaultyServer(() => ({body: {message: 'nope'}, status: 401}))
    // A profile that does not exist yet: its hint gives the login that creates it, with the flags given.
    const missing = await run(['customers', 'list', '--profile', 'staging', '--base-url', fx.faulty.url], {env: {COMMERCE_CONFIG_DIR: dir}})
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain(`commerce auth login --profile staging --base-url ${fx.faulty.url}`)
    await storeProfile(dir, 'staging', {})
    const notLoggedIn = await run(['customers', 'list', '--profile', 'staging', '--base-url', fx.faulty.url], {env: {COMMERCE_CONFIG_DIR: dir}})
    expect(notLoggedIn.code).toBe(3)
    expect(notLoggedIn.stderr).toContain(`commerce auth login --profile staging --base-url ${fx.faulty.url}`)
    const noUrl = await run(['customers', 'list', '--profile', 'staging'], {env: {COMMERCE_CONFIG_DIR: dir}})
    expect(noUrl.code).toBe(3)
    expect(noUrl.stderr).toContain('commerce auth login --profile staging --base-url URL')
    const rejected = await run(['orders', 'list', '--profile', 'staging', '--api-version', 'v1'], {
      env: {COMMERCE_ACCESS_TOKEN: 'expired', COMMERCE_BASE_URL: fx.faulty.url, COMMERCE_CONFIG_DIR: dir},
    })
    expect(rejected.code).toBe(3)
    // The token came from the environment, which takes precedence over any login: the hint says so, not `auth login`.
    expect(rejected.stderr).toContain('The token comes from COMMERCE_ACCESS_TOKEN')
    expect(rejected.stderr).not.toContain('auth login')
    await storeProfile(dir, 'staging', {base_url: fx.faulty.url, key_id: 'k', key_secret: 's'})
    const profileRejected = await run(['orders', 'list', '--profile', 'staging', '--api-version', 'v1'], {env: {COMMERCE_CONFIG_DIR: dir}})
    expect(profileRejected.code).toBe(3)
    expect(profileRejected.stderr).toContain('commerce auth login --profile staging --api-version v1')
  })

  it("a v1 profile's deprecation notice does not tell the user to run the very command they ran", async () => {
    const dir = tempDir()
    await storeProfile(dir, 'old', {api_version: 'v1'}, {choose: true})
    fx.faulty = await startFaultyServer(() => page())
    const r = await run(['customers', 'list'], {env: {COMMERCE_ACCESS_TOKEN: token, COMMERCE_BASE_URL: fx.faulty.url, COMMERCE_CONFIG_DIR: dir}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('deprecated')
    expect(r.stderr).not.toContain('Use `commerce customers list`')
    expect(r.stderr).toContain('commerce config set api_version v2 --profile old')
    expect(r.stderr).toContain('--api-version v2')
  })
})

describe('auth status when logged out', () => {
  it('the login hint repeats --profile', async () => {
    const r = await run(['auth', 'status', '--profile', 'staging'], {env: {COMMERCE_CONFIG_DIR: tempDir()}})
    expect(r.stderr).toContain('`commerce auth login --profile staging`')
  })
})
