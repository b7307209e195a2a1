import {BaseCommand} from '../../../base/command.js'
import {listSnapshots} from '../../../services/sandbox/scenario.js'
import {counted} from '../../../domain/text.js'

export default class SandboxSnapshotList extends BaseCommand<typeof SandboxSnapshotList> {
  static summary = `List the saved snapshots of the local sandbox.`
  static description = `With --json: an array of {name, saved_at, customers, orders, webhooks}.`
  static examples = ['<%= config.bin %> sandbox snapshot list']

  async run(): Promise<void> {
    const {io} = this
    const list = await listSnapshots(this.deps.env)
    await this.output.result(list, () => {
      if (list.length === 0) return io.out('No snapshots.')
      for (const s of list)
        io.out(`${s.name}\t${s.saved_at}\t${counted(s.customers, 'customer')}, ${counted(s.orders, 'order')}, ${counted(s.webhooks, 'webhook')}`)
    })
  }
}
