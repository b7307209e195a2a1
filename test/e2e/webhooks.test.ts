/**
 * The webhooks commands other than `listen`, as processes: create/list and the stored secret, sign/verify,
 * the inbox (events, replay) and trigger.
 */
import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {writeSandboxState} from '../../src/config/sandbox-state-write.js'
import {computeSignature, signPayload, verifySignature} from '../../src/domain/signature.js'
import {Inbox, type InboxRecord} from '../../src/webhooks/inbox.js'
import {run, tempConfigDir} from '../helpers/cli.js'
import {startInTmux} from '../helpers/tmux.js'
import {deadPort, type Receiver, type Session, startReceiver, startSession} from '../helpers/webhooks-setup.js'

const MASK = '********'

describe('webhooks create and list', () => {
  let session: Session
  beforeAll(async () => {
    session = await startSession()
  })
  afterAll(() => session.close())

  it('prints the signing secret once, stores it in the profile, and config list shows it masked', async () => {
    const r = await session.cli(['webhooks', 'create', '--url', 'https://hooks.example.com/a', '--event', 'order.paid'])
    expect(r.code, r.stderr).toBe(0)
    const fields = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('\t')),
    )
    expect(fields).toMatchObject({events: '["order.paid"]', id: expect.stringMatching(/^we_/), url: 'https://hooks.example.com/a'})
    const secret = fields.signing_secret
    expect(secret).toMatch(/^whsec_/)
    expect(r.stdout.split(secret)).toHaveLength(2)
    expect(r.stderr).toContain(`commerce webhooks secret ${fields.id} --reveal\` prints it again`)
    expect(session.secrets()[fields.id]).toBe(secret)
    // The sandbox delivers from this machine: a host off it is said, with the way to a receiver here.
    expect(r.stderr).toContain('The local sandbox delivers from this machine, and hooks.example.com may not be reachable from it')
    const local = await session.cli(['webhooks', 'create', '--url', 'http://127.0.0.1:9/hooks', '--event', 'order.paid'])
    expect(local.stderr).not.toContain('may not be reachable')

    for (const args of [
      ['config', 'list'],
      ['config', 'list', '--json'],
      ['webhooks', 'list'],
      ['webhooks', 'list', '--json'],
    ]) {
      const out = await session.cli(args)
      expect(out.code, out.stderr).toBe(0)
      expect(out.stdout + out.stderr, args.join(' ')).not.toContain(secret)
    }
    expect((await session.cli(['config', 'list', '--json'])).json().webhook_secrets).toMatchObject({[fields.id]: MASK})

    // webhooks secret: masked by default, the secret itself with --reveal; exit 4 for an endpoint it does not hold.
    const masked = await session.cli(['webhooks', 'secret', fields.id])
    expect(masked.code, masked.stderr).toBe(0)
    expect(masked.stdout).toBe(`${MASK}\n`)
    expect(masked.stderr).toContain('--reveal prints the secret itself')
    expect(masked.stdout + masked.stderr).not.toContain(secret)
    const revealed = await session.cli(['webhooks', 'secret', fields.id, '--reveal', '--json'])
    expect(revealed.json()).toEqual({id: fields.id, profile: 'default', signing_secret: secret})
    const none = await session.cli(['webhooks', 'secret', 'we_nope'])
    expect(none.code).toBe(4)
    expect(none.stderr).toContain('Profile "default" holds no signing secret for webhook endpoint we_nope.')
  })

  it('accepts any non-empty event name (a real service names more than order.paid); an empty list is exit 2', async () => {
    const r = await session.cli(['webhooks', 'create', '--url', 'https://hooks.example.com/c', '--event', 'order.refunded,order.paid', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().events).toEqual(['order.refunded', 'order.paid'])
    const empty = await session.cli(['webhooks', 'create', '--url', 'https://hooks.example.com/c', '--event', ' , '])
    expect(empty.code).toBe(2)
    // One flag name on create and listen (--event), the plural accepted as its alias on both.
    const plural = await session.cli(['webhooks', 'create', '--url', 'https://hooks.example.com/d', '--events', 'order.paid', '--json'])
    expect(plural.code, plural.stderr).toBe(0)
    expect(plural.json().events).toEqual(['order.paid'])
  })

  it('--json prints the endpoint as returned (signing_secret included); list shows which secrets the profile holds', async () => {
    const r = await session.cli(['webhooks', 'create', '--url', 'https://hooks.example.com/b', '--event', 'order.paid', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const endpoint = r.json()
    expect(endpoint).toMatchObject({
      events: ['order.paid'],
      id: expect.stringMatching(/^we_/),
      signing_secret: expect.stringMatching(/^whsec_/),
      url: 'https://hooks.example.com/b',
    })
    expect(session.secrets()[endpoint.id]).toBe(endpoint.signing_secret)

    const list = (await session.cli(['webhooks', 'list', '--json'])).json()
    expect(list).toContainEqual(expect.objectContaining({events: ['order.paid'], id: endpoint.id, url: endpoint.url}))
    const tsv = (await session.cli(['webhooks', 'list'])).stdout.trim().split('\n')
    expect(tsv[0]).toBe('id\turl\tevents\tsecret\tstate')
    // The last column (state) is empty: not a listen endpoint.
    expect(tsv.map((l) => l.replace(/\t$/, ''))).toContain(`${endpoint.id}\t${endpoint.url}\t["order.paid"]\tstored`)

    // Another profile (same service, same token) does not hold the secret.
    await session.cli(['config', 'set', 'api_version', 'v2', '--profile', 'other'])
    const other = await session.cli(['webhooks', 'list', '--profile', 'other'], {
      env: {COMMERCE_ACCESS_TOKEN: (await session.cli(['auth', 'token'])).stdout.trim(), COMMERCE_BASE_URL: session.sandbox.baseUrl},
    })
    expect(other.stdout).toContain(`${endpoint.id}\t${endpoint.url}\t["order.paid"]\t-`)
  })

  it('refuses bad input before any request (exit 2); loopback http only against the local sandbox', async () => {
    const before = session.sandbox.counts().webhooks
    const bad: Array<[string[], RegExp]> = [
      [['--url', 'http://hooks.example.com/x', '--event', 'order.paid'], /url \(--url\): must be an HTTPS URL/],
      [['--url', 'https://hooks.example.com/x', '--event', ' , '], /events \(--event\): must have at least 1 event/],
      [['--url', 'not a url', '--event', 'order.paid'], /is not a valid URL/],
      [['--url', 'https://hooks.example.com/x'], /--event is required\./],
      [['--url', 'http://127.0.0.1:9/x', '--event', 'order.paid', '--base-url', 'https://commerce.invalid'], /must be an HTTPS URL/],
    ]
    const results = await Promise.all(bad.map(([args]) => session.cli(['webhooks', 'create', ...args])))
    results.forEach((r, i) => {
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toMatch(bad[i][1])
    })
    expect(session.sandbox.counts().webhooks).toBe(before)

    const loopback = await session.cli(['webhooks', 'create', '--url', 'http://127.0.0.1:9/x', '--event', 'order.paid,order.paid', '--json'])
    expect(loopback.code, loopback.stderr).toBe(0)
    expect(loopback.json().events).toEqual(['order.paid'])

    // Any non-empty event name: a service may name more events than this CLI knows.
    const refunded = await session.cli(['webhooks', 'create', '--url', 'https://hooks.example.com/r', '--event', 'order.refunded', '--json'])
    expect(refunded.code, refunded.stderr).toBe(0)
    expect(refunded.json().events).toEqual(['order.refunded'])

    const json = await session.cli(['webhooks', 'create', '--url', 'ftp://x', '--event', 'order.paid', '--json'])
    expect(json.code).toBe(2)
    expect(json.json().error.errors.url[0]).toMatch(/HTTPS/)
  })

  it('needs a login (exit 3)', async () => {
    const tmp = tempConfigDir()
    try {
      const r = await run(['webhooks', 'list'], {env: {COMMERCE_BASE_URL: session.sandbox.baseUrl, COMMERCE_CONFIG_DIR: tmp.dir}})
      expect(r.code).toBe(3)
    } finally {
      tmp.cleanup()
    }
  })
})

describe('webhooks sign and verify', () => {
  const SECRET = 'whsec_test_sign_verify'
  let tmp: ReturnType<typeof tempConfigDir>
  let file: string
  const PAYLOAD = '{"id":"evt_1","type":"order.paid","created_at":"2030-01-01T00:00:00Z","data":{"id":1}}'
  beforeAll(() => {
    tmp = tempConfigDir()
    file = join(tmp.dir, 'payload.json')
    writeFileSync(file, PAYLOAD)
  })
  afterAll(() => tmp.cleanup())
  const cli = (args: string[], input?: string) => run(['webhooks', ...args], {env: {COMMERCE_CONFIG_DIR: tmp.dir}, input})
  const now = () => Math.floor(Date.now() / 1000)

  it('sign prints only the header value, from a file or standard input; verify accepts it', async () => {
    const t = 1_900_000_000
    const [fromFile, fromStdin, fromDash, json] = await Promise.all([
      cli(['sign', '--secret', SECRET, '--payload-file', file, '--timestamp', String(t)]),
      cli(['sign', '--secret', SECRET, '--timestamp', String(t)], PAYLOAD),
      cli(['sign', '--secret', SECRET, '--payload-file', '-', '--timestamp', String(t)], PAYLOAD),
      cli(['sign', '--secret', SECRET, '--payload-file', file, '--timestamp', String(t), '--json']),
    ])
    const expected = `t=${t},v1=${computeSignature(SECRET, t, PAYLOAD)}`
    expect(fromFile).toMatchObject({code: 0, stderr: '', stdout: `${expected}\n`})
    expect(fromStdin.stdout).toBe(`${expected}\n`)
    expect(fromDash.stdout).toBe(`${expected}\n`)
    expect(json.json()).toEqual({signature: expected})

    // Without --timestamp: now, and the round trip verifies.
    const header = (await cli(['sign', '--secret', SECRET, '--payload-file', file])).stdout.trim()
    expect(Number(/^t=(\d+),/.exec(header)![1])).toBeGreaterThanOrEqual(now() - 5)
    const [ok, okStdin, okJson] = await Promise.all([
      cli(['verify', '--secret', SECRET, '--signature', header, '--payload-file', file]),
      cli(['verify', '--secret', SECRET, '--signature', header], PAYLOAD),
      cli(['verify', '--secret', SECRET, '--signature', header, '--payload-file', file, '--json']),
    ])
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stdout).toMatch(/valid/)
    expect(okStdin.code).toBe(0)
    expect(okJson.code).toBe(0)
    expect(okJson.json()).toEqual({reason: null, valid: true})
  })

  it('verify: one matching v1= entry among several is enough', async () => {
    const t = now()
    const mine = computeSignature(SECRET, t, PAYLOAD)
    const others = [computeSignature('whsec_rotated_out', t, PAYLOAD), 'f'.repeat(64)]
    const results = await Promise.all([
      cli(['verify', '--secret', SECRET, '--signature', `t=${t},v1=${others[0]},v1=${mine}`, '--payload-file', file]),
      cli(['verify', '--secret', SECRET, '--signature', `t=${t},v1=${mine},v1=${others[1]},v0=zzz`, '--payload-file', file]),
      cli(['verify', '--secret', SECRET, '--signature', `t=${t},v1=${others[0]},v1=${others[1]}`, '--payload-file', file, '--json']),
    ])
    expect(results.map((r) => r.code)).toEqual([0, 0, 1])
    expect(results[2].json()).toEqual({reason: 'mismatch', valid: false})
  })

  it('verify: exit 1 with the reason for a changed payload, a wrong secret, a malformed or empty header', async () => {
    const header = signPayload(SECRET, PAYLOAD)
    const cases: Array<[string[], string | undefined, string]> = [
      [['--secret', SECRET, '--signature', header], `${PAYLOAD}\n`, 'mismatch'],
      [['--secret', 'whsec_other', '--signature', header, '--payload-file', file], undefined, 'mismatch'],
      [['--secret', SECRET, '--signature', 'v1=deadbeef', '--payload-file', file], undefined, 'malformed'],
      [['--secret', SECRET, '--signature', 't=abc,v1=00', '--payload-file', file], undefined, 'malformed'],
      [['--secret', SECRET, '--signature', '', '--payload-file', file], undefined, 'missing'],
    ]
    const results = await Promise.all(cases.map(([args, input]) => cli(['verify', ...args, '--json'], input)))
    results.forEach((r, i) => {
      expect(r.code, r.stderr).toBe(1)
      expect(r.json()).toEqual({reason: cases[i][2], valid: false})
    })
    const human = await cli(['verify', '--secret', SECRET, '--signature', 'v1=deadbeef', '--payload-file', file])
    expect(human.code).toBe(1)
    expect(human.stdout).toBe('')
    expect(human.stderr).toMatch(/not valid: malformed X-Service-Signature header/)
    expect(human.stderr).not.toContain(SECRET)
  })

  it('verify: the tolerance applies both ways and --tolerance widens it', async () => {
    const stale = signPayload(SECRET, PAYLOAD, now() - 400)
    const future = signPayload(SECRET, PAYLOAD, now() + 400)
    const results = await Promise.all([
      cli(['verify', '--secret', SECRET, '--signature', stale, '--payload-file', file, '--json']),
      cli(['verify', '--secret', SECRET, '--signature', future, '--payload-file', file, '--json']),
      cli(['verify', '--secret', SECRET, '--signature', stale, '--payload-file', file, '--tolerance', '500', '--json']),
      cli(['verify', '--secret', SECRET, '--signature', future, '--payload-file', file, '--tolerance', '500']),
      cli([
        'verify',
        '--secret',
        SECRET,
        '--signature',
        signPayload(SECRET, PAYLOAD, now() - 30),
        '--payload-file',
        file,
        '--tolerance',
        '10',
        '--json',
      ]),
    ])
    expect(results.map((r) => r.code)).toEqual([1, 1, 0, 0, 1])
    expect(results[0].json()).toEqual({reason: 'too_old', valid: false})
    expect(results[1].json()).toEqual({reason: 'too_new', valid: false})
    expect(results[2].json()).toEqual({reason: null, valid: true})
    expect(results[4].json().reason).toBe('too_old')
  })

  it('the secret from --secret-file, --secret-stdin or COMMERCE_WEBHOOK_SECRET, never needing the command line', async () => {
    const t = 1_900_000_000
    const expected = `t=${t},v1=${computeSignature(SECRET, t, PAYLOAD)}`
    const secretFile = join(tmp.dir, 'secret.txt')
    writeFileSync(secretFile, `${SECRET}\n`)
    const [fromFile, fromStdin, fromEnv, verified] = await Promise.all([
      cli(['sign', '--secret-file', secretFile, '--payload-file', file, '--timestamp', String(t)]),
      cli(['sign', '--secret-stdin', '--payload-file', file, '--timestamp', String(t)], `${SECRET}\n`),
      run(['webhooks', 'sign', '--payload-file', file, '--timestamp', String(t)], {
        env: {COMMERCE_CONFIG_DIR: tmp.dir, COMMERCE_WEBHOOK_SECRET: SECRET},
      }),
      run(['webhooks', 'verify', '--signature', signPayload(SECRET, PAYLOAD), '--json'], {
        env: {COMMERCE_CONFIG_DIR: tmp.dir, COMMERCE_WEBHOOK_SECRET: SECRET},
        input: PAYLOAD,
      }),
    ])
    for (const r of [fromFile, fromStdin, fromEnv]) expect(r, r.stderr).toMatchObject({code: 0, stdout: `${expected}\n`})
    expect(verified.json()).toEqual({reason: null, valid: true})
    const [none, two, stdinTwice, emptyFile] = await Promise.all([
      cli(['sign', '--payload-file', file]),
      cli(['sign', '--secret', SECRET, '--secret-file', secretFile, '--payload-file', file]),
      cli(['sign', '--secret-stdin'], SECRET),
      (async () => {
        const empty = join(tmp.dir, 'empty.txt')
        writeFileSync(empty, '\n')
        return cli(['sign', '--secret-file', empty, '--payload-file', file])
      })(),
    ])
    expect([none.code, two.code, stdinTwice.code, emptyFile.code]).toEqual([2, 2, 2, 2])
    expect(none.stderr).toMatch(/--secret-file/)
    expect(two.stderr).not.toContain(SECRET)
    // A flag wins over the variable, as the README says.
    const flagOverEnv = await run(['webhooks', 'sign', '--secret-file', secretFile, '--payload-file', file, '--timestamp', String(t)], {
      env: {COMMERCE_CONFIG_DIR: tmp.dir, COMMERCE_WEBHOOK_SECRET: 'whsec_not_this_one'},
    })
    expect(flagOverEnv).toMatchObject({code: 0, stdout: `${expected}\n`})
  })

  it('sign --timestamp: a non-negative integer of at most 10 digits, else exit 2', async () => {
    const results = await Promise.all(
      ['99999999999999999999999', '-1', '1.5', '1e9', '12345678901', '9999999999', '0'].map((t) =>
        cli(['sign', '--secret', SECRET, '--timestamp', t], PAYLOAD),
      ),
    )
    expect(results.map((r) => r.code)).toEqual([2, 2, 2, 2, 2, 0, 0])
    expect(results[0].stdout).toBe('')
    expect(results[5].stdout).toMatch(/^t=9999999999,v1=/)
  })

  it('usage errors are exit 2', async () => {
    const results = await Promise.all([
      cli(['verify', '--signature', 't=1,v1=00', '--payload-file', file]),
      cli(['verify', '--secret', SECRET, '--payload-file', file]),
      cli(['verify', '--secret', SECRET, '--signature', 't=1', '--payload-file', join(tmp.dir, 'nope.json')]),
      cli(['sign', '--secret', SECRET, '--timestamp', 'soon'], PAYLOAD),
      cli(['verify', '--secret', SECRET, '--signature', 't=1', '--tolerance', '-1'], PAYLOAD),
      cli(['sign', '--secret', SECRET, '--timestamp', '99999999999999999999999'], PAYLOAD),
      cli(['sign', '--secret', SECRET, '--timestamp', '12345678901'], PAYLOAD),
      cli(['sign', '--secret', SECRET, '--timestamp', '1.5'], PAYLOAD),
      cli(['sign', '--secret', SECRET, '--timestamp', '-1'], PAYLOAD),
      cli(['sign', '--secret', SECRET, '--timestamp', '1e9'], PAYLOAD),
    ])
    expect(results.map((r) => r.code)).toEqual([2, 2, 2, 2, 2, 2, 2, 2, 2, 2])
    expect(results[2].stderr).toContain(`--payload-file: ${join(tmp.dir, 'nope.json')} does not exist.`)
    expect(results[2].stderr).not.toContain('ENOENT')
    for (const r of results.slice(5)) expect(r.stdout).toBe('')
    expect(results[5].stderr).toMatch(/--timestamp.*at most 10 digits/)
    const max = await cli(['sign', '--secret', SECRET, '--timestamp', '9999999999'], PAYLOAD)
    expect(max.code, max.stderr).toBe(0)
    expect(max.stdout).toMatch(/^t=9999999999,v1=[0-9a-f]{64}\n$/)
  })
})

