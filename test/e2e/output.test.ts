/**
 * Output rules across commands: the --debug trace (requests shown, secrets never: no key secret, no full
 * access token), colour (none without a TTY; FORCE_COLOR forces it on stderr but never into --json; NO_COLOR
 * wins), one JSON document on stdout, empty lists, and responses with unknown extra fields.
 */
import {PassThrough} from 'node:stream'
import {describe, expect, it} from 'vitest'

import {IOStreams} from '../../src/io/streams.js'
import {run, tempConfigDir} from '../helpers/cli.js'
import {useSandboxFixture} from '../helpers/sandbox-fixture.js'
import {startFaultyServer} from '../helpers/faulty-server.js'
import {ANSI, keyPairEnv, readConfig} from '../helpers/login.js'

const fx = useSandboxFixture({seedDemoData: true})

const env = (extra: Record<string, string> = {}) => ({...keyPairEnv(fx.dir, fx.sb.baseUrl, fx.sb.keys[0]), ...extra})

describe('--debug', () => {
  it('traces requests and responses on stderr, never the key secret nor a full access token', async () => {
    const key = fx.sb.keys[0]
    const {cleanup, dir} = tempConfigDir()
    try {
      const login = await run(
        ['auth', 'login', '--base-url', fx.sb.baseUrl, '--key-id', key.key_id, '--key-secret', key.key_secret, '--debug', '--json'],
        {env: {COMMERCE_CONFIG_DIR: dir}},
      )
      expect(login.code, login.stderr).toBe(0)
      const token = readConfig(dir).profiles!.default.access_token!
      // A revoked token makes the next command re-issue: both tokens pass through the trace.
      await fetch(`${fx.sb.baseUrl}/api/v2/auth/tokens/current`, {headers: {authorization: `Bearer ${token}`}, method: 'DELETE'})
      const list = await run(['customers', 'list', '--per-page', '2', '--debug'], {env: {COMMERCE_CONFIG_DIR: dir}})
      expect(list.code, list.stderr).toBe(0)
      const renewed = readConfig(dir).profiles!.default.access_token!
      expect(renewed).not.toBe(token)
      const status = await run(['auth', 'status', '--debug', '--json'], {env: {COMMERCE_CONFIG_DIR: dir}})
      expect(status.code, status.stderr).toBe(0)

      expect(login.stderr).toContain(`> POST ${fx.sb.baseUrl}/api/v2/auth/tokens`)
      expect(login.stderr).toMatch(/< 201 /)
      expect(list.stderr).toContain(`> GET ${fx.sb.baseUrl}/api/v2/customers?page=1&per_page=2`)
      expect(list.stderr).toMatch(/< 401 /)
      expect(list.stderr).toContain(`authorization: Bearer ${renewed.slice(0, 4)}…`)
      // Results stay on stdout, untouched by the trace.
      expect(list.stdout.split('\n')[0]).toBe('id\temail\tname\tstatus\tcreated_at')
      for (const r of [login, list, status]) {
        const all = r.stdout + r.stderr
        expect(all).not.toContain(key.key_secret)
        expect(all).not.toContain(token)
        expect(all).not.toContain(renewed)
        expect(all).not.toContain(token.slice(0, 8))
      }
    } finally {
      cleanup()
    }
  })

  it('the env key pair: the secret is not shown in the token request body', async () => {
    const r = await run(['orders', 'list', '--per-page', '1', '--debug', '--json'], {env: env()})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('"key_secret":"[redacted]"')
    expect(r.stderr + r.stdout).not.toContain(fx.sb.keys[0].key_secret)
    expect(JSON.parse(r.stdout)).toHaveLength(1)
  })

  it('errors: no stack trace without --debug', async () => {
    const r = await run(['customers', 'get', '999999'], {env: env()})
    expect(r.code).toBe(4)
    expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(3)
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })
})

