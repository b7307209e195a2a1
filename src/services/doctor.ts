/**
 * `commerce doctor`: what stands between the user and a working CLI, one check a line (as `flutter doctor` and
 * `brew doctor` do), each with its fix. Checks run at once, each under its own deadline, so the whole report comes
 * within a few seconds whatever a peer does (a service that accepts and never answers, a keyring that hangs).
 */

import type {ApiClient, ClientOptions} from '../api/client.js'
import {originOf} from '../api/origin.js'
import {keyringAnswers} from '../config/keyring.js'
import type {Profile} from '../config/config-schema.js'
import type {AuthContext} from './credentials.js'
import {monotonicMs} from '../domain/clock.js'
import {isLoopbackHost} from '../domain/url.js'
import {ApiError, CliError} from '../errors.js'
import {type Check, fail, ok, warn} from './doctor-check.js'
import {configCheck, proxyCheck, sandboxCheck} from './doctor-local.js'
import {installKind} from './update-check.js'
import {listWebhooks, staleListenEndpoints, type WebhookContext} from './webhooks/endpoints.js'

export type {Check} from './doctor-check.js'

/** What the checks use of the command's context (base's Context satisfies it). */
export interface DoctorContext extends AuthContext, WebhookContext {
  client(overrides?: Partial<ClientOptions>): Promise<ApiClient>
}

export interface DoctorOptions {
  ctx: DoctorContext
  /** The CLI's version, its root folder and how it was installed (said by the command, which knows its config). */
  cli: {version: string; root: string; execPath: string; env: NodeJS.ProcessEnv}
  /** Each check's deadline (default 3 s): the report as a whole comes within it and a little more. */
  deadlineMs?: number
  now?: () => number
}

/** How far the local clock may be from the service's before tokens' expiry is judged wrongly. */
export const CLOCK_SKEW_WARN_SECONDS = 30

/** Runs `work`, or says it did not finish in time: a check never waits past its deadline. */
async function within(name: string, ms: number, work: () => Promise<Check>, onLate?: () => void): Promise<Check> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<Check>((resolve) => {
    timer = setTimeout(() => {
      onLate?.()
      resolve(fail(name, `no answer within ${ms / 1000} s`, 'See the checks above; `commerce doctor --debug` shows where it waits.'))
    }, ms)
  })
  try {
    return await Promise.race([
      work().catch((error: unknown) => fail(name, error instanceof Error ? error.message : String(error), 'See the message.')),
      late,
    ])
  } finally {
    clearTimeout(timer)
  }
}

export async function doctor(o: DoctorOptions): Promise<Check[]> {
  const ms = o.deadlineMs ?? 3000
  const now = o.now ?? Date.now
  const {ctx} = o
  // One client for the checks that talk to the service: no backoff between retries, closed at the deadline.
  let client: ApiClient | undefined
  const getClient = async () => (client ??= await ctx.client({maxWaitSeconds: 0, sleep: async () => {}, timeoutMs: Math.max(200, ms - 600)}))
  const closeClient = () => void client?.close().catch(() => {})
  // A config file that cannot be read (not JSON, a key of the wrong type): the config check says why, as a command
  // would, and the checks that need the file say so instead of guessing at a fix of their own.
  const unreadable = await ctx.store.read().then(
    () => undefined,
    (error: unknown) => (error instanceof CliError ? {hint: error.hint, message: error.message} : undefined),
  )
  const needsConfig = (name: string) => fail(name, 'not checked: the config file cannot be read (see config)', unreadable?.hint ?? 'See config.')
  const profile = await ctx.profile().catch(() => undefined)
  const baseUrl = await ctx.baseUrl().catch(() => undefined)
  const service = serviceCheck(getClient, baseUrl, now)
  const checks = await Promise.all([
    Promise.resolve(cliCheck(o.cli)),
    Promise.resolve(configCheck(ctx.store, unreadable)),
    unreadable ? needsConfig('profile') : profileCheck(ctx, profile, baseUrl),
    within('keyring', ms, () => keyringCheck(profile, ms)),
    unreadable ? needsConfig('token') : within('token', ms, () => tokenCheck(ctx, getClient, baseUrl), closeClient),
    within('service', ms, async () => (await service).check, closeClient),
    within('clock', ms, async () => (await service).clock),
    Promise.resolve(proxyCheck(ctx.env)),
    unreadable ? needsConfig('webhooks') : within('webhooks', ms, () => webhooksCheck(ctx, getClient, profile, baseUrl)),
    within('sandbox', ms, async () => sandboxCheck(ctx.env, (await service).check.status === 'fail' && isLoopbackUrl(baseUrl) ? baseUrl : undefined)),
  ])
  closeClient()
  return checks
}

