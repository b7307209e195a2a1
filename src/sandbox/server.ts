/**
 * `startSandbox()`: the whole service on node:http, plus the control path. Every request is answered,
 * whatever it holds: handler errors become `{message}` replies (a 500 for anything unexpected).
 */
import {createServer, type IncomingMessage, type ServerResponse, STATUS_CODES} from 'node:http'
import type {AddressInfo, Socket} from 'node:net'

import {type MoneyUnit, RATE_LIMITS} from '../domain/schema.js'
import {apiRoutes} from './api.js'
import {controlRoutes} from './control.js'
import type {Core} from './core.js'
import {
  CONTROL_PREFIX,
  DELIVERY_LOG_LIMIT,
  DELIVERY_RETRY_DELAYS_MS,
  DELIVERY_TIMEOUT_MS,
  MAX_BODY_BYTES,
  MAX_JSON_DEPTH,
  MONEY_UNIT_SETTING,
  REQUEST_LOG_BODY_BYTES,
  REQUEST_LOG_FILE_BYTES,
  REQUEST_LOG_LIMIT,
  V1_DEPRECATION_HEADER,
  V1_SUNSET_HEADER,
} from './decisions.js'
import {Deliveries, type DeliveryAttempt} from './deliveries.js'
import {allowedHosts, checkControlRequest} from './guard.js'
import {errorReply, HttpError, readJsonBody, type Reply, Router, writeReply} from './http.js'
import {describeFault, type FaultRule, Faults} from './faults.js'
import {RequestLog} from './request-log.js'
import {applyScenario, type ScenarioIds} from './scenario.js'
import {SnapshotShelf} from './snapshots.js'
import {DataFile, loadSnapshot} from './persistence.js'
import {type Limit, RateLimiter} from './rate-limit.js'
import {CATALOGUE, newKeyPairs, seedDemoData} from './seed.js'
import {type KeyPair, Store} from './store.js'
import {Tokens} from './tokens.js'

export interface SandboxOptions {
  /** Default 127.0.0.1. */
  host?: string
  /** Default 0: an ephemeral port. */
  port?: number
  /** JSON file holding the data across restarts; in memory when absent. */
  dataFile?: string
  /** Token lifetime; default 3600. */
  tokenTtlSeconds?: number
  /** Milliseconds since the epoch: token expiry, rate-limit windows, timestamps, signature timestamps. */
  now?: () => number
  /** Order creation (v1 and v2 together, per key pair); default 10 per 60 s. */
  orderLimit?: Limit
  /** GET /api/v1/customers per key pair; default 60 per 60 s. */
  v1CustomersLimit?: Limit
  /** GET /api/v1/products per client address; default 300 per 60 s. */
  v1ProductsLimit?: Limit
  /** Delays before each delivery retry; default DELIVERY_RETRY_DELAYS_MS (real time, not `now`). */
  retryDelaysMs?: readonly number[]
  /** How long a receiver has to answer a delivery; default 10 s. */
  deliveryTimeoutMs?: number
  /** Seed demo customers and orders when the data store is new. */
  seedDemoData?: boolean
  /** The journal is compacted once larger than this and than the data file; default 4 MiB (tests set less). */
  journalCompactBytes?: number
  /** Where `snapshot save` keeps named snapshots; in memory when absent. */
  snapshotDir?: string
  /** The request log: also appended to this file as JSON lines (e.g. sandbox.log); in memory only when absent. */
  requestLogFile?: string
  /** Where unexpected errors are reported (never request bodies or secrets); default stderr. */
  log?: (line: string) => void
}

export interface SandboxCounts {
  customers: number
  orders: number
  refunds: number
  webhooks: number
  products: number
  pending_deliveries: number
  delivery_attempts: number
}