describe('webhooks events and replay', () => {
  let tmp: ReturnType<typeof tempConfigDir>
  let receiver: Receiver
  const SECRET = 'whsec_replay'
  const TEXT = '{"id":"evt_text","type":"order.paid","created_at":"2030-01-01T00:00:00Z","data":{"id":7,"note":"é\\u0000"}}'
  // Not UTF-8: kept as base64 in the inbox, and must come back byte for byte.
  const BINARY = Buffer.concat([
    Buffer.from('{"id":"evt_bin","type":"order.paid","data":"'),
    Buffer.from([0xff, 0xfe, 0x00, 0x80]),
    Buffer.from('"}'),
  ])
  const record = (id: string, raw: Buffer, receivedAt: string): InboxRecord => ({
    created_at: '2030-01-01T00:00:00Z',
    duration_ms: 3,
    forward_status: 200,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'commerce-sandbox/1',
      'x-service-event-id': id,
      'x-service-signature': signPayload(SECRET, raw, 1_000_000_000),
    },
    id,
    received_at: receivedAt,
    type: 'order.paid',
    ...(raw.toString('utf8') === TEXT
      ? {body: TEXT, body_encoding: 'utf8' as const}
      : {body: raw.toString('base64'), body_encoding: 'base64' as const}),
  })
  const cli = (args: string[]) => run(['webhooks', ...args], {env: {COMMERCE_CONFIG_DIR: tmp.dir}})

  beforeAll(async () => {
    tmp = tempConfigDir()
    const inbox = new Inbox({path: join(tmp.dir, 'webhook-inbox.jsonl')})
    await inbox.append(record('evt_text', Buffer.from(TEXT), '2030-01-01T00:00:01.000Z'))
    await inbox.append(record('evt_bin', BINARY, '2030-01-01T00:00:02.000Z'))
  })
  afterAll(() => tmp.cleanup())
  afterEach(async () => receiver?.close())

  it('events lists the inbox newest first: TSV without bodies, --json whole records, --limit', async () => {
    const [tsv, json, limited] = await Promise.all([cli(['events']), cli(['events', '--json']), cli(['events', '--limit', '1', '--json'])])
    expect(tsv.code, tsv.stderr).toBe(0)
    const rows = tsv.stdout.trim().split('\n')
    expect(rows[0]).toBe('received_at\tid\ttype\tforward_status\tduration_ms\tforward_error')
    expect(rows.slice(1).map((row) => row.split('\t')[1])).toEqual(['evt_bin', 'evt_text'])
    expect(tsv.stdout).not.toContain('created_at')
    expect(tsv.stdout).not.toContain('"data"')
    const records = json.json()
    expect(records.map((r: InboxRecord) => r.id)).toEqual(['evt_bin', 'evt_text'])
    expect(records[1]).toMatchObject({body: TEXT, forward_status: 200, received_at: '2030-01-01T00:00:01.000Z', type: 'order.paid'})
    expect(limited.json().map((r: InboxRecord) => r.id)).toEqual(['evt_bin'])
    expect((await cli(['events', '--limit', '0'])).code).toBe(2)
  })

  it('events on a terminal shows the newest 30 and says how to see more; a pipe shows them all', async () => {
    const many = tempConfigDir()
    try {
      const inbox = new Inbox({path: join(many.dir, 'webhook-inbox.jsonl')})
      for (let i = 0; i < 35; i++)
        await inbox.append(record(`evt_${String(i).padStart(2, '0')}`, Buffer.from(TEXT), `2030-01-01T00:00:${String(i).padStart(2, '0')}.000Z`))
      const term = await startInTmux(['webhooks', 'events'], {env: {COMMERCE_CONFIG_DIR: many.dir}, height: 60})
      expect(await term.waitForExit()).toBe(0)
      const screen = await term.capture()
      expect(screen).toContain('evt_34')
      expect(screen).toContain('evt_05')
      expect(screen).not.toContain('evt_04')
      expect(screen).toContain('The newest 30 of 35; `--limit 35` shows them all')
      await term.kill()
      const pipe = await run(['webhooks', 'events'], {env: {COMMERCE_CONFIG_DIR: many.dir}})
      expect(pipe.stdout.trim().split('\n')).toHaveLength(36)
    } finally {
      many.cleanup()
    }
  })

  it('events on an empty inbox prints an empty list', async () => {
    const empty = tempConfigDir()
    try {
      const r = await run(['webhooks', 'events', '--json'], {env: {COMMERCE_CONFIG_DIR: empty.dir}})
      expect(r.code).toBe(0)
      expect(r.json()).toEqual([])
    } finally {
      empty.cleanup()
    }
  })

  it('replay sends the raw body byte for byte with the recorded headers', async () => {
    receiver = await startReceiver()
    for (const [id, raw] of [
      ['evt_text', Buffer.from(TEXT)],
      ['evt_bin', BINARY],
    ] as const) {
      const r = await cli(['replay', id, '--forward-to', receiver.url, '--json'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.json()).toMatchObject({forward_to: receiver.url, id, resigned: false, status: 200})
      const got = receiver.received.at(-1)!
      expect(got.body.equals(raw)).toBe(true)
      expect(got.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'commerce-sandbox/1',
        'x-service-event-id': id,
        'x-service-signature': signPayload(SECRET, raw, 1_000_000_000),
      })
    }
    const human = await cli(['replay', 'evt_text', '--forward-to', receiver.url])
    expect(human.stdout).toMatch(/Replayed evt_text \(order\.paid\) to .* -> 200 \(\d+ ms\)/)
  })

  it('replay --secret sends a fresh signature that verifies now', async () => {
    receiver = await startReceiver()
    const r = await cli(['replay', 'evt_bin', '--forward-to', receiver.url, '--secret', SECRET])
    expect(r.code, r.stderr).toBe(0)
    const got = receiver.received[0]
    const header = got.headers['x-service-signature'] as string
    expect(header).not.toBe(signPayload(SECRET, BINARY, 1_000_000_000))
    expect(verifySignature(SECRET, header, got.body).valid).toBe(true)
    expect(r.stdout + r.stderr).not.toContain(SECRET)
  })

  it('replay without a secret signs afresh with the secret the profile stores for the endpoint; without one, warns', async () => {
    receiver = await startReceiver()
    const before = await cli(['replay', 'evt_text', '--forward-to', receiver.url])
    expect(before.code, before.stderr).toBe(0)
    expect(before.stderr).toMatch(/No signing secret stored.*recorded signature/)
    expect(receiver.received[0].headers['x-service-signature']).toBe(signPayload(SECRET, Buffer.from(TEXT), 1_000_000_000))

    writeFileSync(
      join(tmp.dir, 'config.json'),
      JSON.stringify({current_profile: 'default', profiles: {default: {webhook_secrets: {we_other: 'whsec_other', we_1: SECRET}}}}),
    )
    try {
      const r = await cli(['replay', 'evt_text', '--forward-to', receiver.url, '--json'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.json()).toMatchObject({resigned: true})
      expect(r.stderr).not.toMatch(/No signing secret/)
      const got = receiver.received[1]
      expect(verifySignature(SECRET, got.headers['x-service-signature'] as string, got.body).valid).toBe(true)
      expect(r.stdout + r.stderr).not.toContain(SECRET)
    } finally {
      rmSync(join(tmp.dir, 'config.json'), {force: true})
    }
  })

  it('replay: exit 4 for an unknown id, exit 1 when the receiver is down or answers an error', async () => {
    receiver = await startReceiver()
    receiver.respond = (_req, res) => void res.writeHead(500).end('boom')
    const [unknown, down, failing, failingJson] = await Promise.all([
      cli(['replay', 'evt_nope', '--forward-to', receiver.url]),
      deadPort().then((port) => cli(['replay', 'evt_text', '--forward-to', `http://127.0.0.1:${port}/`])),
      cli(['replay', 'evt_text', '--forward-to', receiver.url]),
      cli(['replay', 'evt_text', '--forward-to', receiver.url, '--json']),
    ])
    expect(unknown.code).toBe(4)
    expect(unknown.stderr).toContain('evt_nope')
    expect(down.code).toBe(1)
    expect(down.stderr).toMatch(/connection refused/)
    expect(failing.code).toBe(1)
    expect(failing.stderr).toMatch(/answered 500/)
    expect(failingJson.code).toBe(1)
    expect(failingJson.json().error).toMatchObject({status: 500})
    expect((await cli(['replay', 'evt_text', '--forward-to', 'nope'])).code).toBe(2)
  })
})

