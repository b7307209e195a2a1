/**
 * `orders stats` over 10,000 and 100,000 orders (the built CLI against an in-process sandbox whose data file holds
 * them, placed over the last 100 days), beside reading the same pages raw (`commerce api /api/v2/orders --paginate`):
 * wall time, and the CLI's peak memory (VmHWM, read from /proc while it runs). Goals: stats within 1.5x the raw read
 * (it reads the same pages and keeps no order), and its peak memory flat from 10,000 to 100,000 orders (within
 * 1.3x), as the raw read's is not (it holds the whole array to print it).
 *
 *   npm run build && node --import tsx test/bench/run.js stats
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {newKeyPairs} from '../../src/sandbox/seed.js'
import {startSandbox} from '../../src/sandbox/index.js'
import type {OrderRecord, Snapshot} from '../../src/sandbox/record-store.js'
import {BIN} from '../helpers/cli.js'

const DAY = 86_400_000

function writeOrdersDataFile(path: string, count: number, now: number): string {
  const currencies = ['USD', 'EUR', 'GBP'] as const
  const orders: OrderRecord[] = Array.from({length: count}, (_, i) => ({
    amount_refunded: i % 17 === 0 ? 500 : 0,
    currency: currencies[i % 3],
    customer_id: 1,
    id: i + 1,
    items: [{product_id: 1, quantity: 1, unit_price: 1000 + (i % 7) * 100}],
    // Oldest first, so that the newest (the highest id) is listed first: spread over 100 days.
    placed_at: new Date(now - 100 * DAY + Math.floor((i / count) * 100 * DAY)).toISOString(),
    refunds: [],
    status: i % 5 === 0 ? 'pending' : 'paid',
    total: 1000 + (i % 7) * 100,
  }))
  const snapshot: Snapshot = {
    customers: [
      {
        addresses: [],
        created_at: new Date(now - 200 * DAY).toISOString(),
        email: 'bench@example.com',
        id: 1,
        metadata: {},
        name: 'Bench',
        status: 'active',
      },
    ],
    idempotency: {},
    keys: newKeyPairs(),
    next: {address: 1, customer: 2, order: count + 1, refund: 1},
    orders,
    version: 1,
    webhooks: [],
  }
  writeFileSync(path, JSON.stringify(snapshot))
  return path
}

/** Runs the CLI, timing it and sampling its peak resident memory from /proc every 10 ms. */
function measured(args: string[], env: NodeJS.ProcessEnv): Promise<{ms: number; peakMb: number; code: number | null}> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [BIN, ...args], {env, stdio: ['ignore', 'ignore', 'ignore']})
    let peakKb = 0
    const sample = setInterval(() => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))
        if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]))
      } catch {}
    }, 10)
    child.on('error', reject)
    child.on('close', (code) => {
      clearInterval(sample)
      resolve({code, ms: Number(process.hrtime.bigint() - started) / 1e6, peakMb: peakKb / 1024})
    })
  })
}

export async function run() {
  const results: Record<string, {statsMs: number; rawMs: number; statsPeakMb: number; rawPeakMb: number}> = {}
  for (const count of [10_000, 100_000]) {
    const dir = mkdtempSync(join(tmpdir(), 'commerce-stats-bench-'))
    const sb = await startSandbox({dataFile: writeOrdersDataFile(join(dir, 'data.json'), count, Date.now()), log: () => {}})
    try {
      const key = sb.keys[0]
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        COMMERCE_BASE_URL: sb.baseUrl,
        COMMERCE_CONFIG_DIR: join(dir, 'config'),
        COMMERCE_KEY_ID: key.key_id,
        COMMERCE_KEY_SECRET: key.key_secret,
      }
      const stats = await measured(['orders', 'stats', '--since', '100d', '--json'], env)
      const raw = await measured(['api', '/api/v2/orders', '--paginate', '--field', 'per_page=100'], env)
      if (stats.code !== 0 || raw.code !== 0) throw new Error(`exit ${stats.code} / ${raw.code}`)
      results[count] = {rawMs: raw.ms, rawPeakMb: raw.peakMb, statsMs: stats.ms, statsPeakMb: stats.peakMb}
      console.log(
        `${count.toLocaleString('en')} orders: stats ${(stats.ms / 1000).toFixed(2)} s, peak ${stats.peakMb.toFixed(0)} MB; raw pages ${(raw.ms / 1000).toFixed(2)} s, peak ${raw.peakMb.toFixed(0)} MB (time ${(stats.ms / raw.ms).toFixed(2)}x, goal <= 1.5x)`,
      )
    } finally {
      await sb.close()
      rmSync(dir, {force: true, recursive: true})
    }
  }
  const growth = results[100_000].statsPeakMb / results[10_000].statsPeakMb
  console.log(`stats peak memory from 10,000 to 100,000 orders: ${growth.toFixed(2)}x (goal <= 1.3x: flat)`)
  return results
}
