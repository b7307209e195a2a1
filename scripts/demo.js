#!/usr/bin/env node
// The guided tour (`npm run demo`): starts the local sandbox on a free port with a throw-away config
// directory, logs a profile in with the sandbox key pair, runs real commands (each printed before its
// output), and stops the sandbox. Nothing outside the temporary directory is touched.
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {createInterface} from 'node:readline'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'bin', 'run.js')
// COMMERCE_DEMO_DIR: a directory of the caller's, used and left in place (the test reads the sandbox's log there).
const given = process.env.COMMERCE_DEMO_DIR
const dir = given || mkdtempSync(join(tmpdir(), 'commerce-demo-'))
const env = {...process.env, COMMERCE_CONFIG_DIR: dir}
delete env.COMMERCE_PROFILE
delete env.COMMERCE_BASE_URL
delete env.COMMERCE_ACCESS_TOKEN
delete env.COMMERCE_KEY_ID
delete env.COMMERCE_KEY_SECRET
// The tour runs unattended: a report taller than the terminal must not stop it in a pager waiting for a key.
env.COMMERCE_PAGER = 'cat'
const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\u001B[1m${s}\u001B[22m` : s)

/** Prints the command, runs it with inherited stdio, returns its stdout when `capture` is set. */
function commerce(args, {capture = false, input, allowFail = false} = {}) {
  console.log(`\n${bold('$ commerce ' + args.map((a) => (/[\s"'|]/.test(a) ? `'${a}'` : a)).join(' '))}`)
  const res = spawnSync(process.execPath, [bin, ...args], {
    env,
    input,
    stdio: [input === undefined ? 'inherit' : 'pipe', capture ? 'pipe' : 'inherit', 'inherit'],
  })
  if (capture && res.stdout) process.stdout.write(res.stdout)
  if (res.status !== 0 && !allowFail) throw new Error(`commerce ${args.join(' ')} exited ${res.status}`)
  return capture ? res.stdout.toString() : ''
}

let exitCode = 0
const background = []

/** Stops what the demo started and removes its directory: at its end, and on a signal. */
function cleanUp() {
  for (const child of background) child.kill('SIGTERM')
  commerce(['sandbox', 'stop'], {allowFail: true})
  if (!given) rmSync(dir, {force: true, recursive: true})
}

// Ctrl-C, a closed terminal, a SIGTERM: the demo cleans up and exits 128+N. (The command running then gets a
// terminal's signal too, as one of its process group; and the sandbox stops by itself once the demo is gone:
// --exit-with.)
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
])
  process.on(signal, () => {
    cleanUp()
    process.exit(code)
  })

try {
  commerce(['sandbox', 'start', '--detach', '--port', '0', '--demo-data', '--exit-with', String(process.pid)])
  commerce(['sandbox', 'status'])
  commerce(['auth', 'login', '--sandbox'])
  commerce(['auth', 'status'])
  commerce(['products', 'list', '--per-page', '5'])
  commerce(['products', 'search', 'mug', '--currency', 'EUR'])
  const customer = JSON.parse(
    commerce(['customers', 'create', '--email', `ada.${Date.now()}@example.com`, '--name', 'Ada Lovelace', '--plan', 'pro', '--json'], {
      capture: true,
    }),
  )
  commerce(['customers', 'list', '--per-page', '5'])
  commerce(['customers', 'update', String(customer.id), '--status', 'active'])
  const order = JSON.parse(
    commerce(['orders', 'create', '--customer', String(customer.id), '--currency', 'USD', '--item', '1:2', '--item', '3', '--json'], {capture: true}),
  )
  commerce(
    [
      'orders',
      'create',
      '--customer',
      String(customer.id),
      '--currency',
      'USD',
      '--item',
      '1:2',
      '--item',
      '3',
      '--idempotency-key',
      order.idempotency_key,
      '--json',
    ],
    {capture: true},
  )
  console.log('(the same Idempotency-Key replayed the original order instead of creating a second one)')
  commerce(['orders', 'get', String(order.id)])

  // Webhooks: a local receiver, a listener forwarding to it, and the sandbox paying the order.
  const receiver = createServer((req, res) => req.resume().on('end', () => res.end('ok')))
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const forwardTo = `http://127.0.0.1:${receiver.address().port}/hooks`
  console.log(`\n${bold(`$ commerce webhooks listen --forward-to ${forwardTo} --max-events 1 --timeout 30 &`)}`)
  const listener = spawn(process.execPath, [bin, 'webhooks', 'listen', '--forward-to', forwardTo, '--max-events', '1', '--timeout', '30'], {
    env,
    stdio: ['ignore', 'inherit', 'pipe'],
  })
  background.push(listener)
  const closed = new Promise((resolve) => listener.on('close', resolve))
  await new Promise((resolve, reject) => {
    createInterface({input: listener.stderr}).on('line', (line) => {
      console.log(line)
      if (line.startsWith('Ready')) resolve()
    })
    listener.on('close', () => reject(new Error('webhooks listen stopped before it was ready')))
  })
  commerce(['webhooks', 'trigger', 'order.paid', '--order', String(order.id)])
  await closed
  receiver.close()
  console.log('(the listener verified the signed delivery, forwarded it to the receiver, and stopped after --max-events 1)')
  commerce(['webhooks', 'events', '--limit', '1'])
  commerce(['orders', 'refund', String(order.id), '--amount', '100', '--reason', 'demo', '--yes'])
  commerce(['customers', 'get', String(customer.id), '--include', 'orders', '--json'], {capture: true})

  // Bulk: a small CSV imported (validated first, journaled, resumable), then every customer exported as CSV.
  const csv = join(dir, 'new-customers.csv')
  writeFileSync(csv, `email,name,plan\ngrace.${Date.now()}@example.com,Grace Hopper,pro\nalan.${Date.now()}@example.com,"Turing, Alan",\n`)
  // --send-invite says what the rows leave unset (an invitation each, in the sandbox): on a terminal nothing is asked.
  commerce(['customers', 'import', csv, '--send-invite'])
  commerce(['customers', 'import', csv, '--send-invite'])
  console.log('(the second run found every row done in its journal and sent nothing)')
  commerce(['customers', 'export', '--format', 'csv', '--status', 'invited'])
  commerce(['api', '/api/v2/orders', '--field', 'per_page=2'].concat(['--method', 'GET']), {capture: true})
  commerce(['customers', 'create', '--email', 'not-an-email', '--name', 'Nobody'], {allowFail: true})
  console.log('(refused before any request: exit 2)')
  commerce(['customers', 'list', '--api-version', 'v1', '--per-page', '2'])
  commerce(['config', 'list'])
  // The account over time: the demo data's orders of the last twelve days, per day.
  commerce(['orders', 'stats', '--since', '14d'])
} catch (error) {
  console.error(`\ndemo failed: ${error.message}`)
  exitCode = 1
} finally {
  cleanUp()
}
process.exit(exitCode)
