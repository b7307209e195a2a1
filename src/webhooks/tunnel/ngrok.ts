/**
 * ngrok: `ngrok http 127.0.0.1:PORT --log stdout --log-format json` (an explicit IPv4 address, since the
 * listener binds 127.0.0.1 only and `localhost` may resolve to ::1). The URL comes from the "started tunnel"
 * log line or from the agent API's `/api/tunnels`: at the address the agent logs ("starting web service"),
 * before that at `ngrokApiUrl`, NGROK_API_URL or http://127.0.0.1:4040. Only a tunnel to our port counts, so
 * that another agent already running on 4040 cannot lend us its URL.
 */
import type {ProviderSpec} from './provider.js'
import {getJson} from './support.js'

export const DEFAULT_NGROK_API_URL = 'http://127.0.0.1:4040'

interface LogLine {
  msg?: unknown
  err?: unknown
  url?: unknown
  addr?: unknown
  obj?: unknown
}

interface ApiTunnel {
  public_url?: unknown
  config?: {addr?: unknown}
}

function parseLog(line: string): LogLine | undefined {
  if (!line.startsWith('{')) return undefined
  try {
    return JSON.parse(line) as LogLine
  } catch {
    return undefined
  }
}

const isHttps = (value: unknown): value is string => typeof value === 'string' && value.startsWith('https://')

export const ngrok: ProviderSpec = {
  binary: 'ngrok',
  installHint:
    'Install it from https://ngrok.com/download (macOS: "brew install ngrok"), then add your authtoken with ' +
    '"ngrok config add-authtoken <TOKEN>".',
  async plan(port, options) {
    let apiUrl = (options.ngrokApiUrl ?? options.env.NGROK_API_URL ?? DEFAULT_NGROK_API_URL).replace(/\/+$/, '')
    const ours = (addr: unknown) => typeof addr !== 'string' || addr.endsWith(`:${port}`)
    return {
      args: ['http', `127.0.0.1:${port}`, '--log', 'stdout', '--log-format', 'json'],
      displayLine(line) {
        const log = parseLog(line)
        if (!log || typeof log.msg !== 'string') return line
        const text = typeof log.err === 'string' && log.err !== '' ? `${log.msg}: ${log.err}` : log.msg
        return text.replace(/\s+/g, ' ').trim()
      },
      async poll() {
        const answer = (await getJson(`${apiUrl}/api/tunnels`)) as {tunnels?: ApiTunnel[]} | undefined
        const tunnel = answer?.tunnels?.find((t) => isHttps(t.public_url) && ours(t.config?.addr))
        return tunnel?.public_url as string | undefined
      },
      urlFromLine(line) {
        const log = parseLog(line)
        if (!log) return undefined
        if (log.obj === 'web' && typeof log.addr === 'string' && log.addr !== '') apiUrl = `http://${log.addr}`
        return log.msg === 'started tunnel' && isHttps(log.url) ? log.url : undefined
      },
    }
  },
}
