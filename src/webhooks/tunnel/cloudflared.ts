/**
 * cloudflared quick tunnels: `cloudflared tunnel --url http://127.0.0.1:PORT --no-autoupdate --metrics ADDR`.
 * The URL comes from the metrics server's `/quicktunnel` (`{"hostname": "<name>.trycloudflare.com"}`, empty
 * until the tunnel is requested) or from the box cloudflared logs on stderr, whichever comes first.
 */
import type {ProviderSpec} from './provider.js'
import {freePort, getJson} from './support.js'

/** Quick tunnel names are hyphenated words; this also keeps api.trycloudflare.com (in error lines) out. */
const URL_IN_LOG = /https:\/\/[a-z0-9]+(?:-[a-z0-9]+)+\.trycloudflare\.com/i

export const cloudflared: ProviderSpec = {
  binary: 'cloudflared',
  installHint:
    "Install it: on Debian/Ubuntu add Cloudflare's package repository (https://pkg.cloudflare.com) and run " +
    '"sudo apt-get install cloudflared"; on macOS "brew install cloudflared"; otherwise download it from ' +
    'https://developers.cloudflare.com/cloudflare-one/connections/connect-networks/downloads/',
  async plan(port) {
    const metrics = `127.0.0.1:${await freePort()}`
    return {
      args: ['tunnel', '--url', `http://127.0.0.1:${port}`, '--no-autoupdate', '--metrics', metrics],
      async poll() {
        const answer = (await getJson(`http://${metrics}/quicktunnel`)) as {hostname?: unknown} | undefined
        const hostname = answer?.hostname
        return typeof hostname === 'string' && hostname !== '' ? `https://${hostname}` : undefined
      },
      urlFromLine: (line) => URL_IN_LOG.exec(line)?.[0],
    }
  },
}
