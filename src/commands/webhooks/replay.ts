import {Args, Flags} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import type {PickKind} from '../../services/pick-kinds.js'
import {ApiCommand} from '../../base/command.js'
import {inboxFilterFlags, secretFlags, sinceOf} from '../../base/webhook-flags.js'
import {counted} from '../../domain/text.js'
import {EXIT, UsageError} from '../../errors.js'
import {sanitize} from '../../io/sanitize.js'
import {splitEvents} from '../../services/webhooks/endpoints.js'
import {type BatchItem, replay, replayMany} from '../../services/webhooks/inbox-queries.js'
import {readSecret} from '../../services/webhooks/signatures.js'

export default class WebhooksReplay extends ApiCommand<typeof WebhooksReplay> {
  static effect = 'local' as const
  // Forwards events from the local inbox to the local endpoint: the service is not asked.
  static operations: readonly OperationId[] = []
  static pick: PickKind = 'event'
  static args = {id: Args.string({description: 'The event id (evt_...), as `webhooks events` shows it; several may follow.'})}
  static summary = `Send recorded deliveries again: each raw body byte for byte, with its recorded headers.`
  static description = `One EVENT_ID: that event's latest delivery; --json prints {"id", "type", "forward_to", "status", "duration_ms", "resigned"}. Several ids, or --failed (the events whose latest record failed: not forwarded, or answered other than 2xx; narrowed by --since and --type): each event once, in the order received, one line each as it finishes, then a summary; --json prints {"replayed", "succeeded", "failed", "forward_to", "results": [...]}. Every replay is recorded in the inbox with the receiver's answer, so a replay that succeeds takes its event off the --failed list.

Without --forward-to, each event goes to the receiver it was forwarded to when received (\`webhooks listen --forward-to\`) or last replayed; an event received with none is exit 2 naming it, before anything is sent.

Each delivery is signed afresh (current time) with the secret given (--secret-file, --secret-stdin, COMMERCE_WEBHOOK_SECRET or --secret), else with the secret the profile stores for the endpoint it came to. Only when there is none is the recorded X-Service-Signature sent as it was, with a warning: a receiver with a timestamp tolerance may refuse it once it is old. Exit 4 when the inbox has no such event (nothing is sent), 1 when a receiver cannot be reached or answers other than 2xx.`
  static examples = [
    '<%= config.bin %> webhooks replay evt_3f9a1c',
    '<%= config.bin %> webhooks replay evt_3f9a1c --forward-to http://127.0.0.1:3000/hooks',
    '<%= config.bin %> webhooks replay evt_3f9a1c evt_77b2e0 --forward-to http://127.0.0.1:3000/hooks --secret-file secret.txt',
    '<%= config.bin %> webhooks replay --failed --since 1h --forward-to http://127.0.0.1:3000/hooks',
  ]
  static flags = {
    ...inboxFilterFlags,
    failed: Flags.boolean({description: 'Replay every event whose latest record failed (with --since/--type: of those only).'}),
    'forward-to': Flags.string({
      description: 'Receiver URL to send the deliveries to (default: the one each event was forwarded to when received or last replayed).',
    }),
    ...secretFlags,
  }
  static strict = false

  async run(): Promise<void> {
    const {flags, io} = this
    const ids = this.positionals
    if (flags.failed && ids.length > 0) throw new UsageError('Give event ids or --failed, not both.')
    // None named and not --failed: pick one on a terminal; without one, say what to give.
    if (!flags.failed && ids.length === 0)
      ids.push((await this.pick(undefined, {missing: 'Missing event id: name the events to replay (EVENT_ID...), or pass --failed.'})) as string)
    if (!flags.failed && (flags.since !== undefined || flags.type !== undefined))
      throw new UsageError('--since and --type choose among failed events: use them with --failed.')
    const secret = await readSecret(
      {env: this.deps.env, secret: flags.secret, secretFile: flags['secret-file'], secretStdin: flags['secret-stdin']},
      this.deps.stdin,
    )
    const storedSecrets = secret === undefined ? (await this.ctx.profile())?.webhook_secrets : undefined
    const input = {forwardTo: flags['forward-to'], secret, storedSecrets}

    if (ids.length === 1) {
      const replayed = await replay(this.deps.env, {...input, id: ids[0]})
      // JSON.stringify leaves out an undefined warning.
      const result = {...replayed, warning: replayed.warning === undefined ? undefined : this.say(replayed.warning)}
      if (result.warning) io.warn(result.warning)
      await this.output.result(result, () =>
        io.out(
          `Replayed ${sanitize(result.id, 'cell')} (${sanitize(result.type, 'cell')}) to ${result.forward_to} -> ${io.chalk.green(String(result.status))} (${result.duration_ms} ms)`,
        ),
      )
      return
    }
    let warned = false
    const summary = await replayMany(this.deps.env, {
      ...input,
      ...(flags.failed
        ? {
            failed: {
              since: await sinceOf(flags.since, {env: this.deps.env, io, now: this.deps.now()}),
              types: flags.type ? splitEvents(flags.type) : undefined,
            },
          }
        : {ids}),
      onResult: (item, warning) => {
        // Said once: it is the same for every event without a stored secret.
        if (warning && !warned) {
          warned = true
          io.warn(this.say(warning))
        }
        this.output.note(this.itemLine(item))
      },
    })
    await this.output.result(summary, () => {
      const to = summary.forward_to ?? 'their recorded receivers'
      const text = `Replayed ${counted(summary.replayed, 'event')} to ${to}: ${summary.succeeded} succeeded, ${summary.failed} failed.`
      if (summary.replayed === 0) io.info(flags.failed ? 'No failed events to replay.' : text)
      else if (summary.failed === 0) this.output.success(text)
      else io.info(text)
    })
    // The summary is the document; a failed replay sets the exit code without a second one.
    if (summary.failed > 0) this.exit(EXIT.failure)
  }

  private itemLine(item: BatchItem): string {
    const {io} = this
    const what = `${sanitize(item.id, 'cell')} (${sanitize(item.type, 'cell')})${this.flags['forward-to'] === undefined ? ` to ${sanitize(item.forward_to, 'cell')}` : ''}`
    if (item.error !== null) return `${what} -> ${io.chalk.red(`failed: ${sanitize(item.error, 'cell')}`)}`
    return `${what} -> ${io.chalk[item.ok ? 'green' : 'red'](String(item.status))} (${item.duration_ms} ms)`
  }
}
