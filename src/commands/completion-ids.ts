import {Args} from '@oclif/core'

import type {OperationId} from '../domain/schema.js'
import {ApiCommand} from '../base/command.js'
import {completionIds, profileCompletions} from '../services/completion-ids.js'
import {PICK_KIND_NAMES, type PickKind} from '../services/pick-kinds.js'

/**
 * What the completion scripts call for an id argument (services/completion.ts): `id:description` lines, or nothing;
 * `profile`: the profile names (`--profile <TAB>`), one a line.
 */
export default class CompletionIds extends ApiCommand<typeof CompletionIds> {
  static operations: readonly OperationId[] = ['listCustomers', 'listOrders', 'listProducts']
  static hidden = true
  static args = {
    // The kinds of the one registry (services/pick-kinds.ts), and `profile`.
    kind: Args.string({options: [...PICK_KIND_NAMES, 'profile'], required: true}),
  }
  static summary = `Ids for shell completion (used by the scripts of \`commerce autocomplete\`).`

  async run(): Promise<void> {
    if (this.args.kind === 'profile') {
      const names = profileCompletions(await this.ctx.store.read().catch(() => ({})))
      if (names.length > 0) this.io.out(names.join('\n'))
      return
    }
    const lines = await completionIds(this.args.kind as PickKind, {
      cacheKey: `${await this.ctx.profileName()} ${(await this.ctx.knownBaseUrl()) ?? ''}`,
      client: (overrides) => this.ctx.client(overrides),
      env: this.deps.env,
      now: this.deps.now,
    }).catch(() => [])
    if (lines.length > 0) this.io.out(lines.join('\n'))
  }
}
