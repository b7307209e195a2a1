import {ApiCommand} from '../../base/command.js'
import {apiVersionFlag} from '../../base/flags.js'
import {EXIT} from '../../errors.js'
import {status} from '../../services/auth.js'

export default class AuthStatus extends ApiCommand<typeof AuthStatus> {
  static summary = `Show whether the credentials in effect work (exit 0) or not (exit 3).`
  static description = `The secret is never shown.`
  static examples = ['<%= config.bin %> auth status', '<%= config.bin %> auth status --json | jq .expires_at']
  static flags = {...apiVersionFlag}

  async run(): Promise<void> {
    const {reason, ...result} = await status(this.ctx)
    await this.output.result(result, async () => {
      // Logged out: one line saying so (and why), not a table of empty values.
      if (result.logged_in) await this.output.record({...result})
      else this.io.info(`Not logged in (profile "${result.profile}"${result.base_url ? ` at ${result.base_url}` : ''}).`)
      if (reason) this.io.info(reason)
    })
    if (!result.logged_in) this.exit(EXIT.auth)
  }
}
