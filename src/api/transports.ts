/**
 * Which transport carries a client's next request, decided here only: Node's client (node-transport.ts) for a
 * command's first requests, where its start-up is what the user waits on; undici's agent (loaded by undici.ts)
 * through a proxy, and past MANY_REQUESTS (an export, `--all`, stats), where its lighter exchanges outweigh its
 * load. A transport left behind keeps its requests in flight until close().
 */
import {NodeTransport, type Transport} from './node-transport.js'
import {loadUndici} from './undici.js'

/** The bound on a response's headers: Node's default, given to both transports. */
const MAX_RESPONSE_HEADER_BYTES = 16 * 1024

/**
 * Requests after which a client's work is many pages: an exchange through undici costs about 0.17 ms less than
 * through Node's client (a 50,000-record export, 500 pages, over Node's client alone: 776 ms against 724 ms over
 * undici alone, start-ups included), which outweighs the 15-20 ms of loading undici past about a hundred.
 */
export const MANY_REQUESTS = 100

/**
 * Whether a proxy is set, as undici's EnvHttpProxyAgent reads the environment (either case; empty is unset). NO_PROXY
 * alone sets none.
 */
function proxied(env: NodeJS.ProcessEnv): boolean {
  return ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY'].some((name) => Boolean(env[name]))
}

export class Transports {
  private current?: Transport
  private readonly retired: Transport[] = []
  private switching?: Promise<Transport>
  /** Requests sent, retries included. */
  private sent = 0

  constructor(private readonly options: {baseUrl: string; timeoutMs: number; dispatcher?: Transport; env?: NodeJS.ProcessEnv}) {
    this.current = options.dispatcher
  }

  /** The transport of the next request. */
  next(): Promise<Transport> | Transport {
    const many = ++this.sent > MANY_REQUESTS
    if (this.current && !(many && this.current instanceof NodeTransport)) return this.current
    this.switching ??= this.make(many).finally(() => (this.switching = undefined))
    return this.switching
  }

  /**
   * Closes pooled connections so the process can exit at once; a connection still being set up (a proxy that
   * took CONNECT and never answered) is destroyed, not waited for.
   */
  async close(): Promise<void> {
    const all = [...(this.current ? [this.current] : []), ...this.retired.splice(0)]
    await Promise.all(all.map((transport) => transport.destroy()))
  }

  private async make(many: boolean): Promise<Transport> {
    const options = {connections: 16, maxHeaderSize: MAX_RESPONSE_HEADER_BYTES}
    if (!many && !proxied(this.options.env ?? process.env)) {
      const https = this.options.baseUrl.startsWith('https:') ? await import('node:https') : undefined
      return (this.current = new NodeTransport({...options, https}))
    }
    const {EnvHttpProxyAgent} = await loadUndici()
    // Gaps between chunks are bounded too (undici's timeouts), beside the deadline of the whole exchange in `send`.
    const timeout = this.options.timeoutMs
    if (this.current) this.retired.push(this.current)
    return (this.current = new EnvHttpProxyAgent({bodyTimeout: timeout, headersTimeout: timeout, keepAliveTimeout: 4000, ...options}))
  }
}
