/**
 * Every `commerce …` example line in the README's usage sections (before the generated command reference)
 * runs as written, in bash (pipes, jq, `$id` included), against a sandbox holding customers 1-50 and a paid
 * order 1001, and exits with the code the README implies: 0, unless EXPECTED says otherwise. SKIP lists the lines
 * that cannot run here, each with its reason. Lines run one after the other, in README order, in one config
 * directory and one working directory holding the files the examples name.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {startSandbox} from '../../src/sandbox/index.js'
import {BIN, ROOT} from '../helpers/cli.js'
import {writeCustomersDataFile} from '../helpers/sandbox.js'
import {recordAnswer} from '../helpers/openapi-check.js'

/** Lines that cannot run here (matched against the line), and why. */
const SKIP: Array<[RegExp, string]> = [
  [/\[--|\|[a-z]|^commerce \w+ \w+ (ID|TEXT)\b/, 'a synopsis with placeholders, not a runnable line'],
  [
    /^commerce sandbox (start|stop|open|status)\b/,
    'the test provides its own in-process sandbox; starting, stopping or opening another is not this test',
  ],
  [/^commerce sandbox (logs|seed|snapshot|reset|fault)\b/, 'needs a `sandbox start --detach` sandbox (the in-process one has no state directory)'],
  [/--follow/, 'runs until Ctrl-C'],
  [/auth login --base-url https:/, 'a production URL; prompts for the key'],
  [/auth login --sandbox/, 'needs a detached `sandbox start` sandbox'],
  [/auth logout/, 'would revoke the key the following lines use'],
  [/^commerce customers create +#/, 'prompts for email and name'],
  [/^commerce orders create +#/, 'asks on a terminal (test/tty/pickers.test.ts drives it)'],
  [/webhooks listen/, 'runs until stopped; registers a public endpoint or a tunnel'],
  [/webhooks (replay|events get) evt_123/, 'needs an event in the local inbox of a listen'],
  [/asks for confirmation/, 'an interactive prompt (the same line with --yes is what scripts run)'],
  [/^commerce (plugins|hello)\b/, 'links the example plugin (run from the repository, installing into it): test/e2e/plugins.test.ts runs these'],
  [/^commerce webhooks trigger/, 'needs a detached `sandbox start` sandbox (it refuses any other service)'],
]

/** Exit codes the README states for a line (by its text), other than 0. */
const EXPECTED: Array<[RegExp, number]> = [[/customers get 99999/, 4]]

interface Example {
  file: string
  line: number
  text: string
}

/** The README's usage sections, then the pages of docs/ it leads to, in the order a reader meets them. */
const FILES = [
  'README.md',
  'docs/configuration.md',
  'docs/terminal.md',
  'docs/output.md',
  'docs/resources.md',
  'docs/api.md',
  'docs/webhooks.md',
  'docs/bulk.md',
  'docs/aliases-and-plugins.md',
  'docs/fixtures.md',
  'docs/sandbox.md',
  'docs/troubleshooting.md',
]

function examples(): Example[] {
  const out: Example[] = []
  for (const file of FILES) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n')
    let inBlock = false
    // A ```text block is a synopsis (`commerce orders get [ID]`), not a line to run.
    let runnable = false
    for (const [i, line] of lines.entries()) {
      if (line.startsWith('<!-- commands -->')) break
      if (line.startsWith('```')) {
        inBlock = !inBlock
        runnable = inBlock && !line.startsWith('```text')
        continue
      }
      const m = runnable ? /^\s*(?:\$ )?(commerce .*)$/.exec(line) : null
      if (m) out.push({file, line: i + 1, text: m[1]})
    }
  }
  return out
}

const all = examples()
const runnable = all.filter((e) => !SKIP.some(([re]) => re.test(e.text)))

let dir = ''
let env: Record<string, string> = {}
let close = async () => {}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'commerce-readme-'))
  const dataFile = writeCustomersDataFile(join(dir, 'data.json'), 50)
  const data = JSON.parse(readFileSync(dataFile, 'utf8'))
  // Order 1001 of the usage examples, and order 20 of the captured terminal sample (the sandbox's --demo-data).
  const order = {
    amount_refunded: 0,
    currency: 'USD',
    customer_id: 42,
    items: [{product_id: 3, quantity: 2, unit_price: 1000}],
    placed_at: new Date().toISOString(),
    refunds: [],
    status: 'paid',
    total: 2000,
  }
  data.orders = [
    {...order, id: 20},
    {...order, id: 1001},
  ]
  data.next.order = 1002
  writeFileSync(dataFile, JSON.stringify(data))
  const sb = await startSandbox({dataFile, onAnswer: recordAnswer})
  close = () => sb.close()
  const key = sb.keys[0]
  writeFileSync(join(dir, 'customers.csv'), 'email,name,send_invite\nreadme1@example.com,Readme One,false\n')
  writeFileSync(join(dir, 'backlog.jsonl'), '{"customer_id": 1, "currency": "USD", "items": [{"product_id": 3, "quantity": 1}]}\n')
  writeFileSync(join(dir, 'secret.txt'), 'whsec_readme\n')
  writeFileSync(join(dir, 'order.json'), '{"customer_id": 1, "currency": "USD", "items": [{"product_id": 3, "quantity": 1}]}')
  writeFileSync(
    join(dir, 'fixtures.json'),
    JSON.stringify({
      customers: {alice: {email: 'fixture-alice@example.com', name: 'Alice Lima', send_invite: false}},
      orders: {first: {currency: 'USD', customer_id: '${alice.id}', items: [{product_id: 3, quantity: 2}]}},
      webhooks: {hook: {events: ['order.paid'], url: 'https://hooks.example.com/commerce'}},
    }),
  )
  writeFileSync(join(dir, 'body.json'), '{"url": "https://hooks.example.com/x", "events": ["order.paid"]}')
  env = {
    BIN,
    COMMERCE_BASE_URL: sb.baseUrl,
    COMMERCE_CONFIG_DIR: join(dir, 'config'),
    COMMERCE_KEY_ID: key.key_id,
    COMMERCE_KEY_SECRET: key.key_secret,
    HOME: dir,
    LANG: 'C.UTF-8',
    NODE: process.execPath,
    PATH: process.env.PATH ?? '',
    XDG_CACHE_HOME: join(dir, 'cache'),
    id: '42',
    key: '0b6f3c2e-8d1a-4b7e-9c55-3f2a1d4e6b70',
  }
}, 30_000)

