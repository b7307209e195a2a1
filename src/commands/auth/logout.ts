import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {apiVersionFlag} from '../../base/flags.js'
import {logout} from '../../services/credentials.js'

export default class AuthLogout extends ApiCommand<typeof AuthLogout> {
  static operations: readonly OperationId[] = ['revokeToken']
  static summary = `Revoke the current token and remove the stored credentials from the profile.`
  static description = `The stored key pair and token are removed, and the key secret from the OS keyring when it is kept there. Succeeds when already logged out. If the revocation fails, the local credentials are removed all the same and the command exits 1: the token stays valid until it expires.`
  static examples = ['<%= config.bin %> auth logout', '<%= config.bin %> auth logout --profile staging']
  static flags = {...apiVersionFlag}

  async run(): Promise<void> {
    const {result, warning} = await logout(this.ctx)
    if (warning) this.io.warn(warning)
    await this.output.result(result, () => this.io.info(`Logged out of profile "${result.profile}"${result.revoked ? ' (token revoked)' : ''}.`))
  }
}
