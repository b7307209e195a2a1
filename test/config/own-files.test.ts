/**
 * Files of ours in the config directory are opened by one helper (src/domain/own-file.ts): a symbolic link or a FIFO
 * planted at any of their names (and a hard link, for what is written), listed in one table with a command that reads or writes it, is never followed nor
 * waited on: the command ends, and the file the link points to is neither read nor written.
 */
import {execFileSync} from 'node:child_process'
import {linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {run, tempConfigDir} from '../helpers/cli.js'

/** Each file of ours, and commands that open it (reading, writing or both). */
const FILES: Array<{file: string; commands: string[][]}> = [
  {
    commands: [
      ['config', 'list'],
      ['config', 'set', 'base_url', 'http://127.0.0.1:9'],
    ],
    file: 'config.json',
  },
  {commands: [['sandbox', 'status']], file: 'sandbox.json'},
  {commands: [['sandbox', 'start', '--detach', '--port', '0', '--data', 'none-here.json']], file: 'sandbox.log'},
  {commands: [['sandbox', 'start', '--detach', '--port', '0']], file: 'sandbox-data.json'},
  {commands: [['webhooks', 'events']], file: 'webhook-inbox.jsonl'},
  {commands: [['completion-ids', 'customer']], file: 'completion-ids.json'},
]

const scratch = tempConfigDir()
afterAll(() => scratch.cleanup())
const SECRET = '{"profiles":{"default":{"key_id":"planted","base_url":"http://127.0.0.1:7"}},"checked_at":1,"latest":"9.9.9"}'

let n = 0
async function inPlanted(file: string, plant: (path: string, outside: string) => void, args: string[]) {
  const dir = join(scratch.dir, `case-${++n}`)
  const config = join(dir, 'config')
  mkdirSync(config, {recursive: true})
  const outside = join(dir, 'outside.json')
  writeFileSync(outside, SECRET)
  plant(join(config, file), outside)
  const env = {COMMERCE_BASE_URL: 'http://127.0.0.1:9', COMMERCE_CONFIG_DIR: config, COMMERCE_HTTP_TIMEOUT: '2'}
  const started = Date.now()
  const r = await run(
    args.map((a) => (a === 'none-here.json' ? join(dir, 'data.json') : a)),
    {cwd: dir, env},
  )
  const seconds = (Date.now() - started) / 1000
  // A sandbox that started despite everything is stopped.
  await run(['sandbox', 'stop'], {env})
  return {outside, r, seconds, text: readFileSync(outside, 'utf8')}
}

describe('a link and a FIFO planted at each file of ours in the config directory', () => {
  for (const {file, commands} of FILES)
    for (const args of commands) {
      it(`${file}: \`commerce ${args.join(' ')}\` neither follows a link, nor writes through a hard link, nor waits on a FIFO`, async () => {
        const linked = await inPlanted(file, (path, outside) => symlinkSync(outside, path), args)
        expect(linked.text, 'the file behind the link is unchanged').toBe(SECRET)
        expect(linked.r.stdout + linked.r.stderr, 'nothing read through the link').not.toContain('planted')
        expect(linked.r.stdout + linked.r.stderr).not.toContain('9.9.9')
        expect(linked.seconds).toBeLessThan(20)
        // A hard link is the file itself under a second name: never written through (truncated, appended to).
        const hard = await inPlanted(file, (path, outside) => linkSync(outside, path), args)
        expect(hard.text, 'the file behind the hard link is unchanged').toBe(SECRET)
        rmSync(hard.outside, {force: true})
        const fifo = await inPlanted(file, (path) => execFileSync('mkfifo', [path]), args)
        expect(fifo.r.code, 'it ended (no hang on the FIFO)').not.toBeNull()
        expect(fifo.seconds).toBeLessThan(20)
        rmSync(linked.outside, {force: true})
      }, 60_000)
    }
})

describe("a FIFO or a link planted at the owner of the config file's lock", () => {
  for (const [what, plant] of [
    ['a FIFO', (owner: string) => execFileSync('mkfifo', [owner])],
    ['a link to /dev/zero', (owner: string) => symlinkSync('/dev/zero', owner)],
  ] as const)
    it(`${what}: \`config set\` is never blocked nor fed by it; the lock names nobody, so it is taken over and the value set`, async () => {
      const dir = join(scratch.dir, `lock-${++n}`)
      mkdirSync(join(dir, 'config.json.lock'), {recursive: true})
      plant(join(dir, 'config.json.lock', 'owner'))
      const env = {COMMERCE_CONFIG_DIR: dir}
      const started = Date.now()
      const r = await run(['config', 'set', 'base_url', 'http://127.0.0.1:9'], {env, timeoutMs: 20_000})
      expect((Date.now() - started) / 1000).toBeLessThan(15)
      expect(r.code, r.stderr).toBe(0)
      expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default.base_url).toBe('http://127.0.0.1:9')
      expect(execFileSync('ls', ['-A', dir], {encoding: 'utf8'})).not.toContain('config.json.lock')
    }, 30_000)
})
