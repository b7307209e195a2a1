import {BaseCommand} from '../../../base/command.js'
import {describeRule, listFaults} from '../../../services/sandbox/faults.js'

export default class SandboxFaultList extends BaseCommand<typeof SandboxFaultList> {
  static description = 'Show the fault rules in force in the local sandbox (--json: an array of rules).'
  static examples = ['<%= config.bin %> sandbox fault list']

  async run(): Promise<void> {
    const {io} = this
    const rules = await listFaults(process.env)
    if (io.json) return io.outJson(rules)
    if (rules.length === 0) return io.out('No fault rules.')
    for (const r of rules) io.out(describeRule(r))
  }
}
