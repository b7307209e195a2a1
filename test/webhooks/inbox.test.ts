import {appendFileSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {WEBHOOK_INBOX_FILE} from '../../src/config/paths.js'
import {
  ANSWER_BODY_BYTES,
  INBOX_MAX_AGE_MS,
  INBOX_MAX_BYTES,
  Inbox,
  inboxBoundsFromEnv,
  decodeBody,
  defaultInboxPath,
  encodeBody,
  type InboxRecord,
  outcomeOf,
  recordAnswer,
} from '../../src/webhooks/inbox.js'
import {tempDir} from '../helpers/webhooks.js'

const record = (id: string, body: Buffer | string = `{"id":"${id}"}`): InboxRecord => ({
  created_at: '2030-01-01T12:00:00Z',
  duration_ms: 3,
  forward_status: 200,
  headers: {'content-type': 'application/json', 'x-service-signature': 't=1,v1=00'},
  id,
  received_at: '2030-01-01T12:00:01.000Z',
  type: 'order.paid',
  ...encodeBody(Buffer.from(body)),
})

describe('webhook inbox', () => {
  let dir: ReturnType<typeof tempDir>
  let path: string
  beforeEach(() => {
    dir = tempDir()
    path = join(dir.path, 'nested', 'inbox.jsonl')
  })
  afterEach(() => dir.remove())

  it('lives in the config directory by default', () => {
    expect(defaultInboxPath({COMMERCE_CONFIG_DIR: '/tmp/cfg'})).toBe(join('/tmp/cfg', WEBHOOK_INBOX_FILE))
  })

  it('lists nothing before the first delivery', async () => {
    const inbox = new Inbox({path})
    expect(await inbox.listEvents()).toEqual([])
    expect(await inbox.findEvent('evt_1')).toBeUndefined()
  })

  it('appends one JSON line per record, private to the user, and lists newest first', async () => {
    const inbox = new Inbox({path})
    for (const id of ['evt_1', 'evt_2', 'evt_3']) await inbox.append(record(id))
    expect((await inbox.listEvents()).map((r) => r.id)).toEqual(['evt_3', 'evt_2', 'evt_1'])
    expect((await inbox.listEvents({limit: 2})).map((r) => r.id)).toEqual(['evt_3', 'evt_2'])
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(3)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir.path, 'nested')).mode & 0o777).toBe(0o700)
  })

  it('finds the newest delivery of an event id (a retried event is recorded per delivery)', async () => {
    const inbox = new Inbox({path})
    await inbox.append({...record('evt_1'), forward_error: 'connection refused', forward_status: null})
    await inbox.append(record('evt_2'))
    await inbox.append(record('evt_1'))
    expect(await inbox.findEvent('evt_1')).toMatchObject({forward_status: 200, id: 'evt_1'})
    expect(await inbox.findEvent('evt_9')).toBeUndefined()
  })

  it('keeps a binary body as base64 and a UTF-8 body as text, both byte for byte', async () => {
    const inbox = new Inbox({path})
    const binary = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d])
    const text = '{"note":"caf\u00e9 \u2713"}\r\n'
    await inbox.append(record('evt_bin', binary))
    await inbox.append(record('evt_txt', text))
    const bin = (await inbox.findEvent('evt_bin'))!
    const txt = (await inbox.findEvent('evt_txt'))!
    expect(bin.body_encoding).toBe('base64')
    expect(decodeBody(bin).equals(binary)).toBe(true)
    expect(txt).toMatchObject({body: text, body_encoding: 'utf8'})
    expect(decodeBody(txt).equals(Buffer.from(text))).toBe(true)
  })

  it('keeps by age and size, not count: the 4,500 events of a bulk import all stay; older than the age are not read', async () => {
    const now = Date.parse('2030-01-08T12:00:00Z')
    const inbox = new Inbox({now: () => now, path})
    const at = (msAgo: number) => new Date(now - msAgo).toISOString()
    await inbox.append({...record('evt_old'), received_at: at(INBOX_MAX_AGE_MS + 60_000)})
    // As a listener appends them while an import runs: concurrently, batched by the writer (which never rotates by count).
    await Promise.all(
      Array.from({length: 4500}, (_, i) => inbox.append({...record(`evt_bulk_${i}`), received_at: at(1000), type: 'customer.created'})),
    )
    const listed = await inbox.listEvents()
    expect(listed).toHaveLength(4500)
    expect(listed.map((r) => r.id)).not.toContain('evt_old')
    expect(INBOX_MAX_AGE_MS).toBe(7 * 86_400_000)
    expect(INBOX_MAX_BYTES).toBe(64 * 1024 * 1024)
    // A shorter age, as COMMERCE_INBOX_MAX_AGE sets it, reads less.
    expect(await new Inbox({maxAgeMs: 500, now: () => now, path}).listEvents()).toEqual([])
  })

  it('COMMERCE_INBOX_MAX_AGE and COMMERCE_INBOX_MAX_SIZE set the bounds; another form is exit 2 naming the variable', () => {
    expect(inboxBoundsFromEnv({})).toEqual({maxAgeMs: INBOX_MAX_AGE_MS, maxBytes: INBOX_MAX_BYTES})
    expect(inboxBoundsFromEnv({COMMERCE_INBOX_MAX_AGE: '30d', COMMERCE_INBOX_MAX_SIZE: '1GB'})).toEqual({
      maxAgeMs: 30 * 86_400_000,
      maxBytes: 1024 ** 3,
    })
    expect(inboxBoundsFromEnv({COMMERCE_INBOX_MAX_AGE: '12h', COMMERCE_INBOX_MAX_SIZE: '2097152'})).toEqual({
      maxAgeMs: 12 * 3_600_000,
      maxBytes: 2 * 1024 ** 2,
    })
    for (const env of [
      {COMMERCE_INBOX_MAX_AGE: 'forever'},
      {COMMERCE_INBOX_MAX_AGE: '0d'},
      {COMMERCE_INBOX_MAX_SIZE: '10kb'},
      {COMMERCE_INBOX_MAX_SIZE: 'big'},
    ])
      expect(() => inboxBoundsFromEnv(env)).toThrow(new RegExp(Object.keys(env)[0]))
  })

  it('stays bounded in records, keeping the newest', async () => {
    const inbox = new Inbox({maxRecords: 10, path})
    for (let i = 1; i <= 25; i++) await inbox.append(record(`evt_${i}`))
    const ids = (await inbox.listEvents()).map((r) => r.id)
    expect(ids.length).toBeLessThanOrEqual(10)
    expect(ids.length).toBeGreaterThanOrEqual(8)
    expect(ids[0]).toBe('evt_25')
    expect(ids).toEqual(ids.map((_, i) => `evt_${25 - i}`))
    expect(statSync(path).mode & 0o777).toBe(0o600)
  })

  it('stays bounded in bytes, keeping the newest record even when it alone is over', async () => {
    const inbox = new Inbox({maxBytes: 4096, path})
    for (let i = 1; i <= 40; i++) await inbox.append(record(`evt_${i}`, 'x'.repeat(200)))
    expect(statSync(path).size).toBeLessThanOrEqual(4096)
    expect((await inbox.listEvents())[0].id).toBe('evt_40')
    await inbox.append(record('evt_huge', 'y'.repeat(8000)))
    expect((await inbox.listEvents()).map((r) => r.id)).toEqual(['evt_huge'])
  })

  it('counts what is already in the file when it starts', async () => {
    const first = new Inbox({maxRecords: 5, path})
    for (let i = 1; i <= 5; i++) await first.append(record(`evt_${i}`))
    const second = new Inbox({maxRecords: 5, path})
    await second.append(record('evt_6'))
    const ids = (await second.listEvents()).map((r) => r.id)
    expect(ids[0]).toBe('evt_6')
    expect(ids.length).toBeLessThanOrEqual(5)
  })

  it('keeps every one of many concurrent appends', async () => {
    const inbox = new Inbox({path})
    await Promise.all(Array.from({length: 50}, (_, i) => inbox.append(record(`evt_${i}`))))
    expect(new Set((await inbox.listEvents()).map((r) => r.id)).size).toBe(50)
  })

  it('skips a line cut short by a crash, and the next run appends after it', async () => {
    await new Inbox({path}).append(record('evt_1'))
    appendFileSync(path, '{"id":"evt_2","bo')
    const restarted = new Inbox({path})
    await restarted.append(record('evt_3'))
    expect((await restarted.listEvents()).map((r) => r.id)).toEqual(['evt_3', 'evt_1'])
  })
})

