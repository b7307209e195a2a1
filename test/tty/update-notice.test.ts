/**
 * The update notice (src/services/update-check.ts) on a real terminal, against a registry stub on loopback: a newer
 * release of this project is named with the way to update after the day's detached check, once a day; an older one,
 * a release of another repository under our name, an answer over 1 MiB, or a registry that never answers, shows
 * nothing; never with --json, without a terminal, or under CI; concurrent commands start one check; a state that
 * cannot be written backs off; a FIFO planted at the state file hangs nothing; and the command never waits for it.
 */
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {ROOT, run, tempConfigDir} from '../helpers/cli.js'
import {startInTmux} from '../helpers/tmux.js'

let registry: Server
let url = ''
let answer: 'newer' | 'older' | 'silent' | 'foreign' | 'huge' = 'newer'
const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {name: string; repository: {url: string}}
const LATEST = `/${pjson.name}/latest`
const asked: string[] = []
const held: ServerResponse[] = []

beforeAll(async () => {
  registry = createServer((req: IncomingMessage, res: ServerResponse) => {
    asked.push(req.url ?? '')
    if (answer === 'silent') return void held.push(res)
    res.writeHead(200, {'content-type': 'application/json'})
    // The registry's answer for a version names its repository; a package of our name published by someone else
    // names theirs.
    const repository = answer === 'foreign' ? {type: 'git', url: 'git+https://github.com/someone-else/commerce-cli.git'} : pjson.repository
    const manifest = {name: pjson.name, repository, version: answer === 'older' ? '0.0.1' : '9.9.9'}
    if (answer === 'huge') res.end(JSON.stringify({...manifest, padding: 'x'.repeat(2 * 1024 * 1024)}))
    else res.end(JSON.stringify(manifest))
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
      expect(asked).toContain(LATEST)
      const second = await versionOnTerminal(cfg.dir)
      expect(second).toMatch(/A new release of commerce is available: 0\.1\.0 → 9\.9\.9\. To update: git pull && npm ci && npm run build/)
      // Asked once a day: the second run read the file and asked nothing.
      expect(asked.filter((a) => a === LATEST)).toHaveLength(1)
      // Shown once a day: the third run says nothing.
      expect(await versionOnTerminal(cfg.dir)).not.toContain('new release')
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

  it('wrapped at the terminal width, at 80 columns no word is split', async () => {
    answer = 'newer'
    const cfg = tempConfigDir()
    try {
      await versionOnTerminal(cfg.dir)
      await vi.waitFor(() => expect(JSON.parse(readFileSync(stateOf(cfg.dir), 'utf8'))).toMatchObject({latest: '9.9.9'}), {timeout: 10_000})
      const term = await startInTmux(['version'], {env: terminalEnv(cfg.dir), width: 80})
      expect(await term.waitForExit()).toBe(0)
      const lines = (await term.capture()).split('\n')
      const notice = lines.slice(lines.findIndex((l) => l.startsWith('A new release')))
      expect(notice.length).toBeGreaterThan(2)
      for (const line of notice) expect(line.length).toBeLessThanOrEqual(80)
      expect(notice.join(' ')).toContain('COMMERCE_SKIP_UPDATE_CHECK=1 turns this off.')
    } finally {
      cfg.cleanup()
    }
  })

  it('a release of our name whose manifest names another repository, or an answer over 1 MiB: nothing offered', async () => {
    for (const kind of ['foreign', 'huge'] as const) {
      answer = kind
      const cfg = tempConfigDir()
      try {
        await versionOnTerminal(cfg.dir)
        await vi.waitFor(() => expect(existsSync(stateOf(cfg.dir))).toBe(true), {interval: 100, timeout: 10_000})
        expect(JSON.parse(readFileSync(stateOf(cfg.dir), 'utf8')).latest, kind).toBeUndefined()
        expect(await versionOnTerminal(cfg.dir), kind).not.toContain('new release')
      } finally {
        cfg.cleanup()
      }
    }
  })

  it('eight commands at once start one check; a state that cannot be written is not asked for again on every command', async () => {
    answer = 'newer'
    const cfg = tempConfigDir()
    try {
      const before = asked.length
      const terms = await Promise.all(Array.from({length: 8}, () => startInTmux(['version'], {env: terminalEnv(cfg.dir)})))
      for (const term of terms) expect(await term.waitForExit()).toBe(0)
      await vi.waitFor(() => expect(existsSync(stateOf(cfg.dir))).toBe(true), {interval: 100, timeout: 10_000})
      expect(asked.length - before).toBe(1)

      // update-check.json cannot be written (a directory stands at its name): one attempt, then none for a while.
      const stuck = tempConfigDir()
      try {
        mkdirSync(stateOf(stuck.dir), {recursive: true})
        const start = asked.length
        await versionOnTerminal(stuck.dir)
        await vi.waitFor(() => expect(asked.length).toBe(start + 1), {interval: 100, timeout: 10_000})
        await new Promise((resolve) => setTimeout(resolve, 500))
        await versionOnTerminal(stuck.dir)
        await versionOnTerminal(stuck.dir)
        await new Promise((resolve) => setTimeout(resolve, 500))
        expect(asked.length).toBe(start + 1)
      } finally {
        stuck.cleanup()
      }
    } finally {
      cfg.cleanup()
    }
  }, 60_000)

  it('a FIFO or a link planted at the state file: the command ends at once, nothing read through it', async () => {
    answer = 'newer'
    const cfg = tempConfigDir()
    try {
      mkdirSync(cfg.dir, {recursive: true})
      execFileSync('mkfifo', [stateOf(cfg.dir)])
      const term = await startInTmux(['version'], {env: terminalEnv(cfg.dir)})
      expect(await term.waitForExit(10_000)).toBe(0)
      // The day's check replaced the FIFO with a file of its own.
      await vi.waitFor(() => expect(statSync(stateOf(cfg.dir)).isFile()).toBe(true), {interval: 100, timeout: 10_000})
    } finally {
      cfg.cleanup()
    }
    const linked = tempConfigDir()
    try {
      mkdirSync(linked.dir, {recursive: true})
      // A link to a state that says a newer release exists: never read through.
      const elsewhere = join(linked.dir, '..', `${linked.dir.split('/').at(-1)}-elsewhere.json`)
      writeFileSync(elsewhere, JSON.stringify({checked_at: Date.now(), latest: '9.9.9'}))
      execFileSync('ln', ['-s', elsewhere, stateOf(linked.dir)])
      answer = 'older'
      expect(await versionOnTerminal(linked.dir)).not.toContain('new release')
      expect(JSON.parse(readFileSync(elsewhere, 'utf8')).latest).toBe('9.9.9')
      execFileSync('rm', ['-f', elsewhere])
    } finally {
      linked.cleanup()
    }
  }, 30_000)

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
