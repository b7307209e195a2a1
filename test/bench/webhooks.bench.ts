/**
 * How much `webhooks listen` (verify + forward + inbox) costs a delivery. One run, one process: a receiver on
 * 127.0.0.1:0 and a listener forwarding to it; N signed deliveries at concurrency C go straight to the
 * receiver, then the same number through the listener. Prints deliveries per second through the listener and
 * the latency ratio of the two paths.
 *
 *   node --import tsx test/bench/webhooks.bench.ts [deliveries] [concurrency]
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {Agent, createServer, request} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {signPayload} from '../../src/domain/signature.js'
import {Inbox} from '../../src/webhooks/inbox.js'
import {startListener} from '../../src/webhooks/listener.js'

export interface PathResult {
  deliveries: number
  seconds: number
  perSecond: number
  p50Ms: number
  p99Ms: number
  meanMs: number
}

export interface WebhooksBenchResult {
  direct: PathResult
  listener: PathResult
  /** Listener path over direct path, at the median and on average. */
  ratioP50: number
  ratioMean: number
}

const SECRET = 'whsec_bench'

export async function run(options: {deliveries?: number; concurrency?: number; out?: NodeJS.WritableStream} = {}): Promise<WebhooksBenchResult> {
  const deliveries = Math.min(options.deliveries ?? 2000, 20_000)
  const concurrency = Math.min(options.concurrency ?? 20, 200)
  const out = options.out ?? process.stdout
  const dir = mkdtempSync(join(tmpdir(), 'commerce-bench-webhooks-'))

  const receiver = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200, {'content-type': 'text/plain'}).end('ok'))
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
  const listener = await startListener({forwardTo: receiverUrl, inbox: new Inbox({path: join(dir, 'inbox.jsonl')}), secrets: SECRET})
  const agent = new Agent({keepAlive: true, maxSockets: concurrency})

  try {
    const bodies = Array.from({length: deliveries}, (_, i) => makeBody(i))
    const post = (url: string, body: string) =>
      new Promise<void>((resolve, reject) => {
        const headers = {'content-type': 'application/json', 'x-service-signature': signPayload(SECRET, body)}
        const req = request(url, {agent, headers, method: 'POST'}, (res) => {
          res.resume()
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))))
        })
        req.on('error', reject)
        req.end(body)
      })
    const drive = async (url: string, count: number): Promise<PathResult> => {
      const latencies: number[] = []
      let next = 0
      const started = performance.now()
      await Promise.all(
        Array.from({length: concurrency}, async () => {
          while (next < count) {
            const body = bodies[next++ % bodies.length]
            const t0 = performance.now()
            await post(url, body)
            latencies.push(performance.now() - t0)
          }
        }),
      )
      const seconds = (performance.now() - started) / 1000
      latencies.sort((a, b) => a - b)
      const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]
      return {
        deliveries: count,
        meanMs: latencies.reduce((a, b) => a + b, 0) / latencies.length,
        p50Ms: at(0.5),
        p99Ms: at(0.99),
        perSecond: count / seconds,
        seconds,
      }
    }

    // Warm both paths (JIT, connection pools, undici's parser) before measuring.
    const warmup = Math.min(200, deliveries)
    await drive(receiverUrl, warmup)
    await drive(listener.localUrl, warmup)
    const direct = await drive(receiverUrl, deliveries)
    const through = await drive(listener.localUrl, deliveries)
    const result = {direct, listener: through, ratioMean: through.meanMs / direct.meanMs, ratioP50: through.p50Ms / direct.p50Ms}

    const line = (name: string, r: PathResult) =>
      `${name.padEnd(16)} ${r.perSecond.toFixed(0).padStart(7)} deliveries/s   p50 ${r.p50Ms.toFixed(2)} ms   p99 ${r.p99Ms.toFixed(2)} ms   mean ${r.meanMs.toFixed(2)} ms`
    out.write(`webhooks listen: ${deliveries} signed deliveries, concurrency ${concurrency}\n`)
    out.write(`${line('direct', direct)}\n`)
    out.write(`${line('through listener', through)}\n`)
    out.write(
      `through the listener: ${through.perSecond.toFixed(0)} deliveries/s; latency ratio listener/direct: ` +
        `${result.ratioP50.toFixed(2)}x at p50, ${result.ratioMean.toFixed(2)}x mean\n`,
    )
    return result
  } finally {
    agent.destroy()
    await listener.close()
    await new Promise<void>((resolve) => {
      receiver.closeAllConnections()
      receiver.close(() => resolve())
    })
    rmSync(dir, {force: true, recursive: true})
  }
}

/** An order.paid delivery of about 1 KB, like the service's. */
function makeBody(i: number): string {
  const items = Array.from({length: 5}, (_, n) => ({product_id: 100 + n, quantity: n + 1, unit_price: 1299}))
  return JSON.stringify({
    created_at: new Date().toISOString(),
    data: {
      currency: 'EUR',
      customer_id: 7,
      id: 1000 + i,
      items,
      metadata: {note: 'bench'},
      placed_at: new Date().toISOString(),
      status: 'paid',
      total: 19_485,
    },
    id: `evt_bench_${i}`,
    type: 'order.paid',
  })
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [deliveries, concurrency] = process.argv.slice(2).map(Number)
  await run({concurrency: concurrency || undefined, deliveries: deliveries || undefined})
}
