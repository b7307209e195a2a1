import {BaseCommand} from '../../base/command.js'
import {CliError} from '../../errors.js'
import {sanitize} from '../../io/sanitize.js'
import {describeSandbox, profilesAt} from '../../services/sandbox/describe.js'
import {infoOf, sandboxStatus} from '../../services/sandbox/process.js'

export default class SandboxStatus extends BaseCommand<typeof SandboxStatus> {
  static effect = 'reads' as const
  static summary = `Show the local sandbox: base URL, pid, record counts and key pairs.`
  static description = `Exit 1 when none runs.

With --json: {"base_url", "pid", "keys": [{"key_id", "key_secret", "scopes"}]}, as \`start --detach --json\` prints it (the counts are in the human output, and at GET <base URL>/_sandbox).`
  static examples = ['<%= config.bin %> sandbox status', '<%= config.bin %> sandbox status --json | jq -r .base_url']

  async run(): Promise<void> {
    const {io} = this
    const status = await sandboxStatus(this.deps.env)
    if (!status) throw new CliError('No local sandbox is running.', {hint: 'Start one with `commerce sandbox start --detach`.'})
    await this.output.result(infoOf(status.state), async () =>
      io.out(
        describeSandbox(
          status.state,
          status.counts,
          (await profilesAt(this.deps.env, status.state.base_url)).map((name) => sanitize(name, 'cell')),
        ).join('\n'),
      ),
    )
  }
}
