import {Flags} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {apiVersionFlag} from '../../base/flags.js'
import {EXIT} from '../../errors.js'
import {sanitize} from '../../io/sanitize.js'
import {status} from '../../services/auth-status.js'

export default class AuthStatus extends ApiCommand<typeof AuthStatus> {
  static exitCodes = {'0': 'the service accepts the credentials in effect', '3': 'it does not, or there are none'}
  static operations: readonly OperationId[] = ['issueToken', 'listCustomers', 'listOrders']
  static effect = 'reads' as const
  static summary = `Show whether the service accepts the credentials in effect (exit 0) or not (exit 3).`
  static description = `Checked with the service, as gh does: the cached token in one authenticated read (a new token issued with the key pair when the service rejects it), or a token issued now. Exit 1 when the service cannot be reached. --offline answers from the cached token alone and sends nothing. The secret is never shown.`
  static examples = [
    '<%= config.bin %> auth status',
    '<%= config.bin %> auth status --json | jq .expires_at',
    '<%= config.bin %> auth status --offline',
  ]
  static flags = {...apiVersionFlag, offline: Flags.boolean({description: 'Answer from the cached token alone; send nothing.'})}

  async run(): Promise<void> {
    const result = await status(this.ctx, {offline: this.flags.offline})
    const {reason, ...shown} = result
    // --json carries the reason (null when logged in); stderr says it either way, for a person reading a job's log.
    await this.output.result({...shown, reason: reason ?? null}, async () => {
      // Logged out: one line saying so (and why), not a table of empty values.
      if (result.logged_in) await this.output.record({...shown})
      else this.io.info(`Not logged in (profile "${result.profile}"${result.base_url ? ` at ${result.base_url}` : ''}).`)
    })
    if (reason) this.io.info(sanitize(reason, 'terminal'))
    if (!result.logged_in) this.exit(EXIT.auth)
  }
}
