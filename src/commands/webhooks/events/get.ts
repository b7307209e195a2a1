import {Args} from '@oclif/core'

import type {PickKind} from '../../../services/pick-kinds.js'
import {BaseCommand} from '../../../base/command.js'
import {sanitize} from '../../../io/sanitize.js'
import {humanValue} from '../../../io/values.js'
import {getInboxEvent, type InboxRecord, outcomeOf} from '../../../services/webhooks/inbox-queries.js'

export default class WebhooksEventsGet extends BaseCommand<typeof WebhooksEventsGet> {
  static pick: PickKind = 'event'
  static effect = 'reads' as const
  static args = {id: Args.string({description: 'The event id (evt_...), as `webhooks events` shows it (left out on a terminal: pick one).'})}
  static summary = `Show one event of the local inbox whole, every delivery of it.`
  static description = `Each delivery (a sender retries; replays count too), oldest first, with the request's headers and raw body and the receiver's answer (status, headers, the first 64 KiB of its body, duration) or the error.

--json: {"id", "type", "records": [...]}, each record as \`webhooks events --json\` prints it. Exit 4 when the inbox has no such event.`
  static examples = [
    '<%= config.bin %> webhooks events get evt_3f9a1c',
    "<%= config.bin %> webhooks events get evt_3f9a1c --json | jq -r '.records[-1].response.body'",
  ]

  async run(): Promise<void> {
    const id = this.args.id ?? ((await this.pick()) as string)
    const event = await getInboxEvent(this.deps.env, id)
    await this.output.result(event, () => {
      const {io} = this
      const total = event.records.length
      event.records.forEach((record, i) => io.out(this.recordText(record, total > 1 ? `Delivery ${i + 1} of ${total}` : 'Delivery')))
    })
  }

  private readable(body: string, encoding: string | undefined): string {
    return this.io.isStdoutTTY && encoding !== 'base64' ? prettyJson(body) : body
  }

  /** One record as text; everything that came from the sender or the receiver is sanitized. */
  private recordText(record: InboxRecord, title: string): string {
    const {io} = this
    const bold = (t: string) => io.chalk.bold(t)
    const outcome = outcomeOf(record)
    // The time as every record shows it on a terminal: local, and how long ago (a pipe keeps the ISO time).
    const at = (io.isStdoutTTY && humanValue('received_at', record.received_at, {}, io.values, 'record')) || record.received_at
    const headline = `${title}: ${sanitize(record.type, 'cell')} ${sanitize(record.id, 'cell')}, ${record.replayed ? 'replayed' : 'received'} ${sanitize(at, 'cell')}`
    const lines = [bold(headline), '', bold('Request headers')]
    for (const [name, value] of Object.entries(record.headers)) lines.push(`  ${sanitize(name, 'cell')}: ${sanitize(value, 'cell')}`)
    lines.push(
      '',
      bold(`Request body${record.body_encoding === 'base64' ? ' (base64: not UTF-8)' : ''}`),
      indent(sanitize(this.readable(record.body, record.body_encoding), 'terminal')),
      '',
    )
    if (record.forward_error !== undefined) lines.push(`${bold('Answer')}: ${io.chalk.red(`failed: ${sanitize(record.forward_error, 'cell')}`)}`)
    else if (!record.response && record.forward_status === null) lines.push(`${bold('Answer')}: none (not forwarded: no --forward-to)`)
    else {
      const status = String(record.response?.status ?? record.forward_status)
      lines.push(`${bold('Answer')}: ${io.chalk[outcome === 'failed' ? 'red' : 'green'](status)} in ${record.duration_ms} ms`)
      const response = record.response
      if (response) {
        for (const [name, value] of Object.entries(response.headers)) lines.push(`  ${sanitize(name, 'cell')}: ${sanitize(value, 'cell')}`)
        const cut = response.body_truncated
          ? `, the first ${Buffer.byteLength(response.body, response.body_encoding)} of ${response.body_bytes} bytes`
          : ''
        lines.push(
          '',
          bold(`Answer body${response.body_encoding === 'base64' ? ' (base64: not UTF-8)' : ''}${cut}`),
          indent(sanitize(this.readable(response.body, response.body_encoding), 'terminal')),
        )
      }
    }
    return lines.join('\n') + '\n'
  }
}

/** A JSON body laid out two spaces a level, for a person at a terminal; anything else (and a pipe) as it came. */
function prettyJson(body: string): string {
  try {
    const value: unknown = JSON.parse(body)
    return typeof value === 'object' && value !== null ? JSON.stringify(value, null, 2) : body
  } catch {
    return body
  }
}

function indent(text: string): string {
  return text === '' ? '  (empty)' : text.replace(/^/gm, '  ')
}
