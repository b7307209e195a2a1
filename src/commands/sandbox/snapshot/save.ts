import {Args} from '@oclif/core'

import {BaseCommand} from '../../../base/command.js'
import {saveSnapshot} from '../../../services/sandbox/scenarios.js'
import {counted} from '../../../domain/text.js'

export default class SandboxSnapshotSave extends BaseCommand<typeof SandboxSnapshotSave> {
  static effect = 'local' as const
  static args = {name: Args.string({description: 'Snapshot name (letters, digits, ".", "_", "-").', required: true})}
  static summary = `Save the local sandbox's whole state under a name (replacing a snapshot of that name).`
  static description = `Snapshots are kept in sandbox-snapshots/ in the config directory (in memory for an --in-memory sandbox).`
  static examples = ['<%= config.bin %> sandbox snapshot save before-import']

  async run(): Promise<void> {
    const {args, io} = this
    const info = await saveSnapshot(this.deps.env, args.name)
    await this.output.result(info, () => {
      io.out(
        `Saved snapshot ${info.name}: ${counted(info.customers, 'customer')}, ${counted(info.orders, 'order')}, ${counted(info.refunds, 'refund')} and ${counted(info.webhooks, 'webhook')}.`,
      )
    })
  }
}
