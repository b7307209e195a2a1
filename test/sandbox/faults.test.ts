/**
 * Faults on purpose: the CLI's own retry policy against sandbox-made 503s, a POST that is not
 * retried, a seeded rate that repeats, delays, dropped connections, and validation.
 */
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {startSandbox} from '../../src/sandbox/index.js'
import {type Session, startSession} from '../helpers/webhooks-setup.js'
import {call} from '../helpers/sandbox-client.js'

let session: Session
beforeAll(async () => {
  session = await startSession()
})
afterAll(() => session.close())
beforeEach(async () => {
  expect((await session.cli(['sandbox', 'fault', 'clear'])).code).toBe(0)
})

const logged = async (path: string) =>
  (await session.cli(['sandbox', 'logs', '--json', '--limit', '1000', '--path', path])).stdout
    .trim()
    .split('\n')
    .filter((l) => l)
    .map((l) => JSON.parse(l))

describe('sandbox fault', () => {
  it('--status 503 --count 2: a GET succeeds on its third attempt, and a customers create fails without a retry', async () => {
    const add = await session.cli([
      'sandbox',
      'fault',
      'add',
      '--path',
      '/api/v2/customers',
      '--method',
      'GET',
      '--status',
      '503',
      '--count',
      '2',
      '--json',
    ])
    expect(add.code, add.stderr).toBe(0)
    expect(add.json()).toMatchObject({path: '/api/v2/customers', method: 'GET', status: 503, remaining: 2})
    const before = (await logged('/api/v2/customers')).length
    const list = await session.cli(['customers', 'list', '--json'])
    expect(list.code, list.stderr).toBe(0)
    const attempts = (await logged('/api/v2/customers')).slice(before)
    expect(attempts.map((e) => e.status)).toEqual([503, 503, 200])
    expect(attempts[0].fault).toMatch(/status 503/)

    await session.cli(['sandbox', 'fault', 'add', '--path', '/api/v2/customers', '--method', 'POST', '--status', '503', '--count', '2'])
    const start = (await logged('/api/v2/customers')).length
    const create = await session.cli(['customers', 'create', '--email', 'fault@example.com', '--name', 'F'])
    expect(create.code).toBe(1)
    expect((await logged('/api/v2/customers')).slice(start).map((e) => `${e.method} ${e.status}`)).toEqual(['POST 503'])
    const rules = (await session.cli(['sandbox', 'fault', 'list', '--json'])).json()
    expect(rules).toMatchObject([{method: 'POST', remaining: 1, applied: 1}])
  })

  it('--rate 0.5 --random-seed 1 gives the same sequence twice', async () => {
    const sequence = async () => {
      await session.cli(['sandbox', 'fault', 'clear'])
      const r = await session.cli([
        'sandbox',
        'fault',
        'add',
        '--path',
        '/api/v2/products/*',
        '--status',
        '429',
        '--retry-after',
        '1',
        '--rate',
        '0.5',
        '--random-seed',
        '1',
      ])
      expect(r.code, r.stderr).toBe(0)
      const statuses: number[] = []
      for (let i = 0; i < 16; i++) statuses.push((await call(session.sandbox, 'GET', '/api/v2/products/1')).status)
      return statuses
    }
    const first = await sequence()
    expect(first).toEqual(await sequence())
    expect(new Set(first)).toEqual(new Set([200, 429]))
    const answer = await call(session.sandbox, 'GET', '/api/v2/products/1')
    if (answer.status === 429) expect(answer.headers.get('retry-after')).toBe('1')
  })

  it('answers with a JSON {message} and Retry-After; --drop closes the connection; --delay waits', async () => {
    await session.cli(['sandbox', 'fault', 'add', '--path', '/api/v2/products', '--status', '429', '--retry-after', '7'])
    const limited = await call(session.sandbox, 'GET', '/api/v2/products')
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('7')
    expect(limited.body.message).toMatch(/Injected fault/)
    expect((await call(session.sandbox, 'GET', '/api/v2/products')).status).toBe(200)

    await session.cli(['sandbox', 'fault', 'add', '--path', '/api/v2/products', '--drop'])
    await expect(call(session.sandbox, 'GET', '/api/v2/products')).rejects.toThrow()
    await session.cli(['sandbox', 'fault', 'add', '--path', '/api/v2/products', '--delay', '300'])
    const started = performance.now()
    expect((await call(session.sandbox, 'GET', '/api/v2/products')).status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(290)
  })

  it('refuses bad rules with exit 2; the control path itself is never faulted', async () => {
    for (const args of [
      ['--path', '/x'],
      ['--path', '/x', '--status', '200'],
      ['--path', '/x', '--status', '503', '--rate', '2'],
      ['--path', '/x', '--drop', '--status', '503'],
      ['--status', '503'],
    ]) {
      expect((await session.cli(['sandbox', 'fault', 'add', ...args])).code, args.join(' ')).toBe(2)
    }
    const relative = await session.cli(['sandbox', 'fault', 'add', '--path', 'customers', '--status', '503'])
    expect(relative.code).toBe(2)
    expect(relative.stderr).toContain('path (--path): must start with / (a path glob such as /api/v2/customers*); got "customers"')
    const status = await session.cli(['sandbox', 'fault', 'add', '--path', '/x', '--status', '99'])
    expect([status.code, status.stderr]).toEqual([2, expect.stringContaining('--status must be at least 400 (got "99").')])
    const added = await session.cli(['sandbox', 'fault', 'add', '--path', '/*', '--status', '500', '--count', '5'])
    expect(added).toMatchObject({code: 0, stdout: ''})
    expect(added.stderr).toMatch(/^✓ Added fault #\d+ {2}any method \/\*: answer 500; 5 more times; not applied yet\n$/)
    expect((await session.cli(['sandbox', 'fault', 'list'])).stdout).toMatch(/#\d+ {2}any method \/\*: answer 500; 5 more times; not applied yet/)
    expect((await session.cli(['sandbox', 'fault', 'clear'])).stdout).toBe('Removed 1 fault rule.\n')
  })
})

describe('a dropped connection', () => {
  it('is dropped without a word on the sandbox log (nothing to answer)', async () => {
    const lines: string[] = []
    const sb = await startSandbox({log: (line) => lines.push(line), port: 0})
    try {
      const add = await fetch(`${sb.baseUrl}/_sandbox/faults`, {
        body: JSON.stringify({count: 1, drop: true, path: '/api/v2/products'}),
        headers: {'content-type': 'application/json'},
        method: 'POST',
      })
      expect(add.status).toBe(201)
      await expect(fetch(`${sb.baseUrl}/api/v2/products`)).rejects.toThrow()
      expect((await fetch(`${sb.baseUrl}/api/v2/products`)).status).toBe(200)
      expect(lines).toEqual([])
    } finally {
      await sb.close()
    }
  })
})
