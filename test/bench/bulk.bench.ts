/**
 * The bulk commands side by side with what users would otherwise write, against sandboxes on 127.0.0.1 in this
 * process (customers written straight into a data file the sandbox loads at start, not created over HTTP):
 *
 * - `customers export --format jsonl` of 100,000 customers: records/s against a sequential shell loop of `curl`
 *   + `jq` over the same pages (per_page 100, over the first `curlExportRecords` records); peak RSS of the CLI
 *   for 10,000 and 100,000 customers (`/usr/bin/time -f %M`, else VmHWM polled from /proc).
 * - `customers import` of 10,000 rows into an empty sandbox against a sequential `curl` loop of POSTs (over
 *   `curlImportRows` rows).
 * - `customers import --dry-run` of a JSONL file with one 256 MB line: peak RSS (the line is an invalid row read
 *   under the 4 MiB record bound, never held whole).
 * - `orders import` of 50 rows against a sandbox started with an order limit of 10 per 2 s: total time against
 *   the floor (8 s: the fifth window opens 8 s after the first), 429s seen (from --debug), orders created.
 *
 * Each line prints a figure, its goal and PASS or MISS; nothing is asserted. Needs the built CLI
 * (`npm run build`), and curl and jq for the comparisons (left out when missing).
 *
 *   node --import tsx test/bench/bulk.bench.ts
 */
