/**
 * The request log and `commerce sandbox logs`: the CLI's requests in order, secrets masked,
 * filters, --follow streaming until Ctrl-C (exit 0), and the ring's bound.
 */
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {MASK, maskSecrets, RequestLog} from '../../src/sandbox/request-log.js'
import {startInTmux} from '../helpers/tmux.js'
import {killAll, type Session, spawnCli, startSession} from '../helpers/webhooks-setup.js'
import {call} from '../helpers/sandbox-client.js'

let session: Session
beforeAll(async () => {
  session = await startSession()
})
afterAll(() => session.close())
afterEach(() => killAll())

describe('sandbox logs', () => {
  it('on an 80-column terminal every entry fits, the path and query cut with …', async () => {
    expect(
      (await session.cli(['customers', 'list', '--search', 'a-rather-long-search-text-that-goes-on@example.com', '--per-page', '17'])).code,
    ).toBe(0)
    const term = await startInTmux(['sandbox', 'logs', '--limit', '5'], {env: session.env, width: 80})
    expect(await term.waitForExit()).toBe(0)
    const lines = (await term.capture()).split('\n').filter((l) => / GET | POST /.test(l))
    expect(lines.length).toBeGreaterThan(0)
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80)
    expect(lines.join('\n')).toMatch(/GET +\/api\/v2\/customers\?\S*… {2}200 /)
    await term.kill()
  })

  it('--json shows the CLI requests in order, one object per line, with secrets masked', async () => {
    const created = await session.cli(['customers', 'create', '--email', 'logs@example.com', '--name', 'Logs', '--json'])
    expect(created.code, created.stderr).toBe(0)
    expect((await session.cli(['customers', 'get', '999999'])).code).toBe(4)
    const r = await session.cli(['sandbox', 'logs', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const entries = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const calls = entries.map((e) => `${e.method} ${e.path} ${e.status}`)
    const token = calls.indexOf('POST /api/v2/auth/tokens 201')
    const create = calls.indexOf('POST /api/v2/customers 201')
    const missing = calls.indexOf('GET /api/v2/customers/999999 404')
    expect(token).toBeGreaterThanOrEqual(0)
    expect(create).toBeGreaterThan(token)
    expect(missing).toBeGreaterThan(create)
    for (const e of entries) expect(Object.keys(e)).toEqual(expect.arrayContaining(['time', 'method', 'path', 'status', 'duration_ms', 'key_id']))
    const key = session.sandbox.keys[0]
    expect(entries[token].key_id).toBe(key.key_id)
    expect(entries[create].key_id).toBe(key.key_id)
    expect(entries[token].request_body).toMatchObject({key_id: key.key_id, key_secret: '********'})
    expect(entries[token].response_body.access_token).toBe('********')
    expect(entries[create].request_body).toMatchObject({email: 'logs@example.com'})
    expect(r.stdout).not.toContain(key.key_secret)
    expect(r.stdout).not.toMatch(/sbx_at_/)
  })

  it('filters by --status and --path, --limit keeps the latest; a terminal line per request', async () => {
    await call(session.sandbox, 'GET', '/api/v2/products/77777')
    const r = await session.cli(['sandbox', 'logs', '--status', '4xx', '--path', '/api/v2/products/*'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines.length).toBeGreaterThanOrEqual(1)
    for (const line of lines) expect(line).toMatch(/^\d\d:\d\d:\d\d\.\d{3} {2}GET +\/api\/v2\/products\/\d+ {2}404 {2}[\d.]+ ms/)
    const limited = await session.cli(['sandbox', 'logs', '--limit', '1', '--json'])
    expect(limited.stdout.trim().split('\n')).toHaveLength(1)
    expect((await session.cli(['sandbox', 'logs', '--status', 'bad'])).code).toBe(2)
  })

  it('--follow streams new requests until Ctrl-C, then exits 0', async () => {
    const follow = spawnCli(['sandbox', 'logs', '--follow', '--json', '--path', '/api/v2/products/*'], session.env)
    // The existing matching entries come first; then one made now.
    const before = (await session.cli(['sandbox', 'logs', '--json', '--path', '/api/v2/products/*'])).stdout.trim().split('\n').length
    await new Promise((r) => setTimeout(r, 300))
    await call(session.sandbox, 'GET', '/api/v2/products/4242')
    const line = await follow.json(before)
    expect(line).toMatchObject({method: 'GET', path: '/api/v2/products/4242', status: 404})
    follow.child.kill('SIGINT')
    expect(await follow.exited).toEqual({code: 0, signal: null})
  })

  it('--follow ends when the sandbox stops: said in words (no error code), exit 0', async () => {
    const own = await startSession()
    try {
      const follow = spawnCli(['sandbox', 'logs', '--follow'], own.env)
      await call(own.sandbox, 'GET', '/api/v2/products/4242')
      await follow.line(0)
      await own.sandbox.close()
      expect(await follow.exited).toEqual({code: 0, signal: null})
      expect(follow.stderr()).toMatch(/^The sandbox at http:\/\/127\.0\.0\.1:\d+ stopped: no more requests to show\.\n$/)
    } finally {
      await own.close().catch(() => {})
    }
  })

  it('is exit 2 (sandbox_not_running, as for every command that needs one) with a hint when no sandbox runs', async () => {
    const r = await session.cli(['sandbox', 'logs'], {env: {COMMERCE_CONFIG_DIR: '/nonexistent-commerce-dir'}})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/No local sandbox is running/)
  })
})

/** A GET of `/p<i>` answered 200 with `text`, as the sandbox records it. */
const answered = (i: number, text: string) => ({
  duration_ms: 1,
  key_id: null,
  method: 'GET',
  path: `/p${i}`,
  query: '',
  request_body: null,
  response_text: text,
  status: 200,
  time: '',
})

describe('request log', () => {
  it('keeps a bounded ring and masks secrets by field and by prefix', () => {
    const log = new RequestLog({limit: 3, maxBodyBytes: 100, maxFileBytes: 1e6, onError: () => {}})
    for (let i = 0; i < 5; i++) log.add(answered(i, i === 4 ? 'x'.repeat(200) : '{}'))
    expect(log.since().map((e) => e.path)).toEqual(['/p2', '/p3', '/p4'])
    expect(log.since().at(-1)!.response_body).toEqual({omitted_bytes: 200})
    expect(log.since(3).map((e) => e.seq)).toEqual([4, 5])
    expect(maskSecrets({a: {signing_secret: 'x'}, b: ['whsec_abc', 'ok'], key_secret: 'y'})).toEqual({
      a: {signing_secret: '********'},
      b: ['********', 'ok'],
      key_secret: '********',
    })
  })

  it('masks secrets in what the file gets and in what the ring gives, and keeps other answers as they were', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'commerce-request-log-'))
    try {
      const file = join(dir, 'sandbox.log')
      const log = new RequestLog({file, limit: 10, maxBodyBytes: 1000, maxFileBytes: 1e6, onError: () => {}})
      const answers = [
        '{"access_token":"sbx_at_xyz","expires_in":3600}',
        '{"data":[{"id":1,"name":"Ada","note":"whsec_planted"}]}',
        '{"data":[{"id":2,"name":"Grace"}],"meta":{"total":1}}',
      ]
      for (const [i, text] of answers.entries()) log.add(answered(i, text))
      await log.close()
      const written = readFileSync(file, 'utf8')
      expect(written).not.toContain('sbx_at_xyz')
      expect(written).not.toContain('whsec_planted')
      const expected = [
        {access_token: MASK, expires_in: 3600},
        {data: [{id: 1, name: 'Ada', note: MASK}]},
        {data: [{id: 2, name: 'Grace'}], meta: {total: 1}},
      ]
      expect(
        written
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as {response_body: unknown}).response_body),
      ).toEqual(expected)
      expect(log.since().map((e) => e.response_body)).toEqual(expected)
      expect(JSON.stringify(log.since())).not.toMatch(/sbx_at_xyz|whsec_planted/)
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  })
})
