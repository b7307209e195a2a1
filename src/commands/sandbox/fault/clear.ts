import {BaseCommand} from '../../../base/command.js'
import {clearFaults} from '../../../services/sandbox/fault-requests.js'

export default class SandboxFaultClear extends BaseCommand<typeof SandboxFaultClear> {
  static effect = 'local' as const
  static summary = `Remove every fault rule from the local sandbox (--json: {"cleared": N}).`
  static examples = ['<%= config.bin %> sandbox fault clear']

  async run(): Promise<void> {
    const {io} = this
    const cleared = await clearFaults(this.deps.env)
    await this.output.result({cleared}, () => io.out(`Removed ${cleared} fault rule${cleared === 1 ? '' : 's'}.`))
  }
}
