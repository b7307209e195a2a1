/**
 * `commerce customers ...` run in this process through the commands' seam against the sandbox with an env key pair: every command's happy
 * path in --json and on a pipe, the server's 403 / 404 / 422 answers mapped to exit codes and named flags, and
 * every client-side validation error refused before any request.
 */
import {describe, expect, it} from 'vitest'

// In this process, through the commands' seam (test/helpers/in-process.ts): none of these tests needs a process.
import {runInProcess as run} from '../helpers/in-process.js'
import {useSandboxFixture} from '../helpers/sandbox-fixture.js'
import {ANSI, keyPairEnv, occurrences, startRecorder} from '../helpers/login.js'

const fx = useSandboxFixture()

const env = (extra: Record<string, string> = {}) => ({...keyPairEnv(fx.dir, fx.sb.baseUrl, fx.sb.keys[0]), ...extra})
const customers = (args: string[], extra: Record<string, string> = {}) => run(['customers', ...args], {env: env(extra)})

interface Customer {
  id: number
  email: string
  name: string
  status: string
  created_at: string
  metadata?: Record<string, unknown>
  orders?: unknown[]
}

let counter = 0
/** Creates a customer through the CLI and returns it. */
async function create(extra: string[] = []): Promise<Customer> {
  const r = await customers(['create', '--email', `c${++counter}@example.com`, '--name', `Customer ${counter}`, ...extra, '--json'])
  expect(r.code, r.stderr).toBe(0)
  return r.json<Customer>()
}

