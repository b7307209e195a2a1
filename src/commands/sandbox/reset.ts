import {BaseCommand} from '../../base/command.js'
import {dryRunFlag, yesFlag} from '../../base/flags.js'
import {confirmAfterCheck} from '../../io/prompt.js'
import {currentCounts, describeCounts, reset} from '../../services/sandbox/scenarios.js'
import {sandboxUrl} from '../../services/sandbox/control-client.js'
import {DryRunStop} from '../../base/error-shape.js'

export default class SandboxReset extends BaseCommand<typeof SandboxReset> {
  static effect = 'local' as const
  static summary = `Empty the local sandbox's data; ids start at 1 again.`
  static description = `Customers, orders, refunds, webhooks and idempotency keys are removed. The product catalogue and the key pairs stay, so profiles keep working. Save the state first with \`sandbox snapshot save NAME\` to come back to it. On a terminal it names what it would remove and asks first; --yes skips the question, and is required without a terminal. With --json: {"removed": {customers, orders, refunds, webhooks}}.`
  static examples = ['<%= config.bin %> sandbox reset', '<%= config.bin %> sandbox reset --yes --json']
  static flags = {...yesFlag, ...dryRunFlag}

  async run(): Promise<void> {
    const {flags, io} = this
    await confirmAfterCheck(io, flags.yes, async () => `Remove ${describeCounts(await currentCounts(this.deps.env))} from the local sandbox?`)
    // The control path is not the API client's: its dry run stops here, as the client's does at a write.
    if (flags['dry-run']) throw new DryRunStop({body: null, headers: {}, method: 'POST', url: `${sandboxUrl(this.deps.env)}/_sandbox/reset`})
    const removed = await reset(this.deps.env)
    await this.output.result({removed}, () => io.out(`Removed ${describeCounts(removed)}.`))
  }
}
