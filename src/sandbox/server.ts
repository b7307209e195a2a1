/**
 * `startSandbox()`: the whole service on node:http, plus the control path. Every request is answered,
 * whatever it holds: handler errors become `{message}` replies (a 500 for anything unexpected).
 */
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {type MoneyUnit, RATE_LIMITS} from '../domain/schema.js'
import {apiRoutes} from './api-routes.js'
import {openApiDocument, SANDBOX_API_VERSION} from './openapi.js'
import {controlRoutes} from './control.js'
import type {Core} from './core.js'
import {
  DELIVERY_ABANDON_REFUSED_MS,
  CONTROL_PREFIX,
  DELIVERY_LOG_LIMIT,
  DELIVERY_RETRY_DELAYS_MS,
  DELIVERY_TIMEOUT_MS,
  MONEY_UNIT_SETTING,
  TOKEN_FAILURE_LIMIT,
  REQUEST_LOG_BODY_BYTES,
  REQUEST_LOG_FILE_BYTES,
  REQUEST_LOG_LIMIT,
} from './decisions.js'
import {Deliveries, type DeliveryAttempt} from './deliveries.js'
import {allowedHosts} from './guard.js'
import {Router} from './http.js'
import {Faults} from './faults.js'
import {RequestLog} from './request-log.js'
import {applyScenario, type ScenarioIds} from './apply-scenario.js'
import {answerClientError, handleRequest, type SandboxAnswer, type Site} from './server-handle.js'
import {SnapshotShelf} from './snapshots.js'
import {DataFile, loadSnapshot} from './persistence.js'
import {type Limit, RateLimiter} from './rate-limit.js'
import {CATALOGUE, newKeyPairs, seedDemoData, seedHistory} from './seed.js'
import {type KeyPair, type Snapshot, Store} from './record-store.js'
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
  /** Seed this many days of past customers and orders when the data store is new (seed.ts seedHistory). */
  seedHistoryDays?: number
  /** The journal is compacted once larger than this and than the data file; default 4 MiB (tests set less). */
  journalCompactBytes?: number
  /** Where `snapshot save` keeps named snapshots; in memory when absent. */
  snapshotDir?: string
  /** The request log: also appended to this file as JSON lines (e.g. sandbox.log); in memory only when absent. */
  requestLogFile?: string
  /** Where unexpected errors are reported (never request bodies or secrets); default stderr. */
  log?: (line: string) => void
  /** Told of every answer the sandbox gave (server-handle.ts); the test suite's check against the document. */
  onAnswer?: (answer: SandboxAnswer) => void
}

/** The service's description at /openapi.json (no authentication: a client or a generator fetches it first). */
function describeRoute(router: Router, baseUrl: () => string): Router {
  let description: Record<string, unknown> | undefined
  // Made on first request, once the sandbox knows its own URL (its `servers`).
  return (
    router
      .add('GET', '/openapi.json', () => ({body: (description ??= openApiDocument(SANDBOX_API_VERSION, baseUrl())), status: 200}))
      // The first URL `sandbox start` prints, opened in a browser: the inspector, which links the document too.
      .add('GET', '/', () => ({
        headers: {'content-type': 'text/plain; charset=utf-8', location: `${CONTROL_PREFIX}/ui`},
        raw: `The commerce sandbox. Inspector: ${CONTROL_PREFIX}/ui; the API's description: /openapi.json; the API: /api/v1, /api/v2.\n`,
        status: 302,
      }))
  )
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
  /** A webhook endpoint's signing secret (`sandbox exec` hands seeded ones to its command). */
  webhookSecret(id: string): string | undefined
  /** Every record as it is now (`sandbox exec --export-on-exit`). */
  snapshot(): Snapshot
  /** Stops listening, drops pending deliveries, writes the data file. Idempotent. */
  close(): Promise<void>
}

/** A new data store with what the options ask to seed it with (demo data, a history). */
function seeded(store: Store, options: SandboxOptions, now: number): Store {
  if (options.seedDemoData) seedDemoData(store, now)
  if (options.seedHistoryDays) seedHistory(store, now, options.seedHistoryDays)
  return store
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const now = options.now ?? Date.now
  const log = options.log ?? ((line: string) => process.stderr.write(`sandbox: ${line}\n`))
  const snapshot = options.dataFile ? await loadSnapshot(options.dataFile) : undefined
  const store = snapshot ? new Store(snapshot) : seeded(Store.empty(newKeyPairs()), options, now())
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

  const core = buildCore(options, store, now, log)
  const {requestLog} = core

  const counts = (): SandboxCounts => ({
    ...store.counts(),
    delivery_attempts: core.deliveries.entries().length,
    pending_deliveries: core.deliveries.pending,
    products: CATALOGUE.length,
  })

  const router = describeRoute(new Router(), () => baseUrl)
  apiRoutes(router, core)
  let baseUrl = ''
  let controlHosts = new Set<string>()
  controlRoutes(router, core, new SnapshotShelf(options.snapshotDir), () => ({
    service: 'commerce sandbox',
    base_url: baseUrl,
    counts: counts(),
    money_unit: MONEY_UNIT_SETTING,
  }))

  const site: Site = {controlHosts: () => controlHosts, core, dataFile, log, now, onAnswer: options.onAnswer, router}
  const server = createServer({requestTimeout: 30_000}, (req, res) => void handleRequest(site, req, res))
  server.on('clientError', answerClientError)

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
        const logged = requestLog.close()
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        })
        await dataFile?.close()
        await logged
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
    ...recordsOf(store),
    host: address.address,
    keys: store.keys,
    moneyUnit: MONEY_UNIT_SETTING,
    port: address.port,
  }
}

/** What `sandbox exec` reads of the records: a webhook's signing secret, and all of them at the end. */
function recordsOf(store: Store): Pick<Sandbox, 'snapshot' | 'webhookSecret'> {
  return {snapshot: () => store.snapshot(), webhookSecret: (id) => store.webhook(id)?.signing_secret}
}

/** The emulator's state and machinery around its store: faults, request log, deliveries, rate limits, tokens. */
function buildCore(options: SandboxOptions, store: Store, now: () => number, log: (line: string) => void): Core {
  const requestLog = new RequestLog({
    file: options.requestLogFile,
    limit: REQUEST_LOG_LIMIT,
    maxBodyBytes: REQUEST_LOG_BODY_BYTES,
    maxFileBytes: REQUEST_LOG_FILE_BYTES,
    onError: (e) => log(`could not write the request log: ${e.message}`),
  })
  return {
    faults: new Faults(),
    requestLog,
    deliveries: new Deliveries({
      logLimit: DELIVERY_LOG_LIMIT,
      now,
      abandonRefusedMs: DELIVERY_ABANDON_REFUSED_MS,
      retryDelaysMs: options.retryDelaysMs ?? DELIVERY_RETRY_DELAYS_MS,
      timeoutMs: options.deliveryTimeoutMs ?? DELIVERY_TIMEOUT_MS,
      userAgent: 'commerce-sandbox/1',
    }),
    limits: {
      orders: new RateLimiter(now, options.orderLimit ?? RATE_LIMITS.orderCreate),
      tokenFailures: new RateLimiter(now, TOKEN_FAILURE_LIMIT),
      v1Customers: new RateLimiter(now, options.v1CustomersLimit ?? RATE_LIMITS.v1CustomersList),
      v1Products: new RateLimiter(now, options.v1ProductsLimit ?? RATE_LIMITS.v1ProductsList),
    },
    now,
    store,
    tokens: new Tokens(now, options.tokenTtlSeconds ?? 3600),
  }
}
