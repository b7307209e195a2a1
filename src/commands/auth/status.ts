import {ApiCommand} from '../../base/command.js'
import {apiVersionFlag} from '../../base/flags.js'
import {EXIT} from '../../errors.js'
import {renderRecord} from '../../io/render.js'
import {status} from '../../services/auth.js'

export default class AuthStatus extends ApiCommand<typeof AuthStatus> {
  static description = 'Show whether the credentials in effect work (exit 0) or not (exit 3). The secret is never shown.'
  static examples = ['<%= config.bin %> auth status', '<%= config.bin %> auth status --json | jq .expires_at']
  static flags = {...apiVersionFlag}

  async run(): Promise<void> {
    const {io} = this
    const {reason, ...result} = await status(this.ctx)
    if (io.json) io.outJson(result)
    else {
      await renderRecord(io, {...result})
      if (reason) io.info(reason)
    }
    if (!result.logged_in) this.exit(EXIT.auth)
  }
}
