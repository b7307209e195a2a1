/**
 * `commerce api ...` run as a process: against the sandbox (auth, path forms, 404, pagination through a
 * recording proxy) and against the fx.faulty server (what exactly goes on the wire, HTML 5xx, 204).
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

// In this process, through the commands' seam (test/helpers/in-process.ts): none of these tests needs a process.
import {runInProcess as run} from '../helpers/in-process.js'
import {useSandboxFixture} from '../helpers/sandbox-fixture.js'
import {type Script, startFaultyServer} from '../helpers/faulty-server.js'

const fx = useSandboxFixture({seedDemoData: true})

/** The sandbox with the full-scope key pair from the environment. */
function sandboxEnv(extra: Record<string, string> = {}): Record<string, string> {
  const [key] = fx.sb.keys
  return {COMMERCE_BASE_URL: fx.sb.baseUrl, COMMERCE_CONFIG_DIR: fx.dir, COMMERCE_KEY_ID: key.key_id, COMMERCE_KEY_SECRET: key.key_secret, ...extra}
}

const api = (args: string[], env: Record<string, string>, input?: string) => run(['api', ...args], {env, input})

/** A fx.faulty server answering with `script`, reached with a static token (no token request goes to it). */
async function recorder(script: Script = () => ({body: {ok: true}, status: 200}), options: {upstream?: string} = {}) {
  fx.faulty = await startFaultyServer(script, options)
  return {COMMERCE_ACCESS_TOKEN: 'tok_static_abcdef', COMMERCE_BASE_URL: fx.faulty.url, COMMERCE_CONFIG_DIR: fx.dir}
}

describe('api against the sandbox', () => {
  it('GET with the token; the three path forms reach the same operation; compact JSON on a pipe', async () => {
    const outputs = await Promise.all(['/api/v2/customers', 'v2/customers', 'customers'].map((p) => api([p], sandboxEnv())))
    for (const r of outputs) {
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout.endsWith('}\n')).toBe(true)
      expect(r.stdout.trimEnd()).not.toContain('\n')
    }
    const body = outputs[0].json()
    expect(body.meta.total).toBe(12)
    expect(outputs[1].json()).toEqual(body)
    expect(outputs[2].json()).toEqual(body)
  })

  it('a bare path follows --api-version (v1 warns that it is deprecated)', async () => {
    const r = await api(['customers', '--api-version', 'v1'], sandboxEnv())
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().data.length).toBeGreaterThan(0)
    // Past its retirement date (the spec: 2026-09-01), the warning says so in the past tense.
    expect(r.stderr).toMatch(/v1 is deprecated and was due to retire on 2026-09-01: it may stop answering at any time/)
  })

  it('without credentials a protected path is 401: body on stdout, error on stderr, exit 3', async () => {
    const r = await api(['customers'], {COMMERCE_BASE_URL: fx.sb.baseUrl, COMMERCE_CONFIG_DIR: fx.dir})
    expect(r.code).toBe(3)
    expect(r.json()).toHaveProperty('message')
    expect(r.stderr).toMatch(/^Error: /)
    // A public path needs no credentials.
    const products = await api(['v2/products', '-X', 'GET', '--field', 'per_page=2'], {COMMERCE_BASE_URL: fx.sb.baseUrl, COMMERCE_CONFIG_DIR: fx.dir})
    expect(products.code, products.stderr).toBe(0)
    expect(products.json().data).toHaveLength(2)
  })

  it('a 404: the service body on stdout, one error line on stderr, exit 4; with --json the error document', async () => {
    let r = await api(['customers/999999'], sandboxEnv())
    expect(r.code).toBe(4)
    expect(r.json()).toEqual({message: expect.stringContaining('999999')})
    expect(r.stderr).toMatch(/^Error: .*999999/)

    r = await api(['customers/999999', '--json'], sandboxEnv())
    expect(r.code).toBe(4)
    expect(r.json()).toMatchObject({error: {message: expect.stringContaining('999999'), status: 404}})
  })

  it('POST with typed fields creates a customer (201); a 422 prints the body and exits 2', async () => {
    const email = `api-${Date.now()}@example.com`
    let r = await api(
      ['v2/customers', '--field', `email=${email}`, '--field', 'name=Api Test', '--field', 'send_invite=false', '--field', 'metadata[plan]=pro'],
      sandboxEnv(),
    )
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({email, metadata: {plan: 'pro'}, name: 'Api Test'})

    r = await api(['v2/customers', '--field', `email=${email}`, '--field', 'name=Again'], sandboxEnv())
    expect(r.code).toBe(2)
    expect(r.json().errors).toHaveProperty('email')
    expect(r.stderr).toMatch(/^Error: /)
  })

  it('--paginate (GET even with fields) follows every page, per_page from --field, and prints one array of all the records', async () => {
    const env = await recorder(() => ({forward: true}), {upstream: fx.sb.baseUrl})
    const [key] = fx.sb.keys
    const r = await api(['customers', '--paginate', '--field', 'per_page=5', '--field', 'status=active'], {
      ...env,
      COMMERCE_ACCESS_TOKEN: '',
      COMMERCE_KEY_ID: key.key_id,
      COMMERCE_KEY_SECRET: key.key_secret,
    })
    expect(r.code, r.stderr).toBe(0)
    const records = r.json<Array<{id: number; status: string}>>()
    const pages = fx.faulty!.requests.filter((q) => q.method === 'GET')
    const total = JSON.parse((await api(['customers', '-X', 'GET', '--field', 'status=active', '--field', 'per_page=1'], sandboxEnv())).stdout).meta
      .total
    expect(records).toHaveLength(total)
    expect(new Set(records.map((c) => c.id)).size).toBe(total)
    expect(records.every((c) => c.status === 'active')).toBe(true)
    expect(pages.map((q) => new URL(q.url, 'http://x').searchParams.get('page'))).toEqual(
      Array.from({length: Math.ceil(total / 5)}, (_, i) => String(i + 1)),
    )
    for (const q of pages) {
      expect(new URL(q.url, 'http://x').searchParams.get('per_page')).toBe('5')
      expect(q.headers.authorization).toMatch(/^Bearer /)
    }
  })
})