import {spawn, spawnSync} from 'node:child_process'
import {closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

import {type Sandbox, startSandbox} from '../../src/sandbox/index.js'
import {writeCustomersDataFile} from '../helpers/sandbox.js'

const ROOT = resolve(import.meta.dirname, '..', '..')
const BIN = join(ROOT, 'bin', 'run.js')
const TIME = '/usr/bin/time'
const RSS_LIMIT_MB = 150

export interface BulkBenchOptions {
  exportRecords?: number
  rssSmallRecords?: number
  curlExportRecords?: number
  importRows?: number
  curlImportRows?: number
  orderRows?: number
  out?: NodeJS.WritableStream
}

export interface Figure {
  name: string
  value: number
  unit: string
  goal: string
  pass: boolean | undefined
}

interface Timed {
  ms: number
  code: number | null
  stdout: string
  stderr: string
  /** Peak RSS in MB, when measured. */
  rssMb?: number
}

export async function run(options: BulkBenchOptions = {}): Promise<{figures: Figure[]}> {
  const out = options.out ?? process.stdout
  const exportRecords = options.exportRecords ?? 100_000
  const rssSmall = options.rssSmallRecords ?? 10_000
  const curlExportRecords = Math.min(options.curlExportRecords ?? 10_000, exportRecords)
  const importRows = options.importRows ?? 10_000
  const curlImportRows = options.curlImportRows ?? 1_000
  const orderRows = options.orderRows ?? 50
  if (!existsSync(join(ROOT, 'dist', 'bundle', 'commands'))) throw new Error('The CLI is not built: run `npm run build` first.')
  const hasCurl = spawnSync('curl', ['--version'], {stdio: 'ignore'}).status === 0
  const hasJq = spawnSync('jq', ['--version'], {stdio: 'ignore'}).status === 0
  const hasTime = existsSync(TIME)

  const dir = mkdtempSync(join(tmpdir(), 'commerce-bench-bulk-'))
  const figures: Figure[] = []
  const report = (name: string, value: number, unit: string, goal: string, pass: boolean | undefined) => {
    figures.push({goal, name, pass, unit, value})
    const verdict = pass === undefined ? '' : pass ? 'PASS' : 'MISS'
    out.write(`  ${name.padEnd(58)} ${formatValue(value, unit).padStart(14)}   ${goal.padEnd(30)} ${verdict}\n`)
  }
  const sandboxes: Sandbox[] = []
  const sandbox = async (opts: Parameters<typeof startSandbox>[0] = {}) => {
    const sb = await startSandbox({log: () => {}, ...opts})
    sandboxes.push(sb)
    return sb
  }

  try {
    out.write(`bulk: node ${process.version}; peak RSS by ${hasTime ? TIME : '/proc/<pid>/status VmHWM'}\n`)

    // ---------------------------------------------------------------------------------------- export
    const big = await sandbox({dataFile: writeCustomersDataFile(join(dir, `data-${exportRecords}.json`), exportRecords)})
    const small = await sandbox({dataFile: writeCustomersDataFile(join(dir, `data-${rssSmall}.json`), rssSmall)})
    const exportOut = join(dir, 'export.jsonl')
    const bigRun = await timeCli(['customers', 'export', '--format', 'jsonl', '--output', exportOut], cliEnv(dir, big), hasTime)
    check(bigRun, 'customers export (big)')
    const exported = lineCount(exportOut)
    const cliRate = (exported / bigRun.ms) * 1000
    const smallRun = await timeCli(['customers', 'export', '--format', 'jsonl', '--output', join(dir, 'small.jsonl')], cliEnv(dir, small), hasTime)
    check(smallRun, 'customers export (small)')
    out.write(`  customers export --format jsonl: ${exported.toLocaleString('en')} records in ${(bigRun.ms / 1000).toFixed(2)} s\n`)

    if (hasCurl && hasJq) {
      const token = await tokenFor(big)
      const pages = Math.ceil(curlExportRecords / 100)
      const script = `for p in $(seq 1 ${pages}); do curl -s -H "authorization: Bearer $TOKEN" "$URL/api/v2/customers?per_page=100&page=$p" | jq -c '.data[]'; done > "$OUT"`
      const loop = await timeShell(script, {OUT: join(dir, 'curl.jsonl'), TOKEN: token, URL: big.baseUrl})
      const curlRate = (lineCount(join(dir, 'curl.jsonl')) / loop.ms) * 1000
      out.write(`  curl + jq loop: ${pages} pages (${curlExportRecords.toLocaleString('en')} records) in ${(loop.ms / 1000).toFixed(2)} s\n`)
      report('export records/s, CLI', cliRate, 'rec/s', '', undefined)
      report('export records/s, curl + jq loop', curlRate, 'rec/s', '', undefined)
      report('export: CLI / curl + jq', cliRate / curlRate, 'x', '>= 3x', cliRate / curlRate >= 3)
    } else {
      report('export records/s, CLI', cliRate, 'rec/s', '(curl or jq missing: no comparison)', undefined)
    }
    if (bigRun.rssMb !== undefined && smallRun.rssMb !== undefined) {
      report(
        `export peak RSS, ${rssSmall.toLocaleString('en')} customers`,
        smallRun.rssMb,
        'MB',
        `< ${RSS_LIMIT_MB} MB`,
        smallRun.rssMb < RSS_LIMIT_MB,
      )
      report(
        `export peak RSS, ${exportRecords.toLocaleString('en')} customers`,
        bigRun.rssMb,
        'MB',
        `< ${RSS_LIMIT_MB} MB`,
        bigRun.rssMb < RSS_LIMIT_MB,
      )
      const growth = bigRun.rssMb / smallRun.rssMb - 1
      report('export peak RSS growth, big vs small', growth * 100, '%', 'within 20%', Math.abs(growth) <= 0.2)
    }
    await Promise.all([big.close(), small.close()])

    // ---------------------------------------------------------------------------------------- import
    const target = await sandbox()
    const csv = join(dir, 'import.csv')
    writeFileSync(
      csv,
      [
        'email,name,plan',
        ...Array.from({length: importRows}, (_, i) => `import${i + 1}@example.com,Imported ${i + 1},${i % 2 ? 'pro' : 'free'}`),
      ].join('\n') + '\n',
    )
    const imported = await timeCli(['customers', 'import', csv, '--json'], cliEnv(dir, target), false)
    check(imported, 'customers import')
    const importRate = (importRows / imported.ms) * 1000
    out.write(`  customers import: ${importRows.toLocaleString('en')} rows in ${(imported.ms / 1000).toFixed(2)} s: ${imported.stdout.trim()}\n`)
    if (hasCurl) {
      const token = await tokenFor(target)
      const script =
        `for i in $(seq 1 ${curlImportRows}); do curl -s -o /dev/null -X POST -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' ` +
        `-d "{\\"email\\":\\"curl$i@example.com\\",\\"name\\":\\"Curl $i\\",\\"metadata\\":{\\"plan\\":\\"pro\\"}}" "$URL/api/v2/customers"; done`
      const loop = await timeShell(script, {TOKEN: token, URL: target.baseUrl})
      const curlRate = (curlImportRows / loop.ms) * 1000
      out.write(`  curl loop: ${curlImportRows.toLocaleString('en')} POSTs in ${(loop.ms / 1000).toFixed(2)} s\n`)
      report('import rows/s, CLI', importRate, 'rows/s', '', undefined)
      report('import rows/s, curl loop', curlRate, 'rows/s', '', undefined)
      report('import: CLI / curl loop', importRate / curlRate, 'x', '>= 3x', importRate / curlRate >= 3)
    } else report('import rows/s, CLI', importRate, 'rows/s', '(curl missing: no comparison)', undefined)
    const customersNow = target.counts().customers
    report(
      'customers in the sandbox after the import',
      customersNow,
      '',
      `= ${importRows + (hasCurl ? curlImportRows : 0)}`,
      customersNow === importRows + (hasCurl ? curlImportRows : 0),
    )
    await target.close()

    // A hostile import file: one line of 256 MB, read under the record bound without holding it.
    const hostile = join(dir, 'hostile.jsonl')
    const fd = openSync(hostile, 'w')
    writeSync(fd, '{"email":"a@example.com","name":"A"}\n{"email":"b@example.com","name":"')
    const mib = Buffer.alloc(1024 * 1024, 0x78)
    for (let i = 0; i < 256; i++) writeSync(fd, mib)
    writeSync(fd, '"}\n')
    closeSync(fd)
    const dry = await timeCli(
      ['customers', 'import', hostile, '--dry-run', '--skip-invalid'],
      {...cliEnv(dir, target), COMMERCE_BASE_URL: 'http://127.0.0.1:9'},
      hasTime,
    )
    check(dry, 'customers import --dry-run (256 MB line)')
    rmSync(hostile, {force: true})
    if (dry.rssMb !== undefined)
      report('import --dry-run of a 256 MB line: peak RSS', dry.rssMb, 'MB', `< ${RSS_LIMIT_MB} MB`, dry.rssMb < RSS_LIMIT_MB)

    // ---------------------------------------------------------------------------------------- orders
    const limit = {limit: 10, windowSeconds: 2}
    const orders = await sandbox({orderLimit: limit})
    const buyer = await createCustomer(orders)
    const ordersCsv = join(dir, 'orders.csv')
    writeFileSync(
      ordersCsv,
      ['customer_id,currency,items', ...Array.from({length: orderRows}, (_, i) => `${buyer},USD,${(i % 5) + 1}:1`)].join('\n') + '\n',
    )
    const paced = await timeCli(['orders', 'import', ordersCsv, '--json', '--debug'], cliEnv(dir, orders), false)
    check(paced, 'orders import')
    const windows = Math.ceil(orderRows / limit.limit)
    const floorMs = (windows - 1) * limit.windowSeconds * 1000
    const seen429 = paced.stderr.split('\n').filter((l) => l.startsWith('< 429')).length
    out.write(`  orders import: ${orderRows} rows, limit ${limit.limit} per ${limit.windowSeconds} s (CLI start-up included)\n`)
    report(
      'orders import total time',
      paced.ms / 1000,
      's',
      `<= ${((floorMs * 1.15) / 1000).toFixed(1)} s (floor ${floorMs / 1000} s + 15%)`,
      paced.ms <= floorMs * 1.15,
    )
    report('orders import 429s seen', seen429, '', `<= ${windows} (one per window)`, seen429 <= windows)
    report('orders created', orders.counts().orders, '', `= ${orderRows}`, orders.counts().orders === orderRows)
    return {figures}
  } finally {
    await Promise.all(sandboxes.map((s) => s.close()))
    rmSync(dir, {force: true, recursive: true})
  }
}

function formatValue(value: number, unit: string): string {
  const text = Number.isInteger(value) ? value.toLocaleString('en') : value >= 100 ? Math.round(value).toLocaleString('en') : value.toFixed(2)
  return unit ? `${text} ${unit}` : text
}

/** The caller's environment without what would skew a measure (see startup.bench.ts), plus the sandbox's key pair. */
function cliEnv(dir: string, sb: Sandbox): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('COMMERCE_') || ['CI', 'FORCE_COLOR', 'NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'NO_COLOR'].includes(k)) continue
    env[k] = v
  }
  const configDir = mkdtempSync(join(dir, 'config-'))
  return {
    ...env,
    COMMERCE_BASE_URL: sb.baseUrl,
    COMMERCE_CONFIG_DIR: configDir,
    COMMERCE_KEY_ID: sb.keys[0].key_id,
    COMMERCE_KEY_SECRET: sb.keys[0].key_secret,
  }
}

