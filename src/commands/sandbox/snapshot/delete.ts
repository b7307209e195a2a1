import {Args} from '@oclif/core'

import {BaseCommand} from '../../../base/command.js'
import {yesFlag} from '../../../base/flags.js'
import {confirmAfterCheck} from '../../../io/prompt.js'
import {deleteSnapshot, snapshotNamed} from '../../../services/sandbox/scenarios.js'
import {counted} from '../../../domain/text.js'

export default class SandboxSnapshotDelete extends BaseCommand<typeof SandboxSnapshotDelete> {
  static effect = 'local' as const
  static args = {name: Args.string({description: 'Snapshot name.', required: true})}
  static summary = `Delete a saved snapshot of the local sandbox (the running state is not touched).`
  static description = `On a terminal it names what the snapshot holds and asks first; --yes skips the question, and is required without a terminal. Exit 4 for an unknown name (checked before asking).`
  static examples = ['<%= config.bin %> sandbox snapshot delete before-import', '<%= config.bin %> sandbox snapshot delete before-import --yes']
  static flags = {...yesFlag}

  async run(): Promise<void> {
    const {args, flags, io} = this
    await confirmAfterCheck(io, flags.yes, async () => {
      const found = await snapshotNamed(this.deps.env, args.name)
      return `Delete snapshot ${args.name} (${counted(found.customers, 'customer')}, ${counted(found.orders, 'order')}, saved ${found.saved_at})?`
    })
    const answer = await deleteSnapshot(this.deps.env, args.name)
    await this.output.result(answer, () => this.output.success(`Deleted snapshot ${args.name}.`))
  }
}