describe('api: what goes on the wire', () => {
  it('sends the token whenever credentials exist, and none with --no-auth', async () => {
    const env = await recorder()
    expect((await api(['customers'], env)).code).toBe(0)
    expect((await api(['customers', '--no-auth'], env)).code).toBe(0)
    // No credentials at all: the request goes out without a token (the service decides).
    expect((await api(['products'], {...env, COMMERCE_ACCESS_TOKEN: ''})).code).toBe(0)
    const [withAuth, noAuth, none] = fx.faulty!.requests
    expect(withAuth.headers.authorization).toBe('Bearer tok_static_abcdef')
    expect(noAuth.headers).not.toHaveProperty('authorization')
    expect(none.headers).not.toHaveProperty('authorization')
    expect(withAuth.url).toBe('/api/v2/customers')
    expect(none.url).toBe('/api/v2/products')
    expect(withAuth.headers.accept).toBe('application/json')
    expect(withAuth.headers['user-agent']).toMatch(/^commerce-cli\/\S+ node\/v\d+/)
  })

  it('--field: typed values, @file as is, nested keys; POST by default with a JSON body', async () => {
    const env = await recorder(() => ({body: {id: 1}, status: 201}))
    const note = join(fx.dir, 'note.txt')
    writeFileSync(note, 'line one\n007 "quoted"\n')
    const r = await api(
      [
        'v2/things',
        '-F',
        'int=42',
        '-F',
        'neg=-3',
        '-F',
        'zero=0',
        '-F',
        'lead=007',
        '-F',
        'float=1.5',
        '-F',
        'big=12345678901234567890',
        '-F',
        't=true',
        '-F',
        'f=false',
        '-F',
        'nil=null',
        '-F',
        'word=True',
        '-F',
        'eq=a=b',
        '-F',
        'empty=',
        '-F',
        `text=@${note}`,
        '-F',
        'metadata[plan]=pro',
        '-F',
        'items[][product_id]=1',
        '-F',
        'items[][quantity]=2',
        '-F',
        'items[][product_id]=3',
        '-F',
        'tags[]=a',
        '-F',
        'tags[]=b',
        '--raw-field',
        'raw=42',
      ],
      env,
    )
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual({id: 1})
    const [req] = fx.faulty!.requests
    expect(req.method).toBe('POST')
    expect(req.url).toBe('/api/v2/things')
    expect(req.headers['content-type']).toBe('application/json')
    expect(JSON.parse(req.body)).toEqual({
      big: '12345678901234567890',
      empty: '',
      eq: 'a=b',
      f: false,
      float: '1.5',
      int: 42,
      items: [{product_id: 1, quantity: 2}, {product_id: 3}],
      lead: '007',
      metadata: {plan: 'pro'},
      neg: -3,
      nil: null,
      raw: '42',
      t: true,
      tags: ['a', 'b'],
      text: 'line one\n007 "quoted"\n',
      word: 'True',
      zero: 0,
    })
  })

  it('GET fields become query parameters (added to any in PATH); --method overrides the default', async () => {
    const env = await recorder()
    expect((await api(['customers?status=active', '--method', 'get', '-F', 'q=ada lovelace', '-F', 'page=2'], env)).code).toBe(0)
    expect((await api(['customers/5', '-X', 'DELETE'], env)).code).toBe(0)
    const [get, del] = fx.faulty!.requests
    expect(get.method).toBe('GET')
    expect(get.body).toBe('')
    const url = new URL(get.url, 'http://x')
    expect(url.pathname).toBe('/api/v2/customers')
    expect(Object.fromEntries(url.searchParams)).toEqual({page: '2', q: 'ada lovelace', status: 'active'})
    expect(del.method).toBe('DELETE')
    expect(del.url).toBe('/api/v2/customers/5')
  })

  it('--input - or FILE sends the body byte for byte (POST by default, PATCH with --method); fields then go to the query; @- reads stdin', async () => {
    const env = await recorder()
    const body = {customer_id: 7, currency: 'EUR', items: [{product_id: 2, quantity: 1}]}
    expect((await api(['v2/orders', '--input', '-'], env, JSON.stringify(body))).code).toBe(0)
    expect((await api(['v2/customers/7', '--input', '-', '-X', 'PATCH', '-F', 'dry_run=true'], env, '{"name": "Ada"}')).code).toBe(0)
    const file = join(fx.dir, 'order.json')
    writeFileSync(file, JSON.stringify(body, null, 2))
    expect((await api(['v2/orders', '--input', file], env)).code).toBe(0)
    // @- reads a field's value from standard input, as is.
    expect((await api(['v2/customers', '-F', 'name=@-', '-F', 'email=a@example.com'], env, 'Ada\nLovelace\n')).code).toBe(0)
    const [post, patch, fromFile, stdinField] = fx.faulty!.requests
    expect(post.method).toBe('POST')
    expect(JSON.parse(post.body)).toEqual(body)
    expect(patch.method).toBe('PATCH')
    expect(patch.url).toBe('/api/v2/customers/7?dry_run=true')
    // --input is sent byte for byte (spacing and key order kept), not re-serialized.
    expect(patch.body).toBe('{"name": "Ada"}')
    expect(fromFile.method).toBe('POST')
    expect(fromFile.body).toBe(JSON.stringify(body, null, 2))
    expect(JSON.parse(stdinField.body)).toEqual({email: 'a@example.com', name: 'Ada\nLovelace\n'})
  })

  it("--header adds headers; a caller's own Authorization replaces the token", async () => {
    const env = await recorder()
    const key = '3b241101-e2bb-4255-8caf-4136c566a962'
    expect(
      (await api(['v2/orders', '-F', 'customer_id=1', '--header', `Idempotency-Key: ${key}`, '-H', 'X-Trace:  abc ', '--no-validate'], env)).code,
    ).toBe(0)
    expect((await api(['customers', '-H', 'Authorization: Bearer mine'], env)).code).toBe(0)
    const [post, get] = fx.faulty!.requests
    expect(post.headers['idempotency-key']).toBe(key)
    expect(post.headers['x-trace']).toBe('abc')
    expect(post.headers.authorization).toBe('Bearer tok_static_abcdef')
    expect(get.headers.authorization).toBe('Bearer mine')
  })

  it("--debug shows a caller's own Authorization at most as its first 4 characters, whatever its scheme", async () => {
    const env = await recorder()
    const [bare, scheme] = await Promise.all([
      api(['customers', '-H', 'Authorization: secrettokenvalue123', '--debug'], env),
      api(['customers', '-H', 'Authorization: Token secrettokenvalue456', '--debug'], env),
    ])
    expect(bare.code, bare.stderr).toBe(0)
    expect(scheme.code, scheme.stderr).toBe(0)
    expect(bare.stderr).toContain('> authorization: secr…')
    expect(scheme.stderr).toContain('> authorization: Token secr…')
    expect(bare.stderr + scheme.stderr).not.toMatch(/tokenvalue/)
  })

  it('--paginate when a later page fails: no partial array on stdout (--json: the error document alone)', async () => {
    const env = await recorder((req) =>
      new URL(req.url, 'http://x').searchParams.get('page') === '1'
        ? {body: {data: [{id: 1}], meta: {page: 1, per_page: 1, total: 3}}, status: 200}
        : {body: {message: 'gone'}, status: 404},
    )
    const [json, plain] = await Promise.all([api(['v2/customers', '--paginate', '--json'], env), api(['v2/customers', '--paginate'], env)])
    expect(json.code).toBe(4)
    expect(json.json()).toMatchObject({error: {service_message: 'gone', status: 404}})
    expect(plain.code).toBe(4)
    expect(plain.stdout).not.toContain('[')
  })

  it('a 204 prints nothing', async () => {
    const env = await recorder(() => ({status: 204}))
    const r = await api(['v2/auth/tokens/current', '-X', 'DELETE'], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('')
  })

  it('an HTML 500: the page on stdout, the error on stderr, exit 1; a GET is retried, a POST is not', async () => {
    const html = '<!doctype html><html><head><title>502 Bad Gateway</title></head><body><h1>upstream down</h1></body></html>'
    const env = await recorder(() => ({body: html, headers: {'content-type': 'text/html'}, status: 500}))
    let r = await api(['customers'], env)
    expect(r.code).toBe(1)
    expect(r.stdout).toBe(html + '\n')
    expect(r.stderr).toMatch(
      /^Error: The service failed: Internal server error \(HTTP 500\): GET \S*customers\.\n {2}The service said: 502 Bad Gateway/,
    )
    expect(fx.faulty!.requests).toHaveLength(3)

    r = await api(['v2/customers', '-F', 'name=x', '--no-validate'], env)
    expect(r.code).toBe(1)
    expect(r.stdout).toBe(html + '\n')
    expect(r.stderr).toContain('not retried')
    expect(fx.faulty!.requests).toHaveLength(4)

    r = await api(['customers', '--json', '--max-wait', '0'], env)
    expect(r.code).toBe(1)
    expect(r.json()).toMatchObject({error: {service_message: '502 Bad Gateway', status: 500}})
  })

  it('usage errors are exit 2 and send nothing', async () => {
    const env = await recorder()
    const note = join(fx.dir, 'bad.json')
    writeFileSync(note, '{"name": ')
    const cases: Array<[string[], RegExp, string?]> = [
      [[`${fx.faulty!.url}/api/v2/customers`], /relative to the base URL/],
      [['/'], /PATH is empty/],
      [['customers', '-X', 'PUT'], /--method must be one of GET, POST, PATCH, DELETE/],
      [['customers', '-F', 'novalue'], /--field must be KEY=VALUE/],
      [['customers', '-F', '=x'], /--field must be KEY=VALUE/],
      [['v2/customers', '-F', 'a=1', '-F', 'a[b]=2'], /conflicts/],
      [['customers', '-F', 'text=@/nonexistent/file'], /--field text: \/nonexistent\/file does not exist\./],
      [['customers', '-H', 'no colon'], /--header must be "Name: value"/],
      [['v2/customers', '--input', note], /not valid JSON/],
      [['v2/customers', '--input', '-'], /the body is empty/, ''],
      [['v2/customers', '--input', '/nonexistent.json'], /--input: \/nonexistent.json does not exist\./],
      [['customers', '--input', '-', '-X', 'GET'], /GET cannot carry/, '{}'],
      [['customers', '--paginate', '-X', 'POST'], /--paginate follows the pages of a list/],
      [['customers', '--paginate', '-F', 'per_page=500'], /per_page/],
      // Judged as the URL it becomes (the parser reads \ as / and resolves .. and %2e%2e), whatever spelled it.
      [['customers\\..\\..\\..\\..\\root'], /resolves to \/root, outside the API's path \(\/api\/\)/],
      [['v2/customers/%2e%2e/%2E%2e/%2e%2e/root'], /outside the API's path|"\.\." segment/],
      [['customers/..%2f..%2f..%2froot'], /an encoded "\/" or "\\"/],
      [['customers/..%5c..%5croot'], /an encoded "\/" or "\\"/],
    ]
    for (const [args, message, input] of cases) {
      const r = await api(args, env, input)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr, args.join(' ')).toMatch(message)
      expect(r.stdout).toBe('')
    }
    expect(fx.faulty!.requests).toHaveLength(0)
  })
})

describe('api checks a body against its operation', () => {
  it('exit 2 naming each field, nothing sent; --no-validate sends it as it is; a valid body goes out', async () => {
    const env = await recorder(() => ({body: {message: 'Validation failed', errors: {email: ['bad']}}, status: 422}))
    const bad = await api(['v2/customers', '-F', 'email=.a@example.com', '-F', 'name=X', '-F', 'send_invite=false'], env)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('The body does not match createCustomerV2')
    expect(bad.stderr).toMatch(/email: ".a@example.com" is not a valid email address/)
    expect(bad.stderr).toContain('--no-validate')
    const order = await api(
      ['v2/orders', '--input', '-', '-H', 'Idempotency-Key: 6f1c2b8e-3d4a-4e5f-9a0b-1c2d3e4f5a6b'],
      env,
      '{"customer_id": 1, "items": []}',
    )
    expect(order.code).toBe(2)
    expect(order.stderr).toMatch(/currency: is required/)
    // The short form the help documents (the API version in effect) is the same operation, checked alike.
    for (const path of ['customers', '/customers', 'api/v2/customers']) {
      const short = await api([path, '-F', 'email=.a@example.com', '-F', 'name=X'], env)
      expect(short.code, path).toBe(2)
      expect(short.stderr, path).toContain('The body does not match createCustomerV2')
    }
    expect(fx.faulty!.requests).toHaveLength(0)
    const sent = await api(['v2/customers', '-F', 'email=.a@example.com', '-F', 'name=X', '--no-validate'], env)
    expect(sent.code).toBe(2) // the service's 422
    expect(fx.faulty!.requests).toHaveLength(1)
    await recorder(() => ({body: {id: 1}, status: 201}))
    const good = await api(['v2/customers', '-F', 'email=ada@example.com', '-F', 'name=Ada'], {...env, COMMERCE_BASE_URL: fx.faulty!.url})
    expect([good.code, fx.faulty!.requests.length]).toEqual([0, 1])
  })

  it('an event name the service does not document goes out (a service may send more); an empty one does not', async () => {
    const env = await recorder(() => ({body: {id: 'we_1'}, status: 201}))
    const url = ['-f', 'url=https://example.com/hook']
    const named = await api(['v2/webhooks', ...url, '-f', 'events[]=invoice.finalized'], env)
    expect(named.code, named.stderr).toBe(0)
    expect(JSON.parse(fx.faulty!.requests[0].body)).toEqual({events: ['invoice.finalized'], url: 'https://example.com/hook'})
    const empty = await api(['v2/webhooks', ...url, '-f', 'events[]='], env)
    expect(empty.code).toBe(2)
    expect(empty.stderr).toMatch(/events: must be non-empty names/)
    expect(fx.faulty!.requests).toHaveLength(1)
  })
})
