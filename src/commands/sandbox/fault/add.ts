import {Flags} from '@oclif/core'

import {BaseCommand} from '../../../base/command.js'
import {UsageError} from '../../../errors.js'
import {addFault, describeRule} from '../../../services/sandbox/fault-requests.js'

export default class SandboxFaultAdd extends BaseCommand<typeof SandboxFaultAdd> {
  static effect = 'local' as const
  static summary = `Make the local sandbox misbehave on purpose, for the requests that match.`
  static description = `The next requests matching --path (and --method) get a status, a delay or a dropped connection. Once by default; --count N times, or --rate R for a random share (seeded with --random-seed, so a run repeats). The status answer carries a JSON {message} like the sandbox's own errors, and Retry-After with --retry-after. Only API requests (/api/...) are affected. With --json, prints the rule.`
  static examples = [
    '<%= config.bin %> sandbox fault add --path "/api/v2/customers*" --status 503 --count 2',
    '<%= config.bin %> sandbox fault add --path "/api/v2/orders" --method POST --status 429 --retry-after 2 --rate 0.5 --random-seed 1',
    '<%= config.bin %> sandbox fault add --path "/api/v2/products*" --delay 3000',
    '<%= config.bin %> sandbox fault add --path "/api/v2/customers" --drop',
  ]
  static fieldFlags = {
    count: '--count',
    delay: '--delay',
    method: '--method',
    path: '--path',
    random_seed: '--random-seed',
    rate: '--rate',
    retry_after: '--retry-after',
    status: '--status',
  }
  static flags = {
    count: Flags.integer({description: 'Apply to this many matching requests (default 1).', exclusive: ['rate'], min: 1}),
    delay: Flags.integer({description: 'Wait this many milliseconds before answering (at most 120000).', max: 120_000, min: 0}),
    drop: Flags.boolean({description: 'Close the connection without an answer.', exclusive: ['status']}),
    method: Flags.string({description: 'Only this HTTP method (default: any).'}),
    path: Flags.string({description: 'Path glob: * any characters, ? one (e.g. /api/v2/customers*).', required: true}),
    'random-seed': Flags.integer({dependsOn: ['rate'], description: 'Seed for --rate, so that the same requests are hit on every run.', min: 0}),
    rate: Flags.string({description: 'Apply to this share of matching requests, 0.0-1.0, until cleared.', exclusive: ['count']}),
    'retry-after': Flags.integer({dependsOn: ['status'], description: 'Retry-After seconds sent with the status.', min: 0}),
    status: Flags.integer({description: 'Answer this status (400-599).', max: 599, min: 400}),
  }

  async run(): Promise<void> {
    const {flags} = this
    const rate = flags.rate === undefined ? undefined : Number(flags.rate)
    if (rate !== undefined && !(rate > 0 && rate <= 1)) throw new UsageError(`--rate must be a number above 0 and at most 1 (got ${flags.rate}).`)
    if (flags.status === undefined && !flags.drop && flags.delay === undefined) throw new UsageError('Give --status, --delay or --drop.')
    const rule = await addFault(this.deps.env, {
      count: flags.count,
      delay_ms: flags.delay,
      drop: flags.drop || undefined,
      method: flags.method,
      path: flags.path,
      random_seed: flags['random-seed'],
      rate,
      retry_after: flags['retry-after'],
      status: flags.status,
    })
    // A confirmation for a person, on stderr, wrapped at the terminal's width (the rule is the JSON document).
    await this.output.result(rule, () => this.output.success(`Added fault ${describeRule(rule)}`))
  }
}