export interface Sandbox {
  /** `http://host:port`, no trailing slash. */
  readonly baseUrl: string
  readonly host: string
  readonly port: number
  /** Two key pairs: the first has every scope, the second `customers:read` only. */
  readonly keys: readonly KeyPair[]
  /** The unit of its amounts (decisions.ts), for the profile of `auth login --sandbox`. */
  readonly moneyUnit: MoneyUnit
  readonly dataFile: string | undefined
  counts(): SandboxCounts
  /** Delivery attempts so far, oldest first. */
  deliveries(): DeliveryAttempt[]
  /** Resolves when no delivery is in flight or waiting for a retry. */
  deliveriesSettled(): Promise<void>
  /** Applies a scenario (see scenario.ts): names -> ids; throws (nothing created) when any entry is wrong. */
  seed(scenario: unknown): Promise<ScenarioIds>
  /** Stops listening, drops pending deliveries, writes the data file. Idempotent. */
  close(): Promise<void>
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const now = options.now ?? Date.now
  const log = options.log ?? ((line: string) => process.stderr.write(`sandbox: ${line}\n`))
  const snapshot = options.dataFile ? await loadSnapshot(options.dataFile) : undefined
  const store = snapshot ? new Store(snapshot) : Store.empty(newKeyPairs())
  if (!snapshot && options.seedDemoData) seedDemoData(store, now())

  const dataFile = options.dataFile
    ? new DataFile(
        options.dataFile,
        () => store.snapshot(),
        (e) => log(`could not write ${options.dataFile}: ${e.message}`),
        options.journalCompactBytes,
      )
    : undefined
  if (dataFile) {
    await dataFile.open(snapshot?.seq ?? 0)
    store.onChange = (change, next) => dataFile.record(change, next)
  }

  const requestLog = new RequestLog({
    file: options.requestLogFile,
    limit: REQUEST_LOG_LIMIT,
    maxBodyBytes: REQUEST_LOG_BODY_BYTES,
    maxFileBytes: REQUEST_LOG_FILE_BYTES,
    onError: (e) => log(`could not write the request log: ${e.message}`),
  })
  const core: Core = {
    faults: new Faults(),
    requestLog,
    deliveries: new Deliveries({
      logLimit: DELIVERY_LOG_LIMIT,
      now,
      retryDelaysMs: options.retryDelaysMs ?? DELIVERY_RETRY_DELAYS_MS,
      timeoutMs: options.deliveryTimeoutMs ?? DELIVERY_TIMEOUT_MS,
      userAgent: 'commerce-sandbox/1',
    }),
    limits: {
      orders: new RateLimiter(now, options.orderLimit ?? RATE_LIMITS.orderCreate),
      v1Customers: new RateLimiter(now, options.v1CustomersLimit ?? RATE_LIMITS.v1CustomersList),
      v1Products: new RateLimiter(now, options.v1ProductsLimit ?? RATE_LIMITS.v1ProductsList),
    },
    now,
    store,
    tokens: new Tokens(now, options.tokenTtlSeconds ?? 3600),
  }

  const counts = (): SandboxCounts => ({
    ...store.counts(),
    delivery_attempts: core.deliveries.entries().length,
    pending_deliveries: core.deliveries.pending,
    products: CATALOGUE.length,
  })

  const router = new Router()
  apiRoutes(router, core)
  let baseUrl = ''
  let controlHosts = new Set<string>()
  controlRoutes(router, core, new SnapshotShelf(options.snapshotDir), () => ({service: 'commerce sandbox', base_url: baseUrl, counts: counts()}))