/** Whether a base URL names this machine (a local sandbox's, typically). */
function isLoopbackUrl(url: string | undefined): url is string {
  try {
    return url !== undefined && isLoopbackHost(new URL(url).hostname)
  } catch {
    return false
  }
}

function cliCheck(cli: DoctorOptions['cli']): Check {
  const kind = installKind(cli.root, cli.execPath, cli.env)
  return ok('cli', `commerce ${cli.version} on Node ${process.version} (${process.platform}-${process.arch}), installed from ${kind}: ${cli.root}`)
}

async function profileCheck(ctx: DoctorContext, profile: Profile | undefined, baseUrl: string | undefined): Promise<Check> {
  const name = await ctx.profileName().catch(() => 'default')
  if (!baseUrl)
    return fail('profile', `profile "${name}" has no base URL`, '`commerce auth login --sandbox`, or `commerce auth login --base-url URL`')
  const creds = await ctx.credentials().catch(() => undefined)
  const where =
    creds?.source === 'profile'
      ? `its key ${creds.keyId} in the ${creds.storage === 'keyring' ? 'OS keyring' : 'config file'}`
      : creds?.source && creds.source !== 'none'
        ? `credentials from ${creds.source}`
        : 'no credentials'
  const bound = profile?.credentials_origin
  if (creds?.source === 'profile' && bound && bound !== originOf(baseUrl))
    return fail(
      'profile',
      `profile "${name}" at ${baseUrl}: its key pair is bound to ${bound}`,
      `\`commerce auth login --profile NAME --base-url URL\`, with NAME ${name} and URL ${baseUrl}`,
    )
  return ok('profile', `profile "${name}" at ${originOf(baseUrl) ?? baseUrl}, ${where}`)
}

async function keyringCheck(profile: Profile | undefined, ms: number): Promise<Check> {
  const needed = profile?.storage === 'keyring'
  const answers = await keyringAnswers(Math.max(100, ms - 200))
  if (answers) return ok('keyring', `the OS keyring answers${needed ? ' (the profile keeps its secret there)' : ''}`)
  if (needed)
    return fail(
      'keyring',
      'the profile keeps its secret in the OS keyring, which does not answer',
      'Unlock or start the keyring (gnome-keyring, KWallet, Keychain), or keep the secret in the file: `commerce config set storage file`',
    )
  return warn(
    'keyring',
    'no OS keyring answers (secrets are kept in the config file, 0600)',
    'Optional: start a keyring, then `commerce config set storage keyring`',
  )
}

async function tokenCheck(ctx: DoctorContext, getClient: () => Promise<ApiClient>, baseUrl: string | undefined): Promise<Check> {
  const creds = await ctx.credentials()
  if (creds.source === 'none')
    return fail('token', 'not logged in', '`commerce auth login`, or `commerce auth login --sandbox` for the local sandbox')
  if (!baseUrl) return fail('token', 'no base URL to check it with', '`commerce auth login --base-url URL`')
  const {status} = await import('./auth-status.js')
  const client = await getClient()
  const view: AuthContext = {
    baseUrl: () => ctx.baseUrl(),
    client: async () => client,
    credentials: () => ctx.credentials(),
    env: ctx.env,
    profileName: () => ctx.profileName(),
    store: ctx.store,
    userFlags: () => ctx.userFlags(),
  }
  const result = await status(view)
  if (!result.logged_in) return fail('token', result.reason ?? 'the service refuses the credentials', '`commerce auth login`')
  if (creds.source === 'COMMERCE_ACCESS_TOKEN') return ok('token', 'COMMERCE_ACCESS_TOKEN (used as given; it cannot be checked further)')
  const left = result.expires_at ? Math.round((Date.parse(result.expires_at) - Date.now()) / 60_000) : undefined
  return ok(
    'token',
    `accepted by the service; scopes ${result.scopes?.join(', ') || 'unknown'}${left === undefined ? '' : `; expires in ${left} min`}`,
  )
}

