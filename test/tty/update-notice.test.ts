/**
 * The update notice (src/services/update-check.ts) on a real terminal, against a registry stub on loopback: a newer
 * release is named with the way to update after the day's detached check; an older one, or a registry that never
 * answers, shows nothing; never with --json, without a terminal, or under CI; and the command never waits for it.
 */
import {existsSync, readFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {run, tempConfigDir} from '../helpers/cli.js'
import {startInTmux} from '../helpers/tmux.js'

let registry: Server
let url = ''
let answer: 'newer' | 'older' | 'silent' = 'newer'
const asked: string[] = []
const held: ServerResponse[] = []

beforeAll(async () => {
  registry = createServer((req: IncomingMessage, res: ServerResponse) => {
    asked.push(req.url ?? '')
    if (answer === 'silent') return void held.push(res)
    res.writeHead(200, {'content-type': 'application/json'})
    res.end(JSON.stringify({name: 'commerce-cli', version: answer === 'newer' ? '9.9.9' : '0.0.1'}))
  })
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(registry.address() as {port: number}).port}`
})
afterAll(async () => {
  for (const res of held) res.destroy()
  registry.closeAllConnections()
  await new Promise<void>((resolve) => registry.close(() => resolve()))
})

const stateOf = (dir: string) => join(dir, 'update-check.json')
const terminalEnv = (dir: string) => ({COMMERCE_CONFIG_DIR: dir, COMMERCE_SKIP_UPDATE_CHECK: undefined, COMMERCE_UPDATE_REGISTRY: url})

async function versionOnTerminal(dir: string, args: string[] = ['version']): Promise<string> {
  const term = await startInTmux(args, {env: terminalEnv(dir)})
  expect(await term.waitForExit()).toBe(0)
  return term.capture()
}

describe('update notice', () => {
  it('a newer release: the first run starts the check in the background; the next names the release and how to update', async () => {
    answer = 'newer'
    const cfg = tempConfigDir()
    try {
      const first = await versionOnTerminal(cfg.dir)
      expect(first).not.toContain('new release')
      await vi.waitFor(() => expect(JSON.parse(readFileSync(stateOf(cfg.dir), 'utf8'))).toMatchObject({latest: '9.9.9'}), {timeout: 10_000})
      expect(asked).toContain('/commerce-cli/latest')
      const second = await versionOnTerminal(cfg.dir)
      expect(second).toMatch(/A new release of commerce is available: 0\.1\.0 → 9\.9\.9\. To update: git pull && npm ci && npm run build/)
      // Asked once a day: the second run read the file and asked nothing.
      expect(asked.filter((a) => a === '/commerce-cli/latest')).toHaveLength(1)
      // Never with --json, on a pipe, or under CI.
      expect(await versionOnTerminal(cfg.dir, ['version', '--json'])).not.toContain('new release')
      const piped = await run(['version'], {env: {COMMERCE_CONFIG_DIR: cfg.dir, COMMERCE_UPDATE_REGISTRY: url}})
      expect(piped.stdout + piped.stderr).not.toContain('new release')
      const ci = await startInTmux(['version'], {env: {...terminalEnv(cfg.dir), CI: 'true'}})
      expect(await ci.waitForExit()).toBe(0)
      expect(await ci.capture()).not.toContain('new release')
      const off = await startInTmux(['version'], {env: {...terminalEnv(cfg.dir), COMMERCE_SKIP_UPDATE_CHECK: '1'}})
      expect(await off.waitForExit()).toBe(0)
      expect(await off.capture()).not.toContain('new release')
    } finally {
      cfg.cleanup()
    }
  })

  it('an older release: nothing said', async () => {
    answer = 'older'
    const cfg = tempConfigDir()
    try {
      await versionOnTerminal(cfg.dir)
      await vi.waitFor(() => expect(JSON.parse(readFileSync(stateOf(cfg.dir), 'utf8'))).toMatchObject({latest: '0.0.1'}), {timeout: 10_000})
      expect(await versionOnTerminal(cfg.dir)).not.toContain('new release')
    } finally {
      cfg.cleanup()
    }
  })

  it('a registry that never answers: the command does not wait; the check gives up at its deadline and records the attempt', async () => {
    answer = 'silent'
    const cfg = tempConfigDir()
    try {
      await versionOnTerminal(cfg.dir)
      // The check records its attempt only when it gives up (5 s): no record yet means the command did not wait.
      expect(existsSync(stateOf(cfg.dir))).toBe(false)
      await vi.waitFor(() => expect(existsSync(stateOf(cfg.dir))).toBe(true), {interval: 200, timeout: 10_000})
      expect(JSON.parse(readFileSync(stateOf(cfg.dir), 'utf8')).latest).toBeUndefined()
      expect(await versionOnTerminal(cfg.dir)).not.toContain('new release')
    } finally {
      cfg.cleanup()
    }
  }, 20_000)
})
