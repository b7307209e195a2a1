import type {OperationId} from '../domain/schema.js'
import {ApiCommand} from '../base/command.js'
import {EXIT} from '../errors.js'
import {sanitize} from '../io/sanitize.js'
import {type Check, doctor} from '../services/doctor.js'

export default class Doctor extends ApiCommand<typeof Doctor> {
  static exitCodes = {'0': 'every check passed (warnings allowed)', '1': 'a check failed'}
  static operations: readonly OperationId[] = ['issueToken', 'listProducts', 'listWebhooks']
  static effect = 'reads' as const
  static summary = `Check the set-up end to end, and say how to fix what fails.`
  static description = `One line a check, ✓ (fine), ! (works, but look) or ✗ (broken), each with its fix: the CLI and Node and how they were installed; the config directory and its modes; the profile in effect, its origin and where its secret lives; the OS keyring; the token (accepted by the service now, its scopes and expiry); the service (reachable, how fast, Deprecation/Sunset); this machine's clock against the service's; proxy variables and the CA bundle; the endpoints of webhooks listen and whether a listener answers at each; the local sandbox. Every check has its own deadline: the report comes within about 3 s whatever the service does. Exit 0 when nothing failed, 1 otherwise. --json: {"checks": [{"name", "status": "ok"|"warn"|"fail", "detail", "fix"}]}.`
  static examples = ['<%= config.bin %> doctor', '<%= config.bin %> doctor --json | jq \'.checks[] | select(.status != "ok")\'']

  async run(): Promise<void> {
    const {io} = this
    const checks = await doctor({
      cli: {env: this.deps.env, execPath: process.execPath, root: this.config.root, version: this.config.version},
      ctx: this.ctx,
    })
    await this.output.result({checks}, async () => {
      const mark = (c: Check) => (c.status === 'ok' ? io.chalk.green('✓') : c.status === 'warn' ? io.chalk.yellow('!') : io.chalk.red('✗'))
      const width = Math.max(...checks.map((c) => c.name.length))
      for (const c of checks) {
        // Wrapped at the terminal's width under the detail column: a URL or a command is never split.
        io.outWrapped(`${mark(c)} ${c.name.padEnd(width)}  ${sanitize(c.detail, 'cell')}`, width + 4)
        if (c.fix) io.outWrapped(`  ${' '.repeat(width)}  ${io.chalk.dim(`fix: ${sanitize(c.fix, 'cell')}`)}`, width + 4)
      }
      const failed = checks.filter((c) => c.status === 'fail').length
      const warned = checks.filter((c) => c.status === 'warn').length
      io.info(failed + warned === 0 ? 'No issues found.' : `${failed} failed, ${warned} to look at.`)
    })
    if (checks.some((c) => c.status === 'fail')) this.exit(EXIT.failure)
  }
}