/** Runs the CLI to its exit (asynchronously: the sandboxes answer on this event loop), with its peak RSS. */
function timeCli(args: string[], env: NodeJS.ProcessEnv, measureRss: boolean): Promise<Timed> {
  const rssFile = join(env.COMMERCE_CONFIG_DIR!, 'rss')
  const [command, argv] =
    measureRss && existsSync(TIME) ? [TIME, ['-f', '%M', '-o', rssFile, process.execPath, BIN, ...args]] : [process.execPath, [BIN, ...args]]
  return timeProcess(command, argv, env, measureRss && !existsSync(TIME)).then((t) => {
    if (measureRss && existsSync(TIME)) t.rssMb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1)) / 1024
    return t
  })
}

function timeShell(script: string, vars: Record<string, string>): Promise<Timed> {
  return timeProcess('sh', ['-c', script], {...process.env, ...vars}, false)
}

function timeProcess(command: string, args: string[], env: NodeJS.ProcessEnv, pollRss: boolean): Promise<Timed> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now()
    const child = spawn(command, args, {cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    let peakKb = 0
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    // VmHWM is the process's own high-water mark: the last reading before exit is the peak, or close to it.
    const poll = pollRss
      ? setInterval(() => {
          try {
            const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))
            if (m) peakKb = Math.max(peakKb, Number(m[1]))
          } catch {}
        }, 20)
      : undefined
    child.on('error', reject)
    child.on('close', (code) => {
      clearInterval(poll)
      resolvePromise({code, ms: performance.now() - started, rssMb: pollRss ? peakKb / 1024 : undefined, stderr, stdout})
    })
  })
}

function check(t: Timed, what: string): void {
  if (t.code !== 0) throw new Error(`${what} failed (exit ${t.code}): ${t.stderr.trim().slice(-500)}`)
}

function lineCount(file: string): number {
  if (statSync(file).size === 0) return 0
  let n = 0
  const text = readFileSync(file, 'utf8')
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++
  return n
}

async function tokenFor(sb: Sandbox): Promise<string> {
  const {key_id, key_secret} = sb.keys[0]
  const res = await fetch(`${sb.baseUrl}/api/v2/auth/tokens`, {
    body: JSON.stringify({key_id, key_secret}),
    headers: {'content-type': 'application/json'},
    method: 'POST',
  })
  return ((await res.json()) as {access_token: string}).access_token
}

async function createCustomer(sb: Sandbox): Promise<number> {
  const res = await fetch(`${sb.baseUrl}/api/v2/customers`, {
    body: JSON.stringify({email: 'buyer@example.com', name: 'Buyer'}),
    headers: {authorization: `Bearer ${await tokenFor(sb)}`, 'content-type': 'application/json'},
    method: 'POST',
  })
  return ((await res.json()) as {id: number}).id
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run()
