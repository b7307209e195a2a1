import {Args} from '@oclif/core'

import {BaseCommand} from '../../../base/command.js'
import {restoreSnapshot} from '../../../services/sandbox/scenario.js'
import {counted} from '../../../domain/text.js'

export default class SandboxSnapshotRestore extends BaseCommand<typeof SandboxSnapshotRestore> {
  static args = {name: Args.string({description: 'Snapshot name.', required: true})}
  static summary = `Bring the running sandbox back to a saved state (its key pairs stay).`
  static description = `Exit 4 for an unknown name.`
  static examples = ['<%= config.bin %> sandbox snapshot restore before-import']

  async run(): Promise<void> {
    const {args, io} = this
    const answer = await restoreSnapshot(process.env, args.name)
    await this.output.result(answer, () => {
      const c = answer.counts
      io.out(
        `Restored snapshot ${answer.restored}: ${counted(c.customers, 'customer')}, ${counted(c.orders, 'order')}, ${counted(c.refunds, 'refund')}, ${counted(c.webhooks, 'webhook')}.`,
      )
    })
  }
}
