/**
 * `--debug` shows a stack only for internal errors: an error the CLI raised on purpose (a usage error, a bad flag
 * value, a service error) prints its message (and, under --debug, the HTTP trace), never a stack trace; a defect
 * (an error no layer meant to raise) keeps its stack, which is what a maintainer needs from a bug report.
 */
import {spawnSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'

import {ROOT, run, tempConfigDir} from '../helpers/cli.js'

const STACK = /\n\s+at /

describe('--debug and stack traces', () => {
  it('a base URL with a password under --debug: the message, no stack', async () => {
    const tmp = tempConfigDir()
    try {
      const r = await run(['customers', 'list', '--base-url', 'https://user:pw@example.com', '--debug'], {env: {COMMERCE_CONFIG_DIR: tmp.dir}})
      expect(r.code).toBe(2)
      expect(r.stderr).toContain('must not carry a user name or password')
      expect(r.stderr).not.toMatch(STACK)
      expect(r.stderr).not.toContain('pw@')
    } finally {
      tmp.cleanup()
    }
  })

  it('a bad flag value under --debug: the message and the help hint, no stack', async () => {
    const r = await run(['customers', 'list', '--limit', 'abc', '--debug'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--limit')
    expect(r.stderr).not.toMatch(STACK)
  })

  it('an internal error keeps its stack under --debug, and only there', () => {
    // A command whose run() has a defect, run by BaseCommand's own error path (the shared mechanism under test).
    const script = `
      import {Config} from '@oclif/core'
      import {BaseCommand} from './src/base/command.ts'
      class Broken extends BaseCommand {
        static id = 'broken'
        async run() { const record = undefined; return record.id }
      }
      const config = await Config.load(${JSON.stringify(ROOT)})
      await Broken.run(process.argv.slice(1), config).catch((error) => { process.exitCode = error.oclif?.exit ?? 1 })
    `
    const once = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, '--', ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 30_000,
      })
    const debug = once(['--debug'])
    expect(debug.status, debug.stderr).toBe(1)
    expect(debug.stderr).toMatch(/Cannot read properties of undefined/)
    expect(debug.stderr).toMatch(STACK)
    const plain = once([])
    expect(plain.status, plain.stderr).toBe(1)
    expect(plain.stderr).toContain('Run again with --debug for details.')
    expect(plain.stderr).not.toMatch(STACK)
  })
})