describe('customers create / get / update / delete', () => {
  it('create --json prints the customer as the service returned it (metadata from --plan and --metadata)', async () => {
    const r = await customers([
      'create',
      '--email',
      'ada@example.com',
      '--name',
      'Ada Lovelace',
      '--plan',
      'pro',
      '--metadata',
      'source=ci',
      '--metadata',
      'team=a=b',
      '--json',
    ])
    expect(r.code, r.stderr).toBe(0)
    const c = r.json<Customer>()
    expect(c).toMatchObject({
      email: 'ada@example.com',
      id: expect.any(Number),
      metadata: {plan: 'pro', source: 'ci', team: 'a=b'},
      name: 'Ada Lovelace',
      status: 'invited',
    })
    // stdout is exactly one JSON document; the success line went to stderr.
    expect(r.stdout.trim().startsWith('{')).toBe(true)
    expect((await create(['--no-send-invite'])).status).toBe('active')
  })

  it('create says that the service will email an invitation, and how not to; --no-send-invite and --json say nothing', async () => {
    const [invited, quiet, json] = await Promise.all([
      customers(['create', '--email', 'invite.me@example.com', '--name', 'Invited']),
      customers(['create', '--email', 'no.invite@example.com', '--name', 'Quiet', '--no-send-invite']),
      customers(['create', '--email', 'json.invite@example.com', '--name', 'Json', '--json']),
    ])
    for (const r of [invited, quiet, json]) expect(r.code, r.stderr).toBe(0)
    expect(invited.stderr).toContain('The service emails invite.me@example.com an invitation to the account (--no-send-invite: no email).')
    expect(quiet.stderr).not.toContain('invitation')
    expect(json.stderr).not.toContain('invitation')
  })

  it('create on a pipe: field<TAB>value lines, tabs and newlines inside values become spaces, nested values compact JSON', async () => {
    const r = await customers(['create', '--email', 'tabs@example.com', '--name', 'Tab\there\nnew line', '--metadata', 'note=a\tb'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^id\t\d+$/)
    expect(lines).toContain('email\ttabs@example.com')
    expect(lines).toContain('name\tTab here new line')
    // JSON escapes the tab itself, so the cell stays one cell.
    expect(lines).toContain('metadata\t{"note":"a\\tb"}')
    for (const line of lines) expect(line.split('\t')).toHaveLength(2)
    expect(r.stdout + r.stderr).not.toMatch(ANSI)
    expect(r.stderr).toMatch(/Created customer \d+/)
  })

  it('get --json, get --include orders, and get on a pipe', async () => {
    const c = await create(['--plan', 'basic'])
    const [json, included, tsv] = await Promise.all([
      customers(['get', String(c.id), '--json']),
      customers(['get', String(c.id), '--include', 'orders', '--json']),
      customers(['get', String(c.id)]),
    ])
    expect(json.code, json.stderr).toBe(0)
    expect(json.json()).toEqual(c)
    expect(included.json<Customer>().orders).toEqual([])
    expect(tsv.stdout.split('\n').slice(0, 5)).toEqual([
      `id\t${c.id}`,
      `email\t${c.email}`,
      `name\t${c.name}`,
      `status\t${c.status}`,
      `created_at\t${c.created_at}`,
    ])
  })

  it('update changes fields (metadata merged) and prints the customer', async () => {
    const c = await create(['--plan', 'basic', '--metadata', 'keep=yes'])
    const r = await customers(['update', String(c.id), '--name', 'Renamed', '--status', 'archived', '--plan', 'enterprise', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toMatchObject({id: c.id, metadata: {keep: 'yes', plan: 'enterprise'}, name: 'Renamed', status: 'archived'})
  })

  it('delete --yes --json prints {"id":N,"deleted":true}; the customer is then gone (exit 4)', async () => {
    const c = await create()
    const r = await customers(['delete', String(c.id), '--yes', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual({deleted: true, id: c.id})
    expect(r.stdout.trimEnd()).not.toContain('\n')
    const gone = await customers(['get', String(c.id), '--json'])
    expect(gone.code).toBe(4)
    expect(gone.json().error).toMatchObject({message: expect.stringContaining(String(c.id)), status: 404})
  })

  it('delete without --yes and without a terminal: exit 2 naming --yes, nothing deleted', async () => {
    const c = await create()
    const before = fx.sb.counts().customers
    const r = await customers(['delete', String(c.id)])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--yes')
    expect(fx.sb.counts().customers).toBe(before)
  })
})

describe('customers list', () => {
  it('--all asks for pages of 100, the most the service takes (as export does); --limit for pages up to what it needs', async () => {
    const pageSizes = (stderr: string) => [...stderr.matchAll(/^> GET \S*[?&]per_page=(\d+)/gm)].map((m) => Number(m[1]))
    const all = await customers(['list', '--all', '--json', '--debug'])
    expect(all.code, all.stderr).toBe(0)
    expect(pageSizes(all.stderr)).toEqual(expect.arrayContaining([100]))
    expect(pageSizes(all.stderr).every((n) => n === 100)).toBe(true)
    const limited = await customers(['list', '--limit', '45', '--json', '--debug'])
    expect(pageSizes(limited.stderr)[0]).toBe(45)
    const plain = await customers(['list', '--json', '--debug'])
    expect(pageSizes(plain.stderr)).toEqual([30])
  })

  it('on a pipe: header line and rows; --json: an array; filters and paging', async () => {
    for (let i = 0; i < 3; i++) await create(['--no-send-invite'])
    const total = fx.sb.counts().customers
    const [tsv, all, active, search, limited, page] = await Promise.all([
      customers(['list']),
      customers(['list', '--all', '--per-page', '2', '--json']),
      customers(['list', '--status', 'active', '--all', '--json']),
      customers(['list', '--search', 'ada@', '--json']),
      customers(['list', '--limit', '3', '--per-page', '2', '--json']),
      customers(['list', '--page', '2', '--per-page', '2', '--json']),
    ])
    for (const r of [tsv, all, active, search, limited, page]) expect(r.code, r.stderr).toBe(0)
    const lines = tsv.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('id\temail\tname\tstatus\tcreated_at')
    expect(lines).toHaveLength(Math.min(total, 30) + 1)
    for (const line of lines) expect(line.split('\t')).toHaveLength(5)

    const everything = all.json<Customer[]>()
    expect(everything).toHaveLength(total)
    expect(everything.map((c) => c.id)).toEqual([...everything.map((c) => c.id)].sort((a, b) => b - a))
    expect(active.json<Customer[]>().every((c) => c.status === 'active')).toBe(true)
    expect(active.json<Customer[]>().length).toBeGreaterThanOrEqual(3)
    expect(search.json<Customer[]>().map((c) => c.email)).toEqual(['ada@example.com'])
    expect(limited.json<Customer[]>()).toEqual(everything.slice(0, 3))
    expect(page.json<Customer[]>()).toEqual(everything.slice(2, 4))
  })

  it('--api-version v1 works and warns once on stderr, naming the v2 command', async () => {
    const r = await customers(['list', '--api-version', 'v1', '--all', '--per-page', '3', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json<Customer[]>()).toHaveLength(fx.sb.counts().customers)
    expect(occurrences(r.stderr, 'deprecated')).toBe(1)
    expect(r.stderr).toContain('commerce customers list')
  })
})

describe('customers: service errors', () => {
  it('422 duplicate email: exit 2, the field and its flag named; with --json the error document on stdout', async () => {
    const c = await create()
    const [human, json] = await Promise.all([
      customers(['create', '--email', c.email, '--name', 'Twin']),
      customers(['create', '--email', c.email, '--name', 'Twin', '--json']),
    ])
    expect(human.code).toBe(2)
    expect(human.stdout).toBe('')
    expect(human.stderr).toMatch(/email \(--email\): .*taken/)
    expect(human.stderr).not.toMatch(/\n\s+at /)
    expect(json.code).toBe(2)
    const {error} = json.json()
    expect(error).toEqual({
      code: 'validation_failed',
      errors: {email: [expect.stringContaining('taken')]},
      exit_code: 2,
      hint: null,
      message: expect.any(String),
      retry_after: null,
      service_message: expect.any(String),
      status: 422,
    })
    // The values are in the document, not "above": stderr does not point there.
    expect(human.stderr).toContain('Fix the values above')
    expect(json.stderr).not.toContain('Fix the values above')
  })

  it('422 on update (email taken by another customer): exit 2 naming --email', async () => {
    const [a, b] = [await create(), await create()]
    const r = await customers(['update', String(b.id), '--email', a.email])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--email')
  })

  it('403 with the customers:read-only key: reads work, a create is exit 3 naming the scope', async () => {
    const readOnly = keyPairEnv(fx.dir, fx.sb.baseUrl, fx.sb.keys[1])
    const [list, created] = await Promise.all([
      run(['customers', 'list', '--json'], {env: readOnly}),
      run(['customers', 'create', '--email', 'nope@example.com', '--name', 'Nope', '--json'], {env: readOnly}),
    ])
    expect(list.code, list.stderr).toBe(0)
    expect(created.code).toBe(3)
    expect(created.json().error).toMatchObject({service_message: expect.stringContaining('orders:write'), status: 403})
  })
})

describe('customers: invalid input is refused before any request (exit 2, the flag named)', () => {
  const cases: Array<[string, string[], string]> = [
    ['per_page 0', ['list', '--per-page', '0'], '--per-page'],
    ['per_page 101', ['list', '--per-page', '101'], '--per-page'],
    ['page 0', ['list', '--page', '0'], '--page'],
    ['search of 121 characters', ['list', '--search', 's'.repeat(121)], '--search'],
    ['an unknown status', ['list', '--status', 'deleted'], '--status'],
    ['--search with --api-version v1', ['list', '--search', 'ada', '--api-version', 'v1'], '--search'],
    ['name of 256 characters', ['create', '--email', 'long@example.com', '--name', 'n'.repeat(256)], '--name'],
    ['a malformed email', ['create', '--email', 'not-an-email', '--name', 'X'], '--email'],
    ['no email without a terminal', ['create', '--name', 'X'], '--email'],
    ['a bad email on update', ['update', '1', '--email', 'a..b@example.com'], '--email'],
    ['an unknown status on update', ['update', '1', '--status', 'gone'], '--status'],
    ['an update without any field', ['update', '1'], '--name'],
    ['an unknown include', ['get', '1', '--include', 'payments'], '--include'],
    ['a non-integer id', ['get', 'abc'], 'ID'],
    ['a negative id', ['delete', '-3', '--yes'], 'ID'],
    ['a v2-only command with --api-version v1', ['update', '1', '--name', 'X', '--api-version', 'v1'], '--api-version'],
  ]
  it.each(cases)('%s', async (_name, args, flag) => {
    fx.faulty = await startRecorder()
    const r = await customers(args, {COMMERCE_BASE_URL: fx.faulty.url})
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain(flag)
    expect(fx.faulty.requests).toHaveLength(0)
  })

  it('with --json the validation error is the JSON document, with the field errors', async () => {
    fx.faulty = await startRecorder()
    const r = await customers(['create', '--email', 'bad', '--name', 'n'.repeat(256), '--json'], {COMMERCE_BASE_URL: fx.faulty.url})
    expect(r.code).toBe(2)
    expect(r.json().error).toMatchObject({
      code: 'validation_failed',
      errors: {email: [expect.any(String)], name: [expect.any(String)]},
      message: expect.any(String),
      status: null,
    })
    expect(fx.faulty.requests).toHaveLength(0)
  })
})
