/**
 * The history as tools: what this CLI and its agents changed (read-only, so that an agent can say what it did), and,
 * with --allow-writes, an undo that checks first, with a dry run (services/history.ts decides both, as for the CLI).
 */
import {SURFACES, type Surface} from '../../config/history.js'
import {durationMs} from '../../domain/window-grammar.js'
import {UsageError} from '../../errors.js'
import {listHistory, prepareUndo, runUndo} from '../history.js'
import {dryRunResult, object, oneOf, reader, result, text, type Tool, writer} from './tool-kit.js'

const entries = {items: {type: 'object'}, type: 'array'}

export const HISTORY_READ: Tool = reader({
  description:
    "What this CLI changed in the account with this profile, newest first: each change's entry (its reference), run (one command or tool call), time, surface (cli, mcp, import, fixtures, api), command or tool call, method, path, status (unknown: sent, no answer), the service's words on a refusal, record_id, idempotency_key, and the record before an update or a delete and after. Your own calls are surface mcp.",
  inputSchema: object({
    limit: {default: 20, description: 'How many, newest first.', maximum: 200, minimum: 1, type: 'integer'},
    record: text('Only the changes of this record id.'),
    since: text('Only changes within this span back from now: 30m, 2h, 1d, 1w.'),
    surface: oneOf(SURFACES, 'Only the changes from this surface.'),
  }),
  name: 'history',
  outputSchema: result({entries, total: {type: 'integer'}}),
  async run(a, deps) {
    const now = deps.now()
    const span = typeof a.since === 'string' ? durationMs(a.since) : undefined
    if (typeof a.since === 'string' && span === undefined)
      throw new UsageError(`since must be a span such as 30m, 2h, 1d or 1w (got ${JSON.stringify(a.since)}).`)
    const all = await listHistory(deps.env, now, {
      profile: await deps.ctx.profileName(),
      record: a.record as string | undefined,
      since: span === undefined ? undefined : now - span,
      surface: a.surface as Surface | undefined,
    })
    return {entries: all.slice(0, (a.limit as number | undefined) ?? 20), total: all.length}
  },
  title: 'What was changed',
})

export const HISTORY_UNDO: Tool = writer({
  description:
    'Undo a change the history recorded (an entry, or a run: every change of one call), where the service allows it, and only while the record is still as the change left it: an update is patched back, a customer made is deleted. An order, a refund, a webhook endpoint or a deleted customer cannot be undone (not_undoable, with what to do instead); a record changed since, or a change undone already, is a conflict. Nothing is sent then. Try dry_run first: it returns the plan and the request.',
  destructive: true,
  idempotent: false,
  inputSchema: object(
    {
      dry_run: {default: false, description: 'Return the plan and the request that would be sent, sending nothing.', type: 'boolean'},
      entry: text('The entry (or run) to undo, as the history tool names it.', {minLength: 1}),
    },
    ['entry'],
  ),
  name: 'history_undo',
  outputSchema: {anyOf: [result({plan: entries, undone: entries}), dryRunResult], type: 'object'},
  async run(a, deps) {
    const client = a.dry_run === true ? await deps.dryRunClient() : await deps.client()
    const steps = await prepareUndo(deps.env, deps.now(), a.entry as string, {client, profile: await deps.ctx.profileName()})
    if (a.dry_run !== true) return {plan: steps, undone: await runUndo(steps, client)}
    const {DryRunStop, dryRunDocument} = await import('../../api/dry-run.js')
    try {
      await runUndo(steps, client)
    } catch (error) {
      if (error instanceof DryRunStop) return dryRunDocument(error)
      throw error
    }
    return dryRunDocument(null)
  },
  title: 'Undo a change',
})
