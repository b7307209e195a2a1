/** A reader that closes the pipe early (`| head -1`) ends the CLI quietly: exit 0, no EPIPE stack trace. */
import {spawn} from 'node:child_process'
import {afterAll, beforeAll, expect, it} from 'vitest'

import {BIN, tempConfigDir} from '../helpers/cli.js'
import {type TestSandbox, startTestSandbox} from '../helpers/sandbox.js'

let sb: TestSandbox
const tmp = tempConfigDir()
beforeAll(async () => {
  sb = await startTestSandbox()
})
afterAll(async () => {
  await sb.close()
  tmp.cleanup()
})

it('products list --all | head -1: exit 0 and nothing on stderr', async () => {
  const pipeline = `node ${JSON.stringify(BIN)} products list --all --per-page 1 --base-url ${sb.baseUrl} | head -c 1 > /dev/null; echo "\${PIPESTATUS[0]}"`
  const child = spawn('bash', ['--noprofile', '--norc', '-c', pipeline], {env: {COMMERCE_CONFIG_DIR: tmp.dir, HOME: tmp.dir, PATH: process.env.PATH}})
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (err += d))
  await new Promise((resolve) => child.on('close', resolve))
  expect(err).toBe('')
  expect(out.trim()).toBe('0')
})
