import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {apiVersionFlag} from '../../base/flags.js'
import {currentToken} from '../../services/auth-status.js'

export default class AuthToken extends ApiCommand<typeof AuthToken> {
  static operations: readonly OperationId[] = ['issueToken']
  static effect = 'reads' as const
  static summary = `Print an access token the service accepts (checked with it; a new one issued when needed) and a newline, nothing else.`
  static examples = ['curl -H "Authorization: Bearer $(<%= config.bin %> auth token)" "$COMMERCE_BASE_URL/api/v2/orders"']
  static flags = {...apiVersionFlag}

  async run(): Promise<void> {
    const token = await currentToken(this.ctx)
    await this.output.result({access_token: token}, () => this.io.out(token))
  }
}
