/**
 * `--jq` and `--fields`, run as processes against the sandbox: jq runs once on the whole list after
 * every page, prints like `jq -r`, a compile error is exit 2 before any request, a runtime error exit 1 with
 * jq's message, errors are the --json error document; --fields in TSV, JSON and the terminal's table.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {run} from '../helpers/cli.js'
import {useSandboxFixture} from '../helpers/sandbox-fixture.js'
import {keyPairEnv, startRecorder} from '../helpers/login.js'
import {writeCustomersDataFile} from '../helpers/sandbox.js'
import {killAllSessions, startInTmux} from '../helpers/tmux.js'

const files = mkdtempSync(join(tmpdir(), 'commerce-jq-'))
// Registered before the sandbox's own hooks, so that it runs after them (vitest runs after-hooks in reverse): the
// data file's folder goes once the sandbox has stopped writing to it.
afterAll(async () => {
  await killAllSessions()
  rmSync(files, {force: true, recursive: true})
})
const fx = useSandboxFixture({dataFile: writeCustomersDataFile(join(files, 'data.json'), 250)})

const env = () => keyPairEnv(fx.dir, fx.sb.baseUrl, fx.sb.keys[0])
const cli = (args: string[]) => run(args, {env: env()})

describe('--jq', () => {
  it('runs on the whole list after every page: one bare address a line for 250 customers, and length 250', async () => {
    const [emails, length] = await Promise.all([
      cli(['customers', 'list', '--all', '--jq', '.[].email']),
      cli(['customers', 'list', '--all', '--per-page', '100', '--jq', 'length']),
    ])
    expect(emails.code, emails.stderr).toBe(0)
    const lines = emails.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(250)
    expect(new Set(lines).size).toBe(250)
    for (const line of lines) expect(line).toMatch(/^customer\d+@example\.com$/)
    expect(length.code, length.stderr).toBe(0)
    expect(length.stdout).toBe('250\n')
  })

  it('on one resource: orders get 1 --jq .items[0].unit_price; objects compact on a pipe; @csv; several results', async () => {
    const created = await cli(['orders', 'create', '--customer', '1', '--currency', 'USD', '--item', '1:2', '--json'])
    expect(created.code, created.stderr).toBe(0)
    const order = created.json<{id: number; items: Array<{unit_price: number}>}>()
    const [price, object, csv] = await Promise.all([
      cli(['orders', 'get', String(order.id), '--jq', '.items[0].unit_price']),
      cli(['orders', 'get', String(order.id), '--jq', '{id, status}']),
      cli(['customers', 'list', '--limit', '2', '--jq', '.[] | [.id, .email] | @csv']),
    ])
    expect(price.code, price.stderr).toBe(0)
    expect(price.stdout).toBe(`${order.items[0].unit_price}\n`)
    expect(object.stdout).toBe(`{"id":${order.id},"status":"pending"}\n`)
    expect(csv.stdout).toBe('250,"customer250@example.com"\n249,"customer249@example.com"\n')
  })

  it("an expression that does not compile is exit 2 with jq's message, in the error document, before any request", async () => {
    const recorder = await startRecorder()
    fx.faulty = recorder
    const r = await run(['customers', 'list', '--jq', '.[', '--base-url', recorder.url], {env: env()})
    expect(r.code).toBe(2)
    const doc = r.json<{error: {message: string; status: null}}>()
    expect(doc.error.message).toMatch(/^--jq: syntax error/)
    expect(doc.error.status).toBeNull()
    expect(recorder.requests).toHaveLength(0)
  })

  it("a runtime error is exit 1 with jq's message; a service error with --jq is the usual error document", async () => {
    const [runtime, missing] = await Promise.all([
      cli(['customers', 'get', '1', '--jq', '.email | tonumber']),
      cli(['customers', 'get', '99999', '--jq', '.email']),
    ])
    expect(runtime.code).toBe(1)
    expect(runtime.json<{error: {message: string}}>().error.message).toMatch(/^--jq: .*Cannot parse|^--jq: .*numeric/i)
    expect(missing.code).toBe(4)
    expect(missing.json<{error: {status: number}}>().error.status).toBe(404)
  })

  it('input and halt_error as jq does them: "No more inputs"; halt_error(N) exits N with its text on stderr; debug reaches stderr', async () => {
    const [input, halt5, halt3, halt0, debug] = await Promise.all([
      cli(['customers', 'get', '1', '--jq', 'input']),
      cli(['customers', 'get', '1', '--jq', '.id | halt_error(5)']),
      cli(['customers', 'get', '1', '--jq', '"stopped here" | halt_error(3)']),
      cli(['customers', 'get', '1', '--jq', '"fine\\n" | halt_error(0)']),
      cli(['customers', 'get', '1', '--jq', '.id | debug']),
    ])
    expect(input.code).toBe(1)
    expect(input.json<{error: {message: string}}>().error.message).toBe('--jq: No more inputs')
    expect([halt5.code, halt5.stdout, halt5.stderr]).toEqual([5, '', '1\n'])
    expect([halt3.code, halt3.stdout, halt3.stderr]).toEqual([3, '', 'stopped here\n'])
    expect([halt0.code, halt0.stdout, halt0.stderr]).toEqual([0, '', 'fine\n'])
    expect([debug.code, debug.stdout, debug.stderr]).toEqual([0, '1\n', '["DEBUG:",1]\n'])
  })

  it('on a terminal: objects indented as --json shows them, strings raw', async () => {
    const session = await startInTmux(['customers', 'get', '1', '--jq', '{id, email}, .email'], {env: env()})
    expect(await session.waitForExit()).toBe(0)
    expect(await session.capture()).toContain('{\n  "id": 1,\n  "email": "customer1@example.com"\n}\ncustomer1@example.com\n')
  })

  it('is refused where output streams (export), naming the pipe to jq instead', async () => {
    const exported = await cli(['customers', 'export', '--jq', '.email'])
    expect(exported.code).toBe(2)
    expect(exported.json<{error: {message: string}}>().error.message).toMatch(/pipe it to jq instead/)
    // Not refused where the output is one document: a single request.
    const single = await cli(['api', 'v2/customers', '--jq', '.data | length'])
    expect(single.stdout).toBe('20\n')
  })

  it('api --paginate --jq runs the expression on the one array of every page (as gh api --paginate --jq)', async () => {
    const all = await cli(['api', 'v2/customers', '--paginate', '--json'])
    const count = all.json<unknown[]>().length
    expect(count).toBeGreaterThan(20)
    const paginated = await cli(['api', 'v2/customers?per_page=7', '--paginate', '--jq', 'length, (map(.id) | unique | length)'])
    expect([paginated.code, paginated.stdout]).toEqual([0, `${count}\n${count}\n`])
  })
})

describe('--jq under bounds', () => {
  const bin = join(import.meta.dirname, '..', '..', 'bin', 'run.js')
  /** The CLI in a bash pipeline, as a user types it ($CLI); killed by the test after 20 s. */
  const shell = (line: string, extra: Record<string, string> = {}) =>
    new Promise<{code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; elapsed: number}>((resolve) => {
      const started = Date.now()
      const child = spawn('bash', ['-c', line], {
        env: {...process.env, ...env(), ...extra, CLI: `${process.execPath} ${bin}`},
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stdout = ''
      let stderr = ''
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
      child.on('close', (code, signal) => {
        clearTimeout(timer)
        resolve({code, elapsed: Date.now() - started, signal, stderr, stdout})
      })
    })

  it("streams results: `--jq 'repeat(1)' | head -1` ends as soon as head does", async () => {
    const r = await shell(`$CLI products list --per-page 1 --jq 'repeat(1)' | head -1; echo "status \${PIPESTATUS[0]}"`)
    expect(r.signal, 'killed by the test: it hung').toBeNull()
    expect(r.stdout).toBe('1\nstatus 0\n')
    expect(r.elapsed).toBeLessThan(10_000)
  })

  it('a filter that runs away is stopped at COMMERCE_JQ_TIMEOUT: exit 1, a clear message, nothing of the runtime', async () => {
    const r = await shell(`$CLI products list --per-page 1 --jq '[range(1e9)] | length'`, {COMMERCE_JQ_TIMEOUT: '1'})
    expect(r.code, r.stderr).toBe(1)
    expect(JSON.parse(r.stdout)).toMatchObject({error: {message: '--jq: the filter took longer than 1 s and was stopped.', status: null}})
    expect(r.stderr).toMatch(/COMMERCE_JQ_TIMEOUT sets the limit/)
    expect(r.stderr + r.stdout).not.toMatch(/Aborted|RuntimeError|\bat /)
    expect(r.elapsed).toBeLessThan(10_000)
  })

  it('Ctrl-C stops a running filter at once: exit 130', async () => {
    const child = spawn(process.execPath, [bin, 'products', 'list', '--per-page', '1', '--debug', '--jq', 'until(false; .)'], {
      env: {...process.env, ...env()},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let err = ''
    const answered = new Promise<void>((resolve) =>
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        err += d
        // --debug's trace: the response is in, so the filter runs next (not a guess at start-up time).
        if (/^< 200 /m.test(err)) resolve()
      }),
    )
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    await answered
    await new Promise((resolve) => setTimeout(resolve, 200))
    const sent = Date.now()
    child.kill('SIGINT')
    const code = await exited
    clearTimeout(timer)
    expect(code, err).toBe(130)
    // Well inside the filter's 10 s deadline: it was stopped by Ctrl-C, not by the deadline.
    expect(Date.now() - sent).toBeLessThan(5000)
  })
})

