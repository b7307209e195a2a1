import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../base/command.js'
import {readScenarioWith, seed} from '../../services/sandbox/scenarios.js'

export default class SandboxSeed extends BaseCommand<typeof SandboxSeed> {
  static effect = 'local' as const
  static args = {file: Args.string({description: 'Scenario file (JSON).', required: true})}
  static summary = `Load a scenario file into the local sandbox: customers, orders, refunds and webhooks, by name.`
  static description = `Entries are grouped by kind, each keyed by a name that later entries refer to as \${name.id}, and applied in file order through the service's own rules (events fire). Each entry is the create body of its resource; an order may add "status": "paid", "shipped" or "refunded". The whole file is checked first: one bad entry is exit 2 naming it and the field, with nothing created. With --json, prints the names -> ids map. The format is that of \`commerce fixtures run\`, which loads the same file into any account through the API, with a ledger and a clean-up.`
  static examples = [
    '<%= config.bin %> sandbox seed scenario.json',
    '<%= config.bin %> sandbox seed scenario.json --json | jq .alice',
    '<%= config.bin %> sandbox seed scenario.json --set hook.url=http://127.0.0.1:9000/hooks',
  ]
  static flags = {
    set: Flags.string({
      description: 'Change a field of an entry: NAME.FIELD=VALUE (VALUE as JSON when it parses, else text); repeatable, as `fixtures run --set`.',
      multiple: true,
    }),
  }

  async run(): Promise<void> {
    const {args, flags, io} = this
    const ids = await seed(this.deps.env, readScenarioWith(args.file, flags.set ?? []))
    await this.output.result(ids, () => {
      const names = Object.entries(ids)
      io.out(`Created ${names.length} entr${names.length === 1 ? 'y' : 'ies'}: ${names.map(([n, id]) => `${n} ${id}`).join(', ')}`)
    })
  }
}
