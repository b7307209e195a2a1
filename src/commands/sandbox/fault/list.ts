import {BaseCommand} from '../../../base/command.js'
import {describeRule, listFaults} from '../../../services/sandbox/fault-requests.js'

export default class SandboxFaultList extends BaseCommand<typeof SandboxFaultList> {
  static effect = 'reads' as const
  static summary = `Show the fault rules in force in the local sandbox (--json: an array of rules).`
  static examples = ['<%= config.bin %> sandbox fault list']

  async run(): Promise<void> {
    const {io} = this
    const rules = await listFaults(this.deps.env)
    await this.output.result(rules, () => io.out(rules.length === 0 ? 'No fault rules.' : rules.map((r) => describeRule(r)).join('\n')))
  }
}
