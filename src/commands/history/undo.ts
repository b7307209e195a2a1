import {Args} from '@oclif/core'

import {ApiCommand} from '../../base/command.js'
import {dryRunFlag, yesFlag} from '../../base/flags.js'
import type {OperationId} from '../../domain/schema.js'
import {confirmAfterCheck} from '../../io/prompt.js'
import {sanitize} from '../../io/sanitize.js'
import {prepareUndo, runUndo, type UndoStep} from '../../services/history.js'

export default class HistoryUndo extends ApiCommand<typeof HistoryUndo> {
  static operations: readonly OperationId[] = ['getCustomer', 'updateCustomer', 'deleteCustomer']
  static args = {ref: Args.string({description: 'An entry, or a run (its entries are undone newest first).', required: true})}
  static summary = `Undo a change the history recorded, where the service allows it, checking first.`
  static description = `A plan first: what it sends, and why each part can or cannot be undone. An update is patched back and a customer made deleted, only while the record is still as the change left it (else conflict, nothing sent). An order, a refund, a webhook endpoint or a deleted customer cannot be taken back: not_undoable, with what to do instead, nothing sent. Asks on a terminal; needs --yes without one. The undo is recorded too, and a change undone once is refused a second time.`
  static examples = ['<%= config.bin %> history undo 3f9a1c2b7e01', '<%= config.bin %> history undo 3f9a1c2b7e01 --dry-run --json']
  static flags = {...yesFlag, ...dryRunFlag}

  async run(): Promise<void> {
    const {flags, io} = this
    const client = await this.ctx.client()
    // The plan and its checks come first, whatever answers the question: a refusal is said without one.
    const steps = await prepareUndo(this.deps.env, this.deps.now(), this.args.ref, {client, profile: await this.ctx.profileName()})
    await confirmAfterCheck(
      io,
      flags.yes,
      async () => `${describe(steps)}\nUndo ${steps.filter((s) => s.can).length === 1 ? 'this change' : 'these changes'}?`,
    )
    const undone = await runUndo(steps, client)
    await this.output.result({plan: steps, undone}, () => {
      if (flags.yes) io.info(describe(steps))
      this.output.success(`Undone: ${undone.map((u) => `${u.entry} (HTTP ${u.status})`).join(', ')}.`)
    })
  }
}

/** The plan, a line a part: what it undoes, and how or why not. */
function describe(steps: UndoStep[]): string {
  return steps
    .map((s) => sanitize(`${s.can ? '✓' : '✗'} ${s.entry} ${s.change}: ${s.why}${s.instead ? ` Instead: ${s.instead}` : ''}`, 'terminal'))
    .join('\n')
}