afterAll(async () => {
  await close()
  rmSync(dir, {force: true, recursive: true})
})

function bash(text: string): Promise<{code: number | null; output: string}> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `commerce() { "$NODE" "$BIN" "$@"; }\n${text}`], {cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe']})
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, output})
    })
  })
}

describe('README examples', () => {
  it('finds the examples, and skips only a few', () => {
    expect(all.length).toBeGreaterThan(40)
    expect(runnable.length).toBeGreaterThanOrEqual(40)
    // Every skip still matches a line: a stale entry would hide nothing but mislead.
    for (const [re, why] of SKIP)
      expect(
        all.some((e) => re.test(e.text)),
        `${re} (${why})`,
      ).toBe(true)
  })

  it('every runnable example exits with the code the README implies', async () => {
    const failures: string[] = []
    for (const example of runnable) {
      // A line continued on the next (`|| case $? in`) runs only up to the continuation.
      const text = example.text.replace(/\s*\|\|\s*case \$\? in\s*$/, '')
      const expected = EXPECTED.find(([re]) => re.test(text))?.[1] ?? 0
      // `$HEADER` in the README is the value `webhooks sign` printed (the line before it).
      const prelude = text.includes('$HEADER') ? 'HEADER=$(commerce webhooks sign --secret-file secret.txt --payload-file body.json)\n' : ''
      const result = await bash(prelude + text)
      if (result.code !== expected)
        failures.push(`${example.file}:${example.line}: ${text}\n  exit ${result.code} (expected ${expected}): ${result.output.slice(0, 300)}`)
    }
    expect(failures.join('\n')).toBe('')
  }, 90_000)
})
