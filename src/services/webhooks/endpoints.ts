/**
 * Webhook endpoints (v2 only): list, register, and the signing secrets the profile keeps by endpoint id. The
 * service has no operation to delete or change an endpoint: one registered stays registered.
 */
import type {ApiClient} from '../../api/client.js'
import {isSandboxUrl} from '../../config/sandbox-state.js'
import {type ConfigStore, ensureProfile, type Profile} from '../../config/config-store.js'
import type {WebhookEndpoint} from '../../domain/schema.js'
import {validateWebhookCreate} from '../../domain/validate.js'
import {CliError} from '../../errors.js'
import {listening} from '../../webhooks/probe.js'
import {assertValid} from '../validation.js'

/** What the webhook services use of the command's context (base's Context satisfies it). */
export interface WebhookContext {
  readonly store: ConfigStore
  readonly env: NodeJS.ProcessEnv
  profileName(): Promise<string>
  profile(): Promise<Profile | undefined>
  baseUrl(): Promise<string>
  client(): Promise<ApiClient>
}

export interface EndpointList {
  endpoints: WebhookEndpoint[]
  /** meta.total when the service sent one. */
  total?: number
}

/** GET /api/v2/webhooks: one answer (the operation takes no parameters), a page envelope or a bare array. */
export async function listWebhooks(client: ApiClient): Promise<EndpointList> {
  const {body} = await client.request({auth: true, method: 'GET', path: '/webhooks', version: 'v2'})
  if (Array.isArray(body)) return {endpoints: body as WebhookEndpoint[]}
  const page = body as {data?: unknown; meta?: {total?: unknown}} | null
  if (!page || !Array.isArray(page.data)) throw new CliError('Unexpected response: expected the list of webhook endpoints.')
  return {endpoints: page.data as WebhookEndpoint[], total: typeof page.meta?.total === 'number' ? page.meta.total : undefined}
}

/** "order.paid,order.paid" or repeated flags -> distinct names, in order. */
export function splitEvents(values: readonly string[]): string[] {
  return [
    ...new Set(
      values
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter(Boolean),
    ),
  ]
}

/**
 * Refuses a body the service would refuse (exit 2, nothing sent). Loopback http is admitted only when the base
 * URL is the running local sandbox, which delivers on this machine.
 */
export function checkEndpointInput(input: {url: string; events: string[]}, baseUrl: string, env: NodeJS.ProcessEnv): void {
  assertValid('webhook endpoint', validateWebhookCreate(input, isSandboxUrl(baseUrl, env)))
}

export interface CreatedEndpoint {
  /** As the service returned it, signing_secret included. */
  endpoint: WebhookEndpoint & {signing_secret: string}
  /** The profile the secret was stored in. */
  profile: string
  /** Said to the person: the sandbox may not reach the URL (sandboxDeliveryNote). */
  note?: string
}

/** POST /api/v2/webhooks, then keeps the signing secret in the profile under the endpoint's id. */
export async function createWebhook(ctx: WebhookContext, input: {url: string; events: string[]}): Promise<CreatedEndpoint> {
  const client = await ctx.client()
  checkEndpointInput(input, client.baseUrl, ctx.env)
  const {body} = await client.request<WebhookEndpoint>({auth: true, body: input, method: 'POST', path: '/webhooks', version: 'v2'})
  if (typeof body?.id !== 'string' || typeof body.signing_secret !== 'string' || body.signing_secret === '')
    throw new CliError('Unexpected response: the registered endpoint has no id or signing secret.')
  const endpoint = body as CreatedEndpoint['endpoint']
  const profile = await storeSigningSecret(ctx, endpoint.id, endpoint.signing_secret)
  return {endpoint, note: sandboxDeliveryNote(client.baseUrl, input.url, ctx.env), profile}
}

/**
 * The local sandbox delivers from this machine: to a host off it (a README's hooks.example.com) it tries and retries
 * in vain. Said when such an endpoint is registered there, with the way to a receiver here.
 */
