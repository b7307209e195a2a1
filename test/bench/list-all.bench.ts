/**
 * `customers list --all` of 20,000 customers, end to end (the built CLI against an in-process sandbox with a data
 * file of 20,000 customers): on a terminal (a pseudo-terminal from util-linux `script`, 80 columns) against a
 * pipe, wall time, best of 3. Goal: the terminal within 3x the pipe. The render-only figure is
 * render.bench.ts.
 *
 *   npm run build && node --import tsx test/bench/run.js list-all
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {startSandbox} from '../../src/sandbox/index.js'
import {BIN} from '../helpers/cli.js'
import {writeCustomersDataFile} from '../helpers/sandbox.js'

const COUNT = 20_000

function timed(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ms: number; bytes: number; code: number | null}> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(command, args, {env, stdio: ['ignore', 'pipe', 'ignore']})
    let bytes = 0
    child.stdout.on('data', (d: Buffer) => (bytes += d.length))
    child.on('error', reject)
    child.on('close', (code) => resolve({bytes, code, ms: Number(process.hrtime.bigint() - started) / 1e6}))
  })
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-list-all-'))
  const sb = await startSandbox({dataFile: writeCustomersDataFile(join(dir, 'data.json'), COUNT)})
  try {
    const key = sb.keys[0]
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      COLUMNS: '80',
      COMMERCE_BASE_URL: sb.baseUrl,
      COMMERCE_CONFIG_DIR: join(dir, 'config'),
      COMMERCE_KEY_ID: key.key_id,
      COMMERCE_KEY_SECRET: key.key_secret,
      LINES: '50',
      NO_COLOR: '1',
    }
    delete env.CI
    const cli = [process.execPath, BIN, 'customers', 'list', '--all']
    const best = async (runOnce: () => Promise<{ms: number; code: number | null}>) => {
      let ms = Infinity
      for (let i = 0; i < 3; i++) {
        const r = await runOnce()
        if (r.code !== 0) throw new Error(`exit ${r.code}`)
        ms = Math.min(ms, r.ms)
      }
      return ms
    }
    await timed(cli[0], cli.slice(1), env) // warm-up (token, page cache)
    const pipe = await best(() => timed(cli[0], cli.slice(1), env))
    // `script -qec CMD /dev/null`: CMD runs on a new pseudo-terminal; its output comes back through our pipe.
    const terminal = await best(() => timed('script', ['-qec', `stty cols 80 rows 50; ${cli.map((a) => `'${a}'`).join(' ')}`, '/dev/null'], env))
    const ratio = terminal / pipe
    console.log(
      `customers list --all, ${COUNT.toLocaleString('en')} customers: terminal ${terminal.toFixed(0)} ms, pipe ${pipe.toFixed(0)} ms, ratio ${ratio.toFixed(2)}x (goal: within 3x)`,
    )
    return {count: COUNT, pipeMs: pipe, ratio, terminalMs: terminal}
  } finally {
    await sb.close()
    rmSync(dir, {force: true, recursive: true})
  }
}
