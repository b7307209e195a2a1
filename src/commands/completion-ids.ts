import {Args} from '@oclif/core'

import {ApiCommand} from '../base/command.js'
import {completionIds} from '../services/completion-ids.js'
import type {PickKind} from '../services/pickers.js'

/** What the completion scripts call for an id argument (services/completion.ts): `id:description` lines, or nothing. */
export default class CompletionIds extends ApiCommand<typeof CompletionIds> {
  static hidden = true
  static args = {
    kind: Args.string({options: ['customer', 'order', 'refundable-order', 'product', 'event'], required: true}),
  }
  static summary = `Ids for shell completion (used by the scripts of \`commerce autocomplete\`).`

  async run(): Promise<void> {
    const lines = await completionIds(this.args.kind as PickKind, {
      cacheKey: `${await this.ctx.profileName()} ${(await this.ctx.knownBaseUrl()) ?? ''}`,
      client: (overrides) => this.ctx.client(overrides),
      env: this.deps.env,
      now: this.deps.now,
    }).catch(() => [])
    if (lines.length > 0) this.io.out(lines.join('\n'))
  }
}
