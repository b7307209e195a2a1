/**
 * A flood: 5,000 signed deliveries from 200 concurrent senders to a real `webhooks listen`
 * process whose receiver answers slowly (20 ms). Every delivery is either forwarded exactly once (counted at the
 * receiver by id) or answered 503 with Retry-After (counted at the senders): none is lost silently, none is
 * forwarded twice, and the listener's peak RSS (VmHWM of its process) stays under 200 MB. Bounded in count; it
 * stops by itself.
 */
import {readFileSync} from 'node:fs'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {SIGNATURE_HEADER, signPayload} from '../../src/domain/signature.js'
import {killAll, type Receiver, type Session, spawnCli, startReceiver, startSession} from '../helpers/webhooks-setup.js'

const DELIVERIES = 5000
const SENDERS = 200

let session: Session
let receiver: Receiver

beforeAll(async () => {
  session = await startSession()
  receiver = await startReceiver()
  receiver.respond = (_req, res) => void setTimeout(() => res.writeHead(200).end('ok'), 20)
})
afterAll(async () => {
  await killAll()
  await receiver?.close()
  await session?.close()
})

/** Peak resident set of a process, in MB (Linux). */
const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024

describe('a flood of deliveries', () => {
  it(`${DELIVERIES} deliveries at concurrency ${SENDERS}: each forwarded once or answered 503, RSS under 200 MB`, async () => {
    const listen = spawnCli(['webhooks', 'listen', '--json', '--forward-to', receiver.url], session.env)
    const ready = await listen.json(0)
    const secret = session.secrets()[ready.endpoint_id]
    const answered = new Map<number, number>()
    let retryAfterMissing = 0
    let next = 0
    const sender = async () => {
      while (next < DELIVERIES) {
        const n = next++
        const body = JSON.stringify({
          created_at: new Date().toISOString(),
          data: {id: n, padding: 'x'.repeat(2000)},
          id: `evt_flood_${n}`,
          type: 'order.paid',
        })
        const res = await fetch(ready.local_url, {
          body,
          headers: {'content-type': 'application/json', [SIGNATURE_HEADER]: signPayload(secret, body, Math.floor(Date.now() / 1000))},
          method: 'POST',
        })
        await res.arrayBuffer()
        answered.set(res.status, (answered.get(res.status) ?? 0) + 1)
        if (res.status === 503 && !res.headers.get('retry-after')) retryAfterMissing++
      }
    }
    await Promise.all(Array.from({length: SENDERS}, sender))
    const rss = peakRssMb(listen.child.pid!)
    listen.child.kill('SIGTERM')
    expect((await listen.exited).code).toBe(0)

    const forwarded = new Map<string, number>()
    for (const r of receiver.received) {
      const {id} = JSON.parse(r.body.toString('utf8'))
      forwarded.set(id, (forwarded.get(id) ?? 0) + 1)
    }
    const ok = answered.get(200) ?? 0
    const busy = answered.get(503) ?? 0
    console.log(`flood: ${ok} forwarded, ${busy} answered 503, peak RSS ${rss.toFixed(1)} MB`)
    expect([...answered.keys()].sort()).toEqual(busy > 0 ? [200, 503] : [200])
    expect(ok + busy).toBe(DELIVERIES)
    expect(forwarded.size).toBe(ok)
    expect([...forwarded.values()].every((count) => count === 1)).toBe(true)
    expect(retryAfterMissing).toBe(0)
    expect(busy).toBeGreaterThan(0) // 200 senders against 8 forwards and a queue of 100: some must be turned away
    expect(rss).toBeLessThan(200)
    // Said once a second in a sum, not one line per refused delivery.
    const busyLines = listen
      .stderr()
      .split('\n')
      .filter((l) => /answered 503 to [\d,]+ deliver/.test(l))
    expect(busyLines.length).toBeGreaterThan(0)
    expect(busyLines.length).toBeLessThan(30)
    const said = busyLines.reduce((sum, l) => sum + Number(/answered 503 to ([\d,]+)/.exec(l)![1].replaceAll(',', '')), 0)
    expect(said).toBe(busy)
  }, 120_000)
})