  const server = createServer({requestTimeout: 30_000}, (req, res) => void handle(req, res))
  server.on('clientError', answerClientError)

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now()
    const at = now()
    const target = req.url ?? '/'
    const q = target.indexOf('?')
    const path = q < 0 ? target : target.slice(0, q)
    const method = req.method ?? 'GET'
    let fault: FaultRule | undefined
    let parsedBody: Promise<unknown> | undefined
    let requestBody: unknown = null
    let reply: Reply
    try {
      if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) checkControlRequest(req, controlHosts)
      fault = path.startsWith('/api/') ? core.faults.take(method, path) : undefined
      if (fault) {
        if (fault.delay_ms) await new Promise((resolve) => setTimeout(resolve, fault!.delay_ms!))
        if (fault.drop) {
          req.socket.destroy()
          throw new HttpError(0, 'dropped')
        }
        if (fault.status !== null)
          throw new HttpError(
            fault.status,
            `Injected fault ${describeFault(fault)} (sandbox fault add)`,
            undefined,
            fault.retry_after === null ? {} : {'retry-after': String(fault.retry_after)},
          )
      }
      const {handler, params} = router.resolve(method, path)
      reply = await handler({
        body: () =>
          (parsedBody ??= readJsonBody(req, MAX_BODY_BYTES, MAX_JSON_DEPTH).then((value) => {
            requestBody = value ?? null
            return value
          })),
        method,
        params,
        path,
        query: new URLSearchParams(q < 0 ? '' : target.slice(q + 1)),
        req,
      })
    } catch (error) {
      if (error instanceof HttpError) {
        reply = errorReply(error)
      } else {
        log(`${method} ${path} failed: ${(error as Error)?.stack ?? String(error)}`)
        reply = {body: {message: 'Internal sandbox error'}, status: 500}
      }
    }
    // A write is answered only once it is on disk (the journal's group commit); failing that, a 500.
    if (dataFile) {
      try {
        await dataFile.sync()
      } catch (error) {
        log(`could not save a change to ${dataFile.path}: ${(error as Error).message}`)
        reply = {body: {message: 'The sandbox could not save the change to its data file'}, status: 500}
      }
    }
    if (path.startsWith('/api/v1/'))
      reply.headers = {...reply.headers, deprecation: V1_DEPRECATION_HEADER, link: '</api/v2>; rel="successor-version"', sunset: V1_SUNSET_HEADER}
    const entry = {
      duration_ms: 0,
      ...(fault ? {fault: describeFault(fault)} : {}),
      key_id: keyIdOf(core, req, requestBody),
      method,
      path,
      query: q < 0 ? '' : target.slice(q + 1),
      request_body: requestBody,
      status: reply.status,
      time: new Date(at).toISOString(),
    }
    if (res.headersSent || res.destroyed) {
      if (!unlogged(method, path)) requestLog.add({...entry, duration_ms: Math.round((performance.now() - started) * 10) / 10})
      return
    }
    const text = reply.raw ?? (reply.body === undefined ? undefined : JSON.stringify(reply.body))
    try {
      writeReply(res, {...reply, raw: text})
    } catch (error) {
      log(`could not answer ${method} ${path}: ${(error as Error).message}`)
      res.destroy()
    }
    if (!unlogged(method, path)) requestLog.add({...entry, duration_ms: Math.round((performance.now() - started) * 10) / 10, response_text: text})
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  server.on('error', (e) => log(`server error: ${e.message}`))
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  baseUrl = `http://${host}:${address.port}`
  controlHosts = allowedHosts(address.address, address.port)

  let closing: Promise<void> | undefined
  return {
    baseUrl,
    close: () =>
      (closing ??= (async () => {
        core.deliveries.close()
        requestLog.close()
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        })
        await dataFile?.close()
      })()),
    counts,
    dataFile: options.dataFile,
    seed: async (scenario) => {
      const ids = applyScenario(core, scenario)
      await dataFile?.sync()
      return ids
    },
    deliveries: () => core.deliveries.entries(),
    deliveriesSettled: () => core.deliveries.settled(),
    host: address.address,
    keys: store.keys,
    moneyUnit: MONEY_UNIT_SETTING,
    port: address.port,
  }
}

/** Reads of the control path are not logged: `logs --follow` and the inspector page would fill the log with themselves. */
function unlogged(method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`))
}

/** The key pair behind a request: its bearer token's, or the key_id of a token request. */
function keyIdOf(core: Core, req: IncomingMessage, body: unknown): string | null {
  const m = /^Bearer +(\S+)/i.exec(req.headers.authorization ?? '')
  if (m) {
    const found = core.tokens.lookup(m[1])
    return found.state === 'valid' || found.state === 'revoked' ? found.token.keyId : null
  }
  const keyId = (body as {key_id?: unknown} | null)?.key_id
  return typeof keyId === 'string' ? keyId : null
}

/**
 * Requests Node cannot parse (a malformed request line or header, headers over its size limit, a body cut
 * short) never reach the router; they get a JSON `{message}` too (Node's default answer has no body), unless
 * a response is already being written on the connection (as Node checks), and the connection is closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  const inFlight = (socket as Socket & {_httpMessage?: ServerResponse | null})._httpMessage
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) return void socket.destroy()
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request was not received in time']
        : [400, `Malformed HTTP request${error.code ? ` (${error.code})` : ''}`]
  const body = JSON.stringify({message})
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  )
}