describe('webhook inbox shared by two listeners', () => {
  let dir: ReturnType<typeof tempDir>
  beforeEach(() => {
    dir = tempDir()
  })
  afterEach(() => dir.remove())

  it("loses no answered append to the other one's compaction and stays within its bound", async () => {
    const path = join(dir.path, 'inbox.jsonl')
    // Two Inbox objects on one file, as two `webhooks listen` processes would have: each its own counts.
    const a = new Inbox({maxRecords: 50, path})
    const b = new Inbox({maxRecords: 50, path})
    const ids: string[] = []
    for (let i = 0; i < 300; i++) {
      ids.push(`evt_${i}`)
      // Appends interleave: ten concurrent ones per round, alternating between the two writers.
      if (i % 10 === 9) await Promise.all(ids.splice(0).map((x) => (Number(x.slice(4)) % 2 === 0 ? a : b).append(record(x))))
    }
    const kept = (await a.listEvents()).map((r) => r.id)
    expect(kept.length).toBeLessThanOrEqual(50)
    // The newest 40 (what a compaction keeps, 80 % of the bound) are all there, from both writers.
    const newest = Array.from({length: 40}, (_, k) => `evt_${299 - k}`)
    expect(kept.slice(0, 40).sort()).toEqual(newest.sort())
    expect(
      readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .every((line) => JSON.parse(line).id),
    ).toBe(true)
  })
})