describe('--fields', () => {
  it('TSV and JSON keep only those fields, in that order; a known one a record lacks is empty / null; nested names', async () => {
    const [tsv, json, get] = await Promise.all([
      cli(['customers', 'list', '--limit', '2', '--fields', 'email,id,metadata.team']),
      cli(['customers', 'list', '--limit', '2', '--fields', 'id,email,metadata.plan,metadata.team', '--json']),
      cli(['customers', 'get', '3', '--fields', 'id,email,addresses']),
    ])
    expect(tsv.code, tsv.stderr).toBe(0)
    expect(tsv.stdout).toBe('email\tid\tmetadata.team\ncustomer250@example.com\t250\t\ncustomer249@example.com\t249\t\n')
    const records = json.json<Array<Record<string, unknown>>>()
    expect(records).toEqual([
      {email: 'customer250@example.com', id: 250, 'metadata.plan': 'pro', 'metadata.team': null},
      {email: 'customer249@example.com', id: 249, 'metadata.plan': 'free', 'metadata.team': null},
    ])
    expect(records.map((r) => Object.keys(r))).toEqual([
      ['id', 'email', 'metadata.plan', 'metadata.team'],
      ['id', 'email', 'metadata.plan', 'metadata.team'],
    ])
    expect(get.stdout).toBe('id\t3\nemail\tcustomer3@example.com\naddresses\t\n')
  })

  it('a field no record carries and the CLI does not know is exit 2 naming the nearest, with nothing printed (as gh does)', async () => {
    const [typo, json, one] = await Promise.all([
      cli(['customers', 'list', '--fields', 'id,emial']),
      cli(['orders', 'list', '--fields', 'totl', '--json']),
      cli(['customers', 'get', '3', '--fields', 'id,naem']),
    ])
    expect(typo.code).toBe(2)
    expect(typo.stdout).toBe('')
    expect(typo.stderr).toContain('no record has a field "emial"; did you mean email?')
    expect(json.code).toBe(2)
    expect(json.json<{error: {message: string}}>().error.message).toContain('did you mean total?')
    expect(one.code).toBe(2)
    expect(one.stdout).toBe('')
    expect(one.stderr).toContain('did you mean name?')
  })

  it('with no record to judge by, a name one slip from a known field is still exit 2 naming both; another unknown name is a warning', async () => {
    const [swapped, missing, json, other] = await Promise.all([
      cli(['products', 'search', 'no-such-product-anywhere', '--fields', 'id,nmae']),
      cli(['products', 'search', 'no-such-product-anywhere', '--fields', 'id,instock']),
      cli(['products', 'search', 'no-such-product-anywhere', '--fields', 'prcie', '--json']),
      cli(['products', 'search', 'no-such-product-anywhere', '--fields', 'id,colour', '--json']),
    ])
    expect(swapped.code).toBe(2)
    expect(swapped.stdout).toBe('')
    expect(swapped.stderr).toContain('--fields: "nmae" is not a field; did you mean name?')
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('did you mean in_stock?')
    expect(json.code).toBe(2)
    expect(json.json<{error: {message: string}}>().error.message).toContain('"prcie" is not a field; did you mean price?')
    expect(other.code, other.stderr).toBe(0)
    expect(other.json()).toEqual([])
    expect(other.stderr).toContain('"colour" is not a documented field, and there is no record to judge it by')
  })

  it("a list's --fields names only what a list returns: items of orders list is refused, saying that get reads a whole order", async () => {
    const [list, json, help, get] = await Promise.all([
      cli(['orders', 'list', '--fields', 'id,items']),
      cli(['orders', 'list', '--fields', 'id,items', '--json']),
      cli(['orders', 'list', '--help']),
      cli(['orders', 'get', '1', '--fields', 'id,items', '--json']),
    ])
    expect(list.code).toBe(2)
    expect(list.stdout).toBe('')
    expect(list.stderr).toContain(`--fields: a list's records do not carry "items"; \`get\` reads a whole record, with it.`)
    expect(json.code).toBe(2)
    expect(json.json<{error: {code: string}}>().error.code).toBe('usage')
    expect(help.stdout.replace(/\s+/g, ' ')).toContain("A list's records do not carry items, idempotency_key")
    expect(get.code, get.stderr).not.toBe(2)
  })

  it('fields first, then --jq; an empty list is exit 2', async () => {
    const [both, empty] = await Promise.all([
      cli(['customers', 'list', '--limit', '1', '--fields', 'id', '--jq', '.[0] | keys']),
      cli(['customers', 'list', '--fields', ' , ']),
    ])
    expect(both.stdout).toBe('["id"]\n')
    expect(empty.code).toBe(2)
    expect(empty.stderr).toMatch(/^Error: --fields: give at least one field name/)
  })

  it("in the terminal's table: only the id and email columns", async () => {
    const session = await startInTmux(['customers', 'list', '--limit', '3', '--fields', 'id,email'], {env: env()})
    const screen = await session.waitFor(/Showing 1-3/)
    expect(screen).toMatch(/^ID\s+EMAIL\s*$/m)
    expect(screen).toMatch(/^250\s+customer250@example\.com\s*$/m)
    expect(screen).toContain('customer250@example.com')
    expect(screen).not.toMatch(/created_at|status/)
  })

  it('--help lists the known fields', async () => {
    const r = await cli(['customers', 'list', '--help'])
    expect(r.stdout).toMatch(/--fields=a,b,c/)
    expect(r.stdout).toMatch(/metadata\.plan/)
  })
})