describe('colour', () => {
  it('without a TTY: no ANSI escapes in tables, records, warnings or errors', async () => {
    const results = await Promise.all([
      run(['customers', 'list', '--per-page', '3'], {env: env()}),
      run(['orders', 'list', '--api-version', 'v1', '--per-page', '3'], {env: env()}),
      run(['customers', 'get', '1'], {env: env()}),
      run(['customers', 'create', '--email', 'bad', '--name', 'X'], {env: env()}),
    ])
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 2])
    expect(results[1].stderr).toContain('deprecated')
    expect(results[3].stderr).toContain('Error')
    for (const r of results) expect(r.stdout + r.stderr).not.toMatch(ANSI)
  })

  it('stdout a TTY but stderr redirected (2> file): no colour in what goes to stderr, unless FORCE_COLOR', async () => {
    const stream = (isTTY: boolean) => {
      const s = new PassThrough() as PassThrough & {isTTY?: boolean}
      s.isTTY = isTTY
      let text = ''
      s.on('data', (d: Buffer) => (text += d.toString()))
      return {read: () => text, s}
    }
    const write = (env: Record<string, string>) => {
      const [stdout, stderr] = [stream(true), stream(false)]
      const io = new IOStreams({env, stderr: stderr.s as never, stdin: stream(false).s as never, stdout: stdout.s as never})
      io.warn('careful')
      io.info(io.chalk.red('Error: ') + 'bad')
      io.out(io.chalk.bold('result'))
      return {stderr: stderr.read(), stdout: stdout.read()}
    }
    const plain = write({})
    expect(plain.stdout).toMatch(ANSI)
    expect(plain.stderr).toBe('Warning: careful\nError: bad\n')
    expect(write({FORCE_COLOR: '1'}).stderr).toMatch(ANSI)
    const none = write({FORCE_COLOR: '1', NO_COLOR: '1'})
    expect(none.stdout + none.stderr).not.toMatch(ANSI)
  })

  it('FORCE_COLOR=1 colours stderr, but --json stays plain JSON; NO_COLOR always wins', async () => {
    const bad = ['customers', 'create', '--email', 'bad', '--name', 'X']
    const [forced, forcedJson, forcedList, both] = await Promise.all([
      run(bad, {env: env({FORCE_COLOR: '1'})}),
      run([...bad, '--json'], {env: env({FORCE_COLOR: '1'})}),
      run(['customers', 'list', '--per-page', '3', '--json'], {env: env({FORCE_COLOR: '1'})}),
      run(bad, {env: env({FORCE_COLOR: '1', NO_COLOR: '1'})}),
    ])
    expect(forced.code).toBe(2)
    expect(forced.stderr).toMatch(ANSI)
    expect(forcedJson.code).toBe(2)
    expect(forcedJson.stdout).not.toMatch(ANSI)
    expect(forcedJson.json().error.errors.email).toHaveLength(1)
    expect(forcedList.code, forcedList.stderr).toBe(0)
    expect(forcedList.stdout).not.toMatch(ANSI)
    expect(forcedList.json()).toHaveLength(3)
    expect(both.code).toBe(2)
    expect(both.stdout + both.stderr).not.toMatch(ANSI)
  })
})

