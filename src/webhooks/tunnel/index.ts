/**
 * Runs a tunnel binary (cloudflared or ngrok) from PATH and resolves with its public HTTPS URL. The child is
 * always stopped: by stop() (SIGTERM, then SIGKILL after a grace period), or when this process exits.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {createInterface} from 'node:readline'
import {cloudflared} from './cloudflared.js'
import {TunnelNotInstalledError, TunnelStartError, type TunnelProvider} from './tunnel-errors.js'
import {ngrok} from './ngrok.js'
import type {ProviderPlan, ProviderSpec} from './provider.js'
import {findExecutable} from './support.js'

export {TunnelError, TunnelNotInstalledError, TunnelStartError, type TunnelProvider} from './tunnel-errors.js'

export const TUNNEL_PROVIDERS: readonly TunnelProvider[] = ['cloudflared', 'ngrok']
const SPECS: Record<TunnelProvider, ProviderSpec> = {cloudflared, ngrok}
/** Lines kept from the binary's output, and how many of them an error message quotes. */
const LAST_LINES = 10
const QUOTED_LINES = 5

export interface TunnelOptions {
  /** The local port the tunnel exposes (the listener's, on 127.0.0.1). */
  port: number
  /** Environment of the child, and whose PATH is searched; defaults to process.env. */
  env?: NodeJS.ProcessEnv
  /** Time allowed to obtain the public URL; 30 s by default. */
  timeoutMs?: number
  /** Between SIGTERM and SIGKILL in stop(); 3 s by default. */
  graceMs?: number
  /** How often the provider's local API is asked for the URL; 200 ms by default. */
  pollIntervalMs?: number
  /** ngrok agent API before the agent logs its own address (else NGROK_API_URL, else http://127.0.0.1:4040). */
  ngrokApiUrl?: string
  /** Every line the binary prints (stdout and stderr), e.g. for --debug. */
  onLog?: (line: string) => void
}

export interface TunnelExit {
  code: number | null
  signal: NodeJS.Signals | null
  lastLines: string[]
  /** One readable sentence with the last output, for the user. */
  message: string
}

export interface Tunnel {
  publicUrl: string
  process: ChildProcess
  /** Idempotent; resolves once the child has exited. */
  stop(): Promise<void>
  /** Called once if the child exits on its own (not through stop()); at once if it already has. */
  onExit(callback: (exit: TunnelExit) => void): void
}

