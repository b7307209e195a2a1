import {Args} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {fieldsFlag} from '../../base/flags.js'
import {findInHistory, HISTORY_FIELDS} from '../../services/history.js'

export default class HistoryShow extends ApiCommand<typeof HistoryShow> {
  // It reads the local history, no service.
  static operations: readonly OperationId[] = []
  static effect = 'reads' as const
  static historySurface = undefined
  static args = {ref: Args.string({description: 'An entry, or a run (every entry of one invocation).', required: true})}
  static summary = `Show one entry of the history, or every entry of a run, with the record before and after.`
  static description = `--json prints the entry, or for a run {run, entries} (newest first).`
  static examples = ['<%= config.bin %> history show 3f9a1c2b7e01', '<%= config.bin %> history show 3f9a1c2b7e01 --json']
  static flags = {...fieldsFlag(HISTORY_FIELDS)}

  async run(): Promise<void> {
    const {entries, run} = await findInHistory(this.deps.env, this.deps.now(), this.args.ref)
    if (!run) return this.output.record(entries[0] as unknown as Record<string, unknown>)
    await this.output.result({entries, run: this.args.ref}, async () => {
      for (const entry of entries) await this.output.record(entry as unknown as Record<string, unknown>)
    })
  }
}
