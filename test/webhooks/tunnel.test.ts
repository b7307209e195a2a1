import {existsSync, readFileSync} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {delimiter, dirname, join, resolve} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {
  TunnelNotInstalledError,
  TunnelStartError,
  startTunnel,
  type Tunnel,
  type TunnelExit,
  type TunnelOptions,
  type TunnelProvider,
} from '../../src/webhooks/tunnel/index.js'
import {freePort} from '../../src/webhooks/tunnel/support.js'
import {deferred, tempDir} from '../helpers/webhooks.js'

const STAND_INS = resolve(import.meta.dirname, '../fixtures/bin')
// The stand-ins first, then only node's own directory (their shebang is `/usr/bin/env node`).
const PATH = [STAND_INS, dirname(process.execPath)].join(delimiter)
const URLS: Record<TunnelProvider, RegExp> = {
  cloudflared: /^https:\/\/[a-z0-9-]+\.trycloudflare\.com$/,
  ngrok: /^https:\/\/[a-z0-9-]+\.ngrok-free\.app$/,
}

/** What a stand-in wrote to FAKE_TUNNEL_ARGS_FILE. */
const standIn = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as {args: string[]; pid: number}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('tunnels, with stand-in binaries', () => {
  let tunnels: Tunnel[]
  let dir: ReturnType<typeof tempDir>
  beforeEach(() => {
    tunnels = []
    dir = tempDir()
  })
  afterEach(async () => {
    await Promise.all(tunnels.map((t) => t.stop()))
    dir.remove()
  })

  const start = async (provider: TunnelProvider, env: Record<string, string> = {}, options: Partial<TunnelOptions> = {}) => {
    const tunnel = await startTunnel(provider, {env: {PATH, ...env}, pollIntervalMs: 20, port: 4567, timeoutMs: 5000, ...options})
    tunnels.push(tunnel)
    return tunnel
  }
  const startError = (provider: TunnelProvider, env: Record<string, string>, options: Partial<TunnelOptions> = {}) =>
    start(provider, env, options).then(
      () => expect.unreachable('the tunnel started'),
      (error: unknown) => error as TunnelStartError,
    )

  describe.each(['cloudflared', 'ngrok'] as const)('%s', (provider) => {
    for (const via of ['both', 'log', 'api']) {
      it(`finds the public URL (given by ${via === 'both' ? 'the log and the local API' : `the ${via} only`})`, async () => {
        const tunnel = await start(provider, {FAKE_TUNNEL_URL_VIA: via})
        expect(tunnel.publicUrl).toMatch(URLS[provider])
        expect(isAlive(tunnel.process.pid!)).toBe(true)
      })
    }

    it('stops the binary with stop(), once, without calling onExit', async () => {
      const tunnel = await start(provider)
      let exits = 0
      tunnel.onExit(() => exits++)
      const pid = tunnel.process.pid!
      await Promise.all([tunnel.stop(), tunnel.stop()])
      await tunnel.stop()
      expect(isAlive(pid)).toBe(false)
      expect(tunnel.process.signalCode ?? tunnel.process.exitCode).not.toBeNull()
      expect(exits).toBe(0)
    })

    it('kills a binary that ignores SIGTERM after the grace period', async () => {
      const tunnel = await start(provider, {FAKE_TUNNEL_IGNORE_SIGTERM: '1'}, {graceMs: 100})
      await tunnel.stop()
      expect(tunnel.process.signalCode).toBe('SIGKILL')
      expect(isAlive(tunnel.process.pid!)).toBe(false)
    })

    it('calls onExit, with the last output, when the binary dies after giving its URL', async () => {
      const tunnel = await start(provider, {FAKE_TUNNEL_DIE_AFTER_MS: '100'})
      const exited = deferred<TunnelExit>()
      tunnel.onExit(exited.resolve)
      const exit = await exited.promise
      expect(exit.code).toBe(1)
      expect(exit.message).toContain(`${provider} exited with code 1`)
      expect(exit.lastLines.join('\n')).toMatch(provider === 'cloudflared' ? /no more connections active/ : /session closing: session closed/)
      // A callback registered after the death is called too.
      const late = deferred<TunnelExit>()
      tunnel.onExit(late.resolve)
      expect((await late.promise).code).toBe(1)
    })

    it('fails with its last output when the binary exits before giving a URL, leaving nothing running', async () => {
      const argsFile = join(dir.path, 'args.json')
      const error = await startError(provider, {FAKE_TUNNEL_ARGS_FILE: argsFile, FAKE_TUNNEL_FAIL: '1'})
      expect(isAlive(standIn(argsFile).pid)).toBe(false)
      expect(error).toBeInstanceOf(TunnelStartError)
      expect(error.provider).toBe(provider)
      expect(error.message).toContain(`${provider} exited with code 1 before giving a public URL`)
      expect(error.message).toMatch(provider === 'cloudflared' ? /failed to request quick Tunnel/ : /ERR_NGROK_4018/)
      expect(error.lastLines.length).toBeGreaterThan(0)
      expect(tunnels).toHaveLength(0)
    })

    it('fails after the timeout when no URL ever comes, and kills the binary', async () => {
      // On a busy machine the stand-in may not have run a line of its own by the deadline: the binary is known by the
      // process the tunnel started, not by what the stand-in wrote.
      const error = await startError(provider, {FAKE_TUNNEL_URL_VIA: 'none'}, {timeoutMs: 400})
      expect(error).toBeInstanceOf(TunnelStartError)
      expect(error.message).toContain(`${provider} gave no public URL within 0.4 s`)
      expect(error.pid).toBeGreaterThan(0)
      expect(isAlive(error.pid!)).toBe(false)
      // The busy machine itself: a stand-in that has run nothing of its own by the deadline (it wrote no file).
      const argsFile = join(dir.path, 'slow-args.json')
      const slow = await startError(
        provider,
        {FAKE_TUNNEL_ARGS_FILE: argsFile, FAKE_TUNNEL_SLOW_START_MS: '3000', FAKE_TUNNEL_URL_VIA: 'none'},
        {timeoutMs: 400},
      )
      expect(slow.message).toContain(`${provider} gave no public URL within 0.4 s`)
      expect(existsSync(argsFile)).toBe(false)
      expect(isAlive(slow.pid!)).toBe(false)
    })

    it('is a TunnelNotInstalledError, saying how to install it, when the binary is not on PATH', async () => {
      const error = (await startTunnel(provider, {env: {PATH: dir.path}, port: 4567}).catch((e: unknown) => e)) as Error
      expect(error).toBeInstanceOf(TunnelNotInstalledError)
      expect(error.message).toContain(`${provider} is not installed`)
      if (provider === 'cloudflared') {
        expect(error.message).toContain('brew install cloudflared')
        expect(error.message).toContain('apt-get install cloudflared')
        expect(error.message).toContain('https://developers.cloudflare.com/')
      } else {
        expect(error.message).toContain('https://ngrok.com/download')
      }
    })
  })

  it('runs cloudflared as a quick tunnel to the listener, with its metrics on a loopback port', async () => {
    const argsFile = join(dir.path, 'args.json')
    await start('cloudflared', {FAKE_TUNNEL_ARGS_FILE: argsFile})
    const {args} = standIn(argsFile)
    expect(args.slice(0, 4)).toEqual(['tunnel', '--url', 'http://127.0.0.1:4567', '--no-autoupdate'])
    expect(args[4]).toBe('--metrics')
    expect(args[5]).toMatch(/^127\.0\.0\.1:\d+$/)
  })

  it('runs ngrok against the IPv4 loopback address of the listener, with JSON logs on stdout', async () => {
    const argsFile = join(dir.path, 'args.json')
    await start('ngrok', {FAKE_TUNNEL_ARGS_FILE: argsFile})
    expect(standIn(argsFile).args).toEqual(['http', '127.0.0.1:4567', '--log', 'stdout', '--log-format', 'json'])
  })

  it("reads ngrok's agent API at NGROK_API_URL until the agent says where it listens", async () => {
    const port = await freePort()
    const tunnel = await start('ngrok', {
      FAKE_NGROK_QUIET_WEB: '1',
      FAKE_NGROK_WEB_ADDR: `127.0.0.1:${port}`,
      FAKE_TUNNEL_URL_VIA: 'api',
      NGROK_API_URL: `http://127.0.0.1:${port}`,
    })
    expect(tunnel.publicUrl).toMatch(URLS.ngrok)
  })

  it('ignores the tunnels of another ngrok agent already answering on the API address', async () => {
    // Another agent, exposing another port, holds the API address; ours never gets a URL.
    const other = createServer((_req, res) => {
      const tunnels = [{config: {addr: 'http://localhost:9999'}, public_url: 'https://other-agent.ngrok-free.app'}]
      res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({tunnels}))
    })
    await new Promise<void>((done) => other.listen(0, '127.0.0.1', done))
    try {
      const apiUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`
      const error = await startError('ngrok', {FAKE_NGROK_QUIET_WEB: '1', FAKE_TUNNEL_URL_VIA: 'none'}, {ngrokApiUrl: apiUrl, timeoutMs: 400})
      expect(error).toBeInstanceOf(TunnelStartError)
      expect(error.message).toContain('gave no public URL')
    } finally {
      other.close()
    }
  })

  it('passes every line of output to onLog', async () => {
    const lines: string[] = []
    await start('cloudflared', {}, {onLog: (line) => lines.push(line)})
    expect(lines.some((l) => l.includes('Your quick Tunnel has been created'))).toBe(true)
  })
})