describe('webhooks trigger', () => {
  let session: Session
  beforeAll(async () => {
    session = await startSession()
  })
  afterAll(() => session.close())

  it('order.paid: pays a new order, or the one given, and the sandbox delivers it to subscribed endpoints', async () => {
    const receiver = await startReceiver()
    try {
      const created = await session.cli(['webhooks', 'create', '--url', receiver.url, '--event', 'order.paid', '--json'])
      const secret = created.json().signing_secret

      const r = await session.cli(['webhooks', 'trigger', 'order.paid', '--json'])
      expect(r.code, r.stderr).toBe(0)
      const answer = r.json()
      expect(answer).toMatchObject({endpoints: 1, event_id: expect.stringMatching(/^evt_/), order: {status: 'paid'}})
      await session.sandbox.deliveriesSettled()
      const got = receiver.received.at(-1)!
      expect(JSON.parse(got.body.toString())).toMatchObject({id: answer.event_id, type: 'order.paid', data: {id: answer.order.id}})
      expect(verifySignature(secret, got.headers['x-service-signature'] as string, got.body).valid).toBe(true)

      // --order: that pending order becomes paid; a paid one cannot be paid again (409 -> exit 2); unknown -> 4.
      const customer = (await session.cli(['customers', 'create', '--email', 'trigger@example.com', '--name', 'T', '--json'])).json()
      const product = (await session.cli(['products', 'list', '--json'])).json()[0]
      const order = await session.cli([
        'orders',
        'create',
        '--customer',
        String(customer.id),
        '--currency',
        product.currency,
        '--item',
        String(product.id),
        '--json',
      ])
      expect(order.code, order.stderr).toBe(0)
      const orderId = order.json().id
      const human = await session.cli(['webhooks', 'trigger', 'order.paid', '--order', String(orderId)])
      expect(human.code, human.stderr).toBe(0)
      expect(human.stdout).toMatch(new RegExp(`order ${orderId} is paid; event evt_\\w+ is being delivered to 1 endpoint`))
      expect((await session.cli(['orders', 'get', String(orderId), '--json'])).json().status).toBe('paid')

      const again = await session.cli(['webhooks', 'trigger', 'order.paid', '--order', String(orderId)])
      expect(again.code).toBe(2)
      expect(again.stderr).toMatch(/is paid; only a pending order can be paid/)
      expect((await session.cli(['webhooks', 'trigger', 'order.paid', '--order', '999999'])).code).toBe(4)
    } finally {
      await receiver.close()
    }
  })

  it('is exit 2 for an unknown event, and elsewhere than the local sandbox', async () => {
    const [unknown, elsewhere, badOrder] = await Promise.all([
      session.cli(['webhooks', 'trigger', 'order.nope']),
      session.cli(['webhooks', 'trigger', 'order.paid', '--base-url', 'https://commerce.example.com']),
      session.cli(['webhooks', 'trigger', 'order.paid', '--order', 'abc']),
    ])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/must be one of .*order\.paid/)
    expect(elsewhere.code).toBe(2)
    expect(elsewhere.stderr).toMatch(/only against the local sandbox/)
    expect(badOrder.code).toBe(2)
  })

  it('is exit 2 saying how to start one when no sandbox runs (a state file of a dead process included)', async () => {
    const tmp = tempConfigDir()
    try {
      const none = await run(['webhooks', 'trigger', 'order.paid', '--json'], {env: {COMMERCE_CONFIG_DIR: tmp.dir}})
      expect(none.code).toBe(2)
      expect(none.json().error.message).toMatch(/No local sandbox is running/)
      writeSandboxState({base_url: session.sandbox.baseUrl, keys: [], pid: 2 ** 22 + 1}, {COMMERCE_CONFIG_DIR: tmp.dir})
      const dead = await run(['webhooks', 'trigger', 'order.paid'], {env: {COMMERCE_CONFIG_DIR: tmp.dir}})
      expect(dead.code).toBe(2)
      expect(dead.stderr).toContain('commerce sandbox start')
    } finally {
      tmp.cleanup()
    }
  })
})
