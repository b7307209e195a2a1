import {Flags} from '@oclif/core'

import type {OperationId} from '../domain/schema.js'
import {ApiCommand} from '../base/command.js'
import {fieldsFlag, pagerFlag} from '../base/flags.js'
import {sinceOf} from '../base/webhook-flags.js'
import {formatCount} from '../domain/text.js'
import {HISTORY_FIELDS, listHistory, SURFACES} from '../services/history.js'

const COLUMNS = ['time', 'entry', 'run', 'surface', 'method', 'path', 'status', 'record_id'] as const
/** How many entries a terminal shows without --limit. */
const TERMINAL_DEFAULT = 30

export default class History extends ApiCommand<typeof History> {
  // It reads the local history, no service.
  static operations: readonly OperationId[] = []
  static effect = 'reads' as const
  static historySurface = undefined
  static summary = `List what this CLI and its agents changed in the account, newest first.`
  static description = `Every request that changed an account (all but reads and token issues), from any surface (cli, api, mcp, import, fixtures: a run is one entry), is recorded in history.jsonl in the config directory, secrets redacted: the fields and the undo rules are in docs/history.md. The current profile's entries by default (--profile another's). COMMERCE_NO_HISTORY=1, or \`config set history off\`, records nothing.`
  static examples = [
    '<%= config.bin %> history',
    '<%= config.bin %> history --since 1d --surface mcp',
    "<%= config.bin %> history --record 42 --json | jq -r '.[].entry'",
  ]
  static flags = {
    ...pagerFlag,
    ...fieldsFlag(HISTORY_FIELDS),
    limit: Flags.integer({char: 'L', description: 'Show only the newest N entries (a terminal shows 30 by default).', min: 1}),
    page: Flags.integer({description: 'The page of --limit entries to show (1-based).', min: 1}),
    record: Flags.string({description: 'Only the entries of this record id.'}),
    since: Flags.string({description: 'Only entries since then: a span back from now (30m, 2h, 1d, 1w), a date or a date-time.'}),
    surface: Flags.option({description: 'Only the changes from this surface.', options: SURFACES})(),
  }

  async run(): Promise<void> {
    const {flags, io} = this
    const all = await listHistory(this.deps.env, this.deps.now(), {
      profile: await this.ctx.profileName(),
      record: flags.record,
      since: await sinceOf(flags.since, {env: this.deps.env, io, now: this.deps.now()}),
      surface: flags.surface,
    })
    const screen = io.tableOutput && !this.output.json
    const limit = flags.limit ?? (screen || flags.page ? TERMINAL_DEFAULT : all.length)
    const start = ((flags.page ?? 1) - 1) * limit
    const entries = all.slice(start, start + limit)
    await this.output.list(entries as unknown as Array<Record<string, unknown>>, {columns: COLUMNS, middle: ['path'], whole: ['entry', 'run']})
    if (screen && all.length > start + entries.length)
      io.info(`Entries ${start + 1}-${start + entries.length} of ${formatCount(all.length)}; \`--page ${(flags.page ?? 1) + 1}\` shows the next.`)
  }
}
