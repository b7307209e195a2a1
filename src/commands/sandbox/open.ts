import {spawn} from 'node:child_process'

import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base/command.js'
import {sandboxUrl} from '../../services/sandbox/control-client.js'

export default class SandboxOpen extends BaseCommand<typeof SandboxOpen> {
  static effect = 'reads' as const
  static summary = `Print the URL of the local sandbox's inspector page and, on a desktop, open it in the browser.`
  static description = `The page shows, live, the request log, webhook deliveries with their attempts, and the customers, orders and endpoints. It is served to this machine only. With --json: {"url"}.`
  static examples = ['<%= config.bin %> sandbox open', '<%= config.bin %> sandbox open --no-browser']
  static flags = {
    browser: Flags.boolean({allowNo: true, default: true, description: 'Open the page in the desktop browser (when there is a desktop).'}),
  }

  async run(): Promise<void> {
    const {flags, io} = this
    const url = `${sandboxUrl(this.deps.env)}/_sandbox/ui`
    await this.output.result({url}, () => {
      io.out(url)
      if (flags.browser && io.isStdoutTTY) openInBrowser(url, this.deps.env)
    })
  }
}

/** xdg-open / open / start, detached and silent; nothing happens without a desktop. */
function openInBrowser(url: string, env: NodeJS.ProcessEnv): void {
  const desktop = process.platform === 'darwin' || process.platform === 'win32' || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY)
  if (!desktop) return
  const [cmd, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]]
  try {
    const child = spawn(cmd, args, {detached: true, stdio: 'ignore'})
    child.on('error', () => {})
    child.unref()
  } catch {}
}