export async function startTunnel(provider: TunnelProvider, options: TunnelOptions): Promise<Tunnel> {
  const spec = SPECS[provider]
  const env = options.env ?? process.env
  const notInstalled = () => new TunnelNotInstalledError(`${spec.binary} is not installed (not found on PATH). ${spec.installHint}`, provider)
  const bin = findExecutable(spec.binary, env)
  if (!bin) throw notInstalled()
  const plan = await spec.plan(options.port, {env, ngrokApiUrl: options.ngrokApiUrl})

  const child = spawn(bin, plan.args, {env, stdio: ['ignore', 'pipe', 'pipe']})
  const lastLines: string[] = []
  let publicUrl: string | undefined
  let found: ((url: string) => void) | undefined
  const onLine = (line: string) => {
    if (line.trim() === '') return
    options.onLog?.(line)
    lastLines.push((plan.displayLine?.(line) ?? line).slice(0, 500))
    if (lastLines.length > LAST_LINES) lastLines.shift()
    const url = publicUrl ? undefined : plan.urlFromLine(line)
    if (url) found?.(url)
  }
  // Both streams are read for the child's whole life, or it would block on a full pipe.
  for (const stream of [child.stdout, child.stderr]) createInterface({crlfDelay: Infinity, input: stream}).on('line', onLine)

  let exitInfo: TunnelExit | undefined
  let stopRequested = false
  const exitCallbacks: Array<(exit: TunnelExit) => void> = []
  const exited = new Promise<TunnelExit>((resolve) => {
    const done = (code: number | null, signal: NodeJS.Signals | null) =>
      resolve((exitInfo ??= {code, lastLines: [...lastLines], message: `${spec.binary} ${howItEnded(code, signal)}${tail(lastLines)}`, signal}))
    // A spawn failure emits 'error' and no 'exit'.
    child.once('error', () => child.pid === undefined && done(null, null))
    // 'close' comes once the pipes are drained, so the last lines are in; unless a grandchild holds them open.
    child.once('exit', (code, signal) => {
      child.once('close', () => done(code, signal))
      setTimeout(() => done(code, signal), 200).unref()
    })
  })
  const killOnExit = () => child.kill('SIGTERM')
  process.once('exit', killOnExit)
  void exited.then((exit) => {
    process.removeListener('exit', killOnExit)
    if (!stopRequested && publicUrl) for (const callback of exitCallbacks.splice(0)) callback(exit)
  })

  let stopping: Promise<void> | undefined
  const stop = () =>
    (stopping ??= (async () => {
      stopRequested = true
      if (exitInfo) return
      child.kill('SIGTERM')
      const kill = setTimeout(() => child.kill('SIGKILL'), options.graceMs ?? 3000)
      await exited
      clearTimeout(kill)
    })())

  try {
    publicUrl = await waitForPublicUrl({
      exited,
      lastLines,
      listen: (resolve) => (found = resolve),
      notInstalled: () => (child.pid === undefined ? notInstalled() : undefined),
      plan,
      pollIntervalMs: options.pollIntervalMs ?? 200,
      provider,
      timeoutMs: options.timeoutMs ?? 30_000,
    })
  } catch (error) {
    await stop()
    if (error instanceof TunnelStartError) error.pid ??= child.pid
    throw error
  } finally {
    found = undefined
  }

  return {
    onExit(callback) {
      if (exitInfo && !stopRequested) queueMicrotask(() => callback(exitInfo!))
      else exitCallbacks.push(callback)
    },
    process: child,
    publicUrl,
    stop,
  }
}

function howItEnded(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `was killed by ${signal}`
  return code === null ? 'could not be started' : `exited with code ${code}`
}

function tail(lines: readonly string[]): string {
  return lines.length === 0 ? '.' : `. Its last output:\n  ${lines.slice(-QUOTED_LINES).join('\n  ')}`
}

/**
 * The first public URL a line of the binary's output gives (through `listen`) or a poll of its API finds;
 * rejects at the deadline, or when the binary exits first (not installed, when it never started).
 */
async function waitForPublicUrl(w: {
  plan: ProviderPlan
  provider: TunnelProvider
  exited: Promise<TunnelExit>
  lastLines: readonly string[]
  listen: (resolve: (url: string) => void) => void
  notInstalled: () => TunnelNotInstalledError | undefined
  timeoutMs: number
  pollIntervalMs: number
}): Promise<string> {
  const binary = SPECS[w.provider].binary
  let settled = false
  let pollTimer: NodeJS.Timeout | undefined
  let deadline: NodeJS.Timeout | undefined
  try {
    return await new Promise<string>((resolve, reject) => {
      w.listen(resolve)
      const poll = () => {
        void w.plan.poll().then((url) => {
          if (url) resolve(url)
          else if (!settled) pollTimer = setTimeout(poll, w.pollIntervalMs)
        })
      }
      poll()
      deadline = setTimeout(() => {
        const message = `${binary} gave no public URL within ${w.timeoutMs / 1000} s${tail(w.lastLines)}`
        reject(new TunnelStartError(message, w.provider, [...w.lastLines]))
      }, w.timeoutMs)
      void w.exited.then((exit) => {
        const missing = w.notInstalled()
        if (missing) return reject(missing)
        const message = `${binary} ${howItEnded(exit.code, exit.signal)} before giving a public URL${tail(exit.lastLines)}`
        reject(new TunnelStartError(message, w.provider, exit.lastLines))
      })
    })
  } finally {
    settled = true
    clearTimeout(pollTimer)
    clearTimeout(deadline)
  }
}