describe('recordAnswer: what an inbox record keeps of a receiver’s answer', () => {
  it('keeps a short body whole, the headers in lower case with repeats joined', () => {
    const kept = recordAnswer({
      body: Buffer.from('oops'),
      headers: [
        ['X-A', '1'],
        ['x-a', '2'],
        ['Content-Type', 'text/plain'],
      ],
      status: 500,
    })
    expect(kept).toEqual({
      body: 'oops',
      body_bytes: 4,
      body_encoding: 'utf8',
      body_truncated: false,
      headers: {'content-type': 'text/plain', 'x-a': '1, 2'},
      status: 500,
    })
  })
  it('cuts a long UTF-8 body to 64 KiB at a character boundary, and says so', () => {
    const body = Buffer.from(`${'a'.repeat(ANSWER_BODY_BYTES - 1)}é and more`)
    const kept = recordAnswer({body, headers: [], status: 200})
    expect(kept.body_encoding).toBe('utf8')
    expect(kept.body).toBe('a'.repeat(ANSWER_BODY_BYTES - 1))
    expect(kept).toMatchObject({body_bytes: body.length, body_truncated: true})
  })
  it('keeps bytes that are not UTF-8 as base64', () => {
    const body = Buffer.from([0xff, 0xfe, 0x00, 0x41])
    const kept = recordAnswer({body, headers: [], status: 502})
    expect(kept).toMatchObject({body: body.toString('base64'), body_encoding: 'base64', body_truncated: false})
  })
  it('failed: an error, or an answer other than 2xx; received when nothing was forwarded', () => {
    expect(outcomeOf({forward_status: 200})).toBe('ok')
    expect(outcomeOf({forward_status: 302})).toBe('failed')
    expect(outcomeOf({forward_status: 500})).toBe('failed')
    expect(outcomeOf({forward_error: 'connection refused', forward_status: null})).toBe('failed')
    expect(outcomeOf({forward_status: null})).toBe('received')
  })
})
