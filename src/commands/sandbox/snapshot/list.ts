import {BaseCommand} from '../../../base/command.js'
import {pagerFlag} from '../../../base/flags.js'
import {listSnapshots} from '../../../services/sandbox/scenarios.js'

export default class SandboxSnapshotList extends BaseCommand<typeof SandboxSnapshotList> {
  static effect = 'reads' as const
  static summary = `List the saved snapshots of the local sandbox.`
  static description = `A table on a terminal (when each was saved, and what it holds), tab-separated rows in a pipe. With --json: an array of {name, saved_at, customers, orders, refunds, webhooks}.`
  static examples = ['<%= config.bin %> sandbox snapshot list']
  static flags = pagerFlag

  async run(): Promise<void> {
    const list = await listSnapshots(this.deps.env)
    if (list.length === 0 && !this.output.json) return this.io.info('No snapshots. Save one with `commerce sandbox snapshot save NAME`.')
    await this.output.list(
      list.map((s) => ({...s})),
      {columns: ['name', 'saved_at', 'customers', 'orders', 'refunds', 'webhooks']},
    )
  }
}