async function serviceCheck(
  getClient: () => Promise<ApiClient>,
  baseUrl: string | undefined,
  now: () => number,
): Promise<{check: Check; clock: Check}> {
  if (!baseUrl) {
    const none = fail('service', 'no base URL', '`commerce auth login --sandbox`, or set COMMERCE_BASE_URL')
    return {check: none, clock: warn('clock', 'not compared: no service', 'See the service check.')}
  }
  const started = monotonicMs()
  let res
  try {
    res = await (await getClient()).request({auth: false, method: 'GET', path: '/products', query: {per_page: 1}, version: 'v2'})
  } catch (error) {
    // An HTTP error is an answer: the service is reachable.
    if (!(error instanceof ApiError) || error.status === null) {
      const message = error instanceof Error ? error.message : String(error)
      return {
        check: fail(
          'service',
          message,
          'Check the base URL (`commerce config get base_url`), your network and proxy; for the sandbox: `commerce sandbox start --detach`',
        ),
        clock: warn('clock', 'not compared: the service did not answer', 'See the service check.'),
      }
    }
    return {
      check: warn('service', `${baseUrl} answers HTTP ${error.status} to a product list`, 'Check the base URL: it may not be the Commerce Service.'),
      clock: warn('clock', 'not compared', 'See the service check.'),
    }
  }
  const latency = Math.round(monotonicMs() - started)
  const sunset = res.headers.sunset ?? res.headers.deprecation
  const check = sunset
    ? warn(
        'service',
        `${baseUrl} answers in ${latency} ms, and says it is deprecated (Sunset: ${res.headers.sunset ?? 'not given'})`,
        'Use API v2: `commerce config set api_version v2`',
      )
    : ok('service', `${baseUrl} answers in ${latency} ms`)
  return {check, clock: clockCheck(res.headers.date, now())}
}

function clockCheck(date: string | undefined, now: number): Check {
  const theirs = date === undefined ? Number.NaN : Date.parse(date)
  if (Number.isNaN(theirs))
    return warn('clock', 'the service sent no Date header to compare with', 'Nothing to do unless tokens seem to expire early.')
  const skew = Math.round((now - theirs) / 1000)
  if (Math.abs(skew) > CLOCK_SKEW_WARN_SECONDS)
    return warn(
      'clock',
      `this machine's clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the service's (tokens expire by the service's clock)`,
      'Set the clock right: timedatectl set-ntp true (or your system settings).',
    )
  return ok('clock', `within ${Math.max(1, Math.abs(skew))} s of the service's`)
}

async function webhooksCheck(
  ctx: DoctorContext,
  getClient: () => Promise<ApiClient>,
  profile: Profile | undefined,
  baseUrl: string | undefined,
): Promise<Check> {
  const mine = Object.keys(profile?.listen_endpoints ?? {})
  if (mine.length === 0 || !baseUrl) return ok('webhooks', 'no endpoint registered by webhooks listen for this profile')
  const {endpoints} = await listWebhooks(await getClient())
  const stale = await staleListenEndpoints(ctx, endpoints)
  const live = endpoints.filter((e) => mine.includes(e.id) && !stale.has(e.id)).length
  if (stale.size > 0)
    return warn(
      'webhooks',
      `${stale.size === 1 ? '1 endpoint registered by webhooks listen no longer reaches' : `${stale.size} endpoints registered by webhooks listen no longer reach`} a listener (${[...stale].join(', ')})${live > 0 ? `; ${live} still ${live === 1 ? 'does' : 'do'}` : ''}`,
      `Run ${reuseCommands(endpoints.filter((e) => stale.has(e.id)))} to reuse ${stale.size === 1 ? 'it' : 'them'}; the service cannot delete endpoints.`,
    )
  return ok('webhooks', `${live} endpoint${live === 1 ? '' : 's'} of webhooks listen, each answered by its listener`)
}

/**
 * The listen command that takes a stale endpoint back: the same port for a loopback URL (`--port 4000`), the same
 * public URL otherwise (`--public-url https://…`); the URL is the service's, so only a port or a URL of plain
 * characters is repeated in a command.
 */
function reuseCommands(endpoints: ReadonlyArray<{url: string}>): string {
  const commands = endpoints.map(({url}) => {
    try {
      const u = new URL(url)
      if (['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname) && u.port !== '') return `\`commerce webhooks listen --port ${Number(u.port)}\``
      if (/^https:\/\/[\w.-]+(:\d+)?(\/[\w./-]*)?$/.test(url)) return `\`commerce webhooks listen --public-url ${url}\``
    } catch {}
    return '`commerce webhooks listen` at the same port or public URL'
  })
  return [...new Set(commands)].join(' or ')
}