describe('shapes', () => {
  it('an empty list: the header line alone on a pipe, [] with --json', async () => {
    const [tsv, json] = await Promise.all([
      run(['orders', 'list', '--customer', '999999'], {env: env()}),
      run(['orders', 'list', '--customer', '999999', '--json'], {env: env()}),
    ])
    expect(tsv.code, tsv.stderr).toBe(0)
    expect(tsv.stdout).toBe('id\tcustomer_id\tstatus\ttotal\tcurrency\tplaced_at\n')
    expect(json.stdout.trim()).toBe('[]')
  })

  it('the "Showing" line counts with the page size the service used, not the one asked for', async () => {
    const {ApiClient} = await import('../../src/api/client.js')
    const {listing} = await import('../../src/services/listing.js')
    const {positionLine} = await import('../../src/io/render.js')
    // 120 records in pages of 50 whatever is asked; meta says so.
    fx.faulty = await startFaultyServer((req) => {
      const p = Number(new URL(req.url, 'http://x').searchParams.get('page'))
      const data = Array.from({length: Math.max(0, Math.min(50, 120 - (p - 1) * 50))}, (_, i) => ({id: (p - 1) * 50 + i + 1}))
      return {body: {data, meta: {page: p, per_page: 50, total: 120}}, status: 200}
    })
    const client = new ApiClient({apiVersion: 'v2', baseUrl: fx.faulty.url, userAgent: 'test'})
    const line = async (page: number) => {
      const list = listing(client, {auth: false, method: 'GET', path: '/customers'}, {page, perPage: 100})
      for await (const _ of list.records);
      return positionLine(list.position()!)
    }
    try {
      expect(await line(2)).toBe('Showing 51-100 of 120 (page 2 of 3)')
      expect(await line(3)).toBe('Showing 101-120 of 120 (page 3 of 3)')
      const {positionLine: grouped} = await import('../../src/io/render.js')
      expect(grouped({first: 1, shown: 3255, total: 3255})).toBe('Showing 1-3,255 of 3,255')
      expect(grouped({first: 1001, page: 11, perPage: 100, shown: 100, total: 12_345})).toBe('Showing 1,001-1,100 of 12,345 (page 11 of 124)')
    } finally {
      await client.close()
    }
  })

  it('a parse error with --json is the error document on stdout', async () => {
    const r = await run(['customers', 'list', '--no-such-flag', '--json'], {env: env()})
    expect(r.code).toBe(2)
    expect(r.json()).toMatchObject({error: {message: expect.stringContaining('--no-such-flag'), status: null}})
  })

  it('unknown extra fields in responses do not break rendering', async () => {
    const customer = {
      created_at: '2026-01-01T00:00:00Z',
      email: 'e@example.com',
      id: 4,
      loyalty: {tier: 'gold', points: [1, 2]},
      name: 'Extra',
      status: 'active',
      tags: null,
    }
    fx.faulty = await startFaultyServer((req) =>
      req.url.startsWith('/api/v2/customers?')
        ? {body: {data: [customer], links: {next: null}, meta: {page: 1, per_page: 30, request_id: 'r1', total: 1}}, status: 200}
        : {body: {...customer, _links: {self: '/c/4'}}, status: 200},
    )
    const e = {COMMERCE_ACCESS_TOKEN: 'tok_static', COMMERCE_BASE_URL: fx.faulty.url, COMMERCE_CONFIG_DIR: fx.dir}
    const [list, listJson, get] = await Promise.all([
      run(['customers', 'list'], {env: e}),
      run(['customers', 'list', '--json'], {env: e}),
      run(['customers', 'get', '4'], {env: e}),
    ])
    for (const r of [list, listJson, get]) expect(r.code, r.stderr).toBe(0)
    expect(list.stdout).toBe('id\temail\tname\tstatus\tcreated_at\n4\te@example.com\tExtra\tactive\t2026-01-01T00:00:00Z\n')
    expect(listJson.json()).toEqual([customer])
    const lines = get.stdout.trimEnd().split('\n')
    expect(lines).toContain('loyalty\t{"tier":"gold","points":[1,2]}')
    expect(lines).toContain('_links\t{"self":"/c/4"}')
    expect(lines).toContain('tags\t')
  })
})

describe('values from the service never reach a terminal or TSV raw (sanitize.ts)', () => {
  const EVIL = 'Eve\u001B]0;PWNED\u0007\u001B[31mRED'
  const SHOWN = 'Eve\\e]0;PWNED\\a\\e[31mRED'

  it('customers list and get as TSV show the name escaped; --json keeps exact JSON escaping', async () => {
    const created = await run(['customers', 'create', '--email', `eve-${process.pid}@example.com`, '--name', EVIL, '--json'], {env: env()})
    expect(created.code, created.stderr).toBe(0)
    const id = created.json().id as number
    expect(created.json().name).toBe(EVIL)
    const [list, get] = await Promise.all([
      run(['customers', 'list', '--search', `eve-${process.pid}`], {env: env()}),
      run(['customers', 'get', String(id)], {env: env()}),
    ])
    expect(list.code, list.stderr).toBe(0)
    expect(get.code, get.stderr).toBe(0)
    expect(list.stdout).toContain(`\t${SHOWN}\t`)
    expect(get.stdout).toContain(`name\t${SHOWN}\n`)
    for (const r of [list, get]) expect(r.stdout + r.stderr).not.toContain('\u001B')
  })

  it("the service's error message and field errors are escaped, with and without a terminal's colours", async () => {
    fx.faulty = await startFaultyServer(() => ({body: {errors: {name: [`bad ${EVIL}`]}, message: `Nope ${EVIL}`}, status: 422}))
    const r = await run(['customers', 'create', '--email', 'x@example.com', '--name', 'X'], {
      env: {COMMERCE_ACCESS_TOKEN: 'tok', COMMERCE_BASE_URL: fx.faulty.url, COMMERCE_CONFIG_DIR: fx.dir},
    })
    expect(r.code).toBe(2)
    // The service's words are said as its, on a line of their own, escaped.
    expect(r.stderr).toContain(`The service said: Nope ${SHOWN}`)
    expect(r.stderr).toContain(`name (--name): bad ${SHOWN}`)
    expect(r.stdout + r.stderr).not.toContain('\u001B')
    const json = await run(['customers', 'create', '--email', 'x@example.com', '--name', 'X', '--json'], {
      env: {COMMERCE_ACCESS_TOKEN: 'tok', COMMERCE_BASE_URL: fx.faulty.url, COMMERCE_CONFIG_DIR: fx.dir},
    })
    expect(json.json().error.service_message).toBe(`Nope ${EVIL}`)
    expect(json.stdout).toContain('\\u001b]0;PWNED\\u0007')
  })
})