function sandboxDeliveryNote(baseUrl: string, url: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!isSandboxUrl(baseUrl, env)) return undefined
  let host: string
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '')
  } catch {
    return undefined
  }
  if (['127.0.0.1', 'localhost', '::1'].includes(host)) return undefined
  return `The local sandbox delivers from this machine, and ${host} may not be reachable from it (it retries for about 15 minutes). For a receiver here, register http://127.0.0.1:PORT/… (\`commerce webhooks listen\` runs one).`
}

export async function storeSigningSecret(ctx: WebhookContext, endpointId: string, secret: string): Promise<string> {
  const name = await ctx.profileName()
  await ctx.store.update((data) => {
    const profile = ensureProfile(data, name)
    profile.webhook_secrets = {...profile.webhook_secrets, [endpointId]: secret}
  })
  return name
}

/** The URL as a comparable string (`https://h` and `https://h/` are one endpoint). */
/**
 * The registered endpoint for this URL and these events, if one is: what a create safe to repeat returns instead of a
 * second endpoint (the API can delete none).
 */
export async function endpointFor(client: ApiClient, input: {url: string; events: readonly string[]}): Promise<WebhookEndpoint | undefined> {
  const events = [...input.events].sort().join()
  return (await listWebhooks(client)).endpoints.find((e) => sameUrl(e.url, input.url) && [...e.events].sort().join() === events)
}

export function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href
  } catch {
    return a === b
  }
}

export interface ListenEndpoint {
  endpoint: WebhookEndpoint
  secret: string
  /** The secrets of the other endpoints at the same URL that the profile holds: their deliveries verify too. */
  otherSecrets: string[]
  reused: boolean
}

/**
 * The endpoint `webhooks listen` receives on: one already registered for `url` whose secret the profile holds
 * and that subscribes to every event wanted (extra events are answered "ignored" by the listener), else a new one.
 */
export async function ensureListenEndpoint(
  ctx: WebhookContext,
  existing: readonly WebhookEndpoint[],
  input: {url: string; events: string[]},
): Promise<ListenEndpoint> {
  const secrets = (await ctx.profile())?.webhook_secrets ?? {}
  const reusable = existing.find(
    (e) =>
      typeof e.url === 'string' &&
      sameUrl(e.url, input.url) &&
      secrets[e.id] !== undefined &&
      (!Array.isArray(e.events) || input.events.every((name) => e.events.includes(name))),
  )
  // Every endpoint at this URL whose secret the profile holds may deliver here (one registered by a run with other
  // events): the listener verifies with all of their secrets.
  const atUrl = existing.filter((e) => typeof e.url === 'string' && sameUrl(e.url, input.url) && secrets[e.id] !== undefined)
  const others = (chosen: string) => atUrl.filter((e) => e.id !== chosen).map((e) => secrets[e.id])
  if (reusable) return {endpoint: reusable, otherSecrets: others(reusable.id), reused: true, secret: secrets[reusable.id]}
  const {endpoint} = await createWebhook(ctx, input)
  // Remembered as a listen endpoint: once its listener has gone, `webhooks list` says so (it cannot be deleted).
  const name = await ctx.profileName()
  await ctx.store.update((data) => {
    const profile = ensureProfile(data, name)
    profile.listen_endpoints = {...profile.listen_endpoints, [endpoint.id]: input.url}
  })
  return {endpoint, otherSecrets: others(endpoint.id), reused: false, secret: endpoint.signing_secret}
}

/** How long `webhooks list` waits for each listen endpoint's listener to answer. */
const LISTENING_TIMEOUT_MS = 1000

/**
 * Of the endpoints this profile's `webhooks listen` registered, those whose listener no longer answers (checked
 * in parallel, a second each): stale, since the service has no operation to delete an endpoint.
 */
export async function staleListenEndpoints(ctx: WebhookContext, endpoints: readonly WebhookEndpoint[]): Promise<Set<string>> {
  const registered = (await ctx.profile())?.listen_endpoints ?? {}
  const ours = endpoints.filter((e) => typeof e.url === 'string' && registered[e.id] !== undefined)
  const alive = await Promise.all(ours.map((e) => listening(e.url, LISTENING_TIMEOUT_MS)))
  return new Set(ours.filter((_, i) => !alive[i]).map((e) => e.id))
}
