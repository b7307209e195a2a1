import {Args} from '@oclif/core'

import {BaseCommand} from '../../../base/command.js'
import {yesFlag} from '../../../base/flags.js'
import {confirmAfterCheck} from '../../../io/prompt.js'
import {currentCounts, describeCounts, restoreSnapshot, snapshotNamed} from '../../../services/sandbox/scenarios.js'

export default class SandboxSnapshotRestore extends BaseCommand<typeof SandboxSnapshotRestore> {
  static effect = 'local' as const
  static args = {name: Args.string({description: 'Snapshot name.', required: true})}
  static summary = `Bring the running sandbox back to a saved state (its key pairs stay).`
  static description = `On a terminal it names what would be replaced and asks first; --yes skips the question, and is required without a terminal. Exit 4 for an unknown name (checked before asking).`
  static examples = ['<%= config.bin %> sandbox snapshot restore before-import', '<%= config.bin %> sandbox snapshot restore before-import --yes']
  static flags = {...yesFlag}

  async run(): Promise<void> {
    const {args, flags, io} = this
    await confirmAfterCheck(io, flags.yes, async () => {
      await snapshotNamed(this.deps.env, args.name)
      return `Replace the local sandbox's ${describeCounts(await currentCounts(this.deps.env))} with snapshot ${args.name}?`
    })
    const answer = await restoreSnapshot(this.deps.env, args.name)
    await this.output.result(answer, () => io.out(`Restored snapshot ${answer.restored}: ${describeCounts(answer.counts)}.`))
  }
}