describe('confirmations and confirmation lines', () => {
  it('with --yes, delete runs the check the question would (one read), then the action; nothing else', async () => {
    const created = await run(['customers', 'create', '--email', `yes-${process.pid}@example.com`, '--name', 'Yes', '--json'], {env: env()})
    expect(created.code, created.stderr).toBe(0)
    fx.faulty = await startFaultyServer(() => ({forward: true}), {upstream: fx.sb.baseUrl})
    const r = await run(['customers', 'delete', String(created.json().id), '--yes'], {env: env({COMMERCE_BASE_URL: fx.faulty.url})})
    expect(r.code, r.stderr).toBe(0)
    expect(fx.faulty.requests.filter((q) => !q.url.includes('/auth/')).map((q) => q.method)).toEqual(['GET', 'DELETE'])
  })

  it('customers update says what it did, like create and delete; --json stays the document alone', async () => {
    const created = await run(['customers', 'create', '--email', `upd-${process.pid}@example.com`, '--name', 'Upd', '--json'], {env: env()})
    const id = created.json().id as number
    const [human, json] = await Promise.all([
      run(['customers', 'update', String(id), '--name', 'Updated'], {env: env()}),
      run(['customers', 'update', String(id), '--status', 'archived', '--json'], {env: env()}),
    ])
    expect(human.code, human.stderr).toBe(0)
    expect(human.stderr).toContain(`Updated customer ${id}.`)
    expect(json.stderr).not.toContain('Updated customer')
    expect(json.json().id).toBe(id)
  })

  it('auth status logged out: one line saying so, no table of empty values; --json unchanged', async () => {
    const {cleanup, dir} = tempConfigDir()
    try {
      const [human, json] = await Promise.all([
        run(['auth', 'status'], {env: {COMMERCE_CONFIG_DIR: dir}}),
        run(['auth', 'status', '--json'], {env: {COMMERCE_CONFIG_DIR: dir}}),
      ])
      expect(human.code).toBe(3)
      expect(human.stdout).toBe('')
      expect(human.stderr).toContain('Not logged in (profile "default")')
      expect(json.code).toBe(3)
      expect(json.json().logged_in).toBe(false)
    } finally {
      cleanup()
    }
  })
})

describe('command-line habits', () => {
  it('-h everywhere; short flags -L, -s, -q, -p; enum values in any case, sent in the service case', async () => {
    const [help, short, eq] = await Promise.all([
      run(['customers', 'list', '-h']),
      run(['customers', 'list', '-s', 'ACTIVE', '-L', '2', '-q', '@', '-p', 'default', '--json'], {env: env()}),
      run(['orders', 'list', '--status=Paid', '-L', '1', '--json'], {env: env()}),
    ])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('USAGE')
    expect(help.stdout).toMatch(/-L, --limit/)
    expect(help.stdout).toMatch(/-s, --status/)
    expect(help.stdout).toMatch(/-q, --search/)
    expect(help.stdout).toMatch(/-p, --profile/)
    expect(short.code, short.stderr).toBe(0)
    expect(short.json()).toHaveLength(2)
    for (const c of short.json()) expect(c.status).toBe('active')
    expect(eq.code, eq.stderr).toBe(0)
    for (const o of eq.json()) expect(o.status).toBe('paid')
  })

  it('a misspelt flag: exit 2 with the nearest flag suggested', async () => {
    const r = await run(['customers', 'list', '--stauts', 'active'], {env: env()})
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('Nonexistent flag: --stauts. Did you mean --status?')
    const json = await run(['customers', 'list', '--stauts', 'active', '--json'], {env: env()})
    expect(json.code).toBe(2)
    expect(json.json().error.message).toContain('Did you mean --status?')
  })
})
