import {Flags} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {jqStreamingRefusal, type ValueShape} from '../../base/flags.js'
import {MAX_TIMER_SECONDS} from '../../domain/env.js'
import {EVENT_TYPES} from '../../domain/schema.js'
import {counted} from '../../domain/text.js'
import {UsageError} from '../../errors.js'
import {sanitize} from '../../io/sanitize.js'
import {padCells} from '../../io/width.js'
import {splitEvents} from '../../services/webhooks/endpoints.js'
import {
  checkForwardUrl,
  listen,
  type ListenerEvent,
  type ListenReady,
  type ReachabilityChange,
  type Rejection,
  TUNNEL_PROVIDERS,
} from '../../services/webhooks/listen.js'

/** The width of the event type's column in a listener's lines: `customer.created`, the longest name of the service. */
const EVENT_TYPE_WIDTH = 'customer.created'.length

const seconds = Flags.custom<number>({
  ...({valueType: 'seconds'} satisfies ValueShape),
  async parse(input) {
    const n = Number(input)
    if (!/^\d+(\.\d+)?$/.test(input.trim()) || !(n > 0)) throw new Error(`must be a positive number of seconds (got ${JSON.stringify(input)})`)
    if (n > MAX_TIMER_SECONDS)
      throw new Error(`must be at most ${MAX_TIMER_SECONDS} seconds, the longest a timer holds (got ${JSON.stringify(input)})`)
    return n
  },
})

/** HH:MM:SS, local time. */
const clock = (date = new Date()) => date.toTimeString().slice(0, 8)

export default class WebhooksListen extends ApiCommand<typeof WebhooksListen> {
  static operations: readonly OperationId[] = ['listWebhooks', 'createWebhook']
  static summary = `Receive webhook deliveries locally: verify, print, record and forward each one.`
  static jsonOutput = 'JSON Lines: first {ready, local_url, public_url, endpoint_id, verified_reachable}, then one object an event.'
  static description = `Listens on 127.0.0.1 (any path), verifies X-Service-Signature, prints one line per event, records every verified delivery in the local inbox (see \`webhooks events\`, \`webhooks replay\`), and forwards the raw body and headers to --forward-to, answering the service what the receiver answered (502 when it cannot be reached, so that the service retries). A missing, wrong, stale or future signature is answered 400 and not forwarded.

It registers its public URL as a webhook endpoint for the chosen events, reusing an endpoint already registered for that URL whose signing secret this profile holds. The service has no operation to delete an endpoint: each new URL (a new tunnel URL, another port) leaves one registered. Fix --port, or keep --public-url, to reuse one. Against the local sandbox, without --public-url or --tunnel, it registers its own loopback URL.

Ctrl-C or SIGTERM stops it (exit 0) once deliveries in progress are answered. --max-events N stops it after N verified deliveries (exit 0); --timeout SECONDS, counted from the ready line, fails it (exit 1) if fewer came (without --max-events: if none came). Before the ready line it proves the public URL leads here: a probe with a one-time nonce through that URL, which only this listener answers. The ready line says "verified_reachable": true, false (with a warning naming the hop that failed) or null (--no-probe); --exit-on-unreachable makes a failed probe exit 1. The probe repeats every --heartbeat seconds; a missed one or a tunnel that dies is reported at once ({"event": "unreachable"} with --json), the tunnel is restarted with backoff and its new URL registered ({"event": "recovered"}), or with --exit-on-unreachable it is exit 1.

Without --port it takes the port of the profile's previous listen when free, so the same URL reuses the same endpoint. At most --forward-concurrency forwards run at once; past a queue of 100, a delivery is answered 503 with Retry-After.

On a terminal it shows the endpoint's signing secret masked but its last 4 characters, which a receiver needs (whole: \`webhooks secret ID --reveal\`, or --print-secret).

With --json, JSON Lines (it streams: each stdout line is one JSON object, not one document): first {"ready": true, "local_url", "public_url", "endpoint_id", "verified_reachable"} (with --print-secret, also "signing_secret"), then one per event, and the reachability lines above.`
  static examples = [
    '<%= config.bin %> webhooks listen --forward-to http://127.0.0.1:3000/hooks',
    '<%= config.bin %> webhooks listen --tunnel cloudflared --forward-to http://127.0.0.1:3000/hooks',
    '<%= config.bin %> webhooks listen --json --max-events 1 --timeout 60 > events.jsonl &',
    '<%= config.bin %> webhooks listen --tunnel cloudflared --exit-on-unreachable --heartbeat 10 --forward-to http://127.0.0.1:3000/hooks',
  ]
  static fieldFlags = {events: '--event', timeoutSeconds: '--timeout', url: '--public-url'}
  static interruptible = true
  static flags = {
    event: Flags.string({
      aliases: ['events'],
      description: `Event to subscribe to (any name the service knows); repeat, or separate with commas. Default: every event the service sends (the local sandbox's seven; elsewhere those the service documents: ${EVENT_TYPES.join(', ')}).`,
      multiple: true,
    }),
    'forward-to': Flags.string({description: 'Receiver URL to forward each verified delivery to.'}),
    'forward-concurrency': Flags.integer({
      description:
        'Forwards to the receiver in flight at once (default 8). Up to 100 more deliveries wait; past that, and while stopping, a delivery is answered 503 with Retry-After so that its sender retries later.',
      max: 1000,
      min: 1,
    }),
    'forward-timeout': seconds({
      description: 'Seconds to wait for the --forward-to receiver before answering the sender 504 (default 9, below the 10 s a sender waits).',
    }),
    'exit-on-unreachable': Flags.boolean({
      description:
        'Exit 1 when the probe through the public URL does not come back, a heartbeat is missed, or the tunnel dies (for CI), instead of a warning and a restart.',
    }),
    heartbeat: Flags.custom<number>({
      async parse(input) {
        const n = Number(input)
        if (!/^\d+(\.\d+)?$/.test(input.trim()) || !Number.isFinite(n))
          throw new Error(`must be a number of seconds, 0 to turn it off (got ${JSON.stringify(input)})`)
        return n
      },
    })({
      description:
        'Seconds between reachability probes once ready (default 30; 0: none). A missed one is reported, and is exit 1 with --exit-on-unreachable.',
    }),
    'max-events': Flags.integer({description: 'Stop (exit 0) after N verified deliveries.', min: 1}),
    port: Flags.integer({description: 'Local port on 127.0.0.1 (default: a free one).', max: 65_535, min: 0}),
    probe: Flags.boolean({
      allowNo: true,
      default: true,
      description:
        'Prove the public URL reaches this listener before the ready line, and every --heartbeat seconds (--no-probe: never; verified_reachable is then null).',
    }),
    'print-secret': Flags.boolean({description: "Show the endpoint's signing secret (in the ready line with --json)."}),
    'public-url': Flags.string({description: 'Public HTTPS URL of a tunnel you already run to the local port.', exclusive: ['tunnel']}),
    'skip-verify': Flags.boolean({description: 'Accept deliveries without checking their signature (testing only).'}),
    timeout: seconds({description: 'Fail (exit 1) if fewer than --max-events (or no) deliveries came within this many seconds.'}),
    tunnel: Flags.option({description: 'Run this tunnel (from PATH) to get a public URL.', exclusive: ['public-url'], options: TUNNEL_PROVIDERS})(),
  }

  protected jqRefusal(): string {
    return jqStreamingRefusal('commerce webhooks listen --json', 'it prints JSON lines as they happen')
  }

  async run(): Promise<void> {
    const {flags, io} = this
    const events = flags.event === undefined ? undefined : splitEvents(flags.event)
    if (events?.length === 0) throw new UsageError('--event needs at least one event name.')
    if (flags['forward-to']) checkForwardUrl(flags['forward-to'])

    // Ctrl-C or SIGTERM stops cleanly (BaseCommand.interruptible).
    this.interrupted.addEventListener('abort', () => io.info('Stopping: finishing deliveries in progress…'), {once: true})
    const result = await listen({
      ctx: this.ctx,
      events,
      forwardConcurrency: flags['forward-concurrency'],
      forwardTimeoutSeconds: flags['forward-timeout'],
      forwardTo: flags['forward-to'],
      exitOnUnreachable: flags['exit-on-unreachable'],
      heartbeatSeconds: flags.heartbeat,
      maxEvents: flags['max-events'],
      noProbe: !flags.probe,
      onReachability: (change) => this.printReachability(change),
      onEvent: (event) => this.printEvent(event),
      onIgnored: (event) =>
        io.info(
          io.chalk.dim(`${clock()}  ${sanitize(event.type, 'cell')}  ${sanitize(event.id, 'cell')}  ignored: not one of the events listened for`),
        ),
      onReady: (ready) => this.printReady(ready),
      onRejected: (rejection) => this.printRejection(rejection),
      onTunnelLog: flags.debug ? (line) => io.info(io.chalk.dim(`tunnel: ${line}`)) : undefined,
      onWarning: (text) => io.warn(this.say(text)),
      port: flags.port,
      printSecret: flags['print-secret'],
      publicUrl: flags['public-url'],
      skipVerify: flags['skip-verify'],
      stop: this.interrupted,
      timeoutSeconds: flags.timeout,
      tunnel: flags.tunnel,
    })
    this.flushBusy()
    io.info(`Stopped after ${counted(result.events, 'event')}.`)
  }

  private printReady(ready: ListenReady): void {
    const {flags, io} = this
    io.info(
      `Listening on ${ready.local_url} (any path), ${ready.forward_to ? `forwarding to ${ready.forward_to}` : 'not forwarding (no --forward-to)'}.`,
    )
    io.info(
      `Public URL ${ready.public_url}: endpoint ${ready.endpoint_id} ${ready.reused ? 'registered earlier, reused' : 'registered now'}, for ${ready.events.join(', ')}.`,
    )
    if (ready.verified_reachable) io.info(`Reachable: a probe through ${ready.public_url} came back to this listener.`)
    if (flags['skip-verify']) io.warn('signatures are not verified (--skip-verify).')
    if (ready.signing_secret !== undefined) this.output.note(`Signing secret: ${ready.signing_secret}`)
    // The receiver needs it (the Stripe CLI prints it): on a terminal, masked but its end, with how to get it whole.
    else if (io.isStderrTTY && !this.output.json)
      io.info(
        `Signing secret: ${'*'.repeat(12)}${sanitize(ready.signing_secret_tail, 'cell')} (whole: \`commerce webhooks secret ${ready.endpoint_id} --reveal\`, or --print-secret)`,
      )
    const max = flags['max-events']
    const stops = [max === undefined ? 'on Ctrl-C' : `after ${max} event${max === 1 ? '' : 's'}`]
    if (flags.timeout !== undefined) stops.push(`fails after ${flags.timeout} s without ${max === undefined ? 'any' : 'them'}`)
    io.info(`Ready. Stops ${stops.join(', ')}.`)
    // The contract's ready object, exactly (the signing secret only when asked for); the rest is on stderr above.
    const {endpoint_id, local_url, public_url, signing_secret, verified_reachable} = ready
    this.output.line({endpoint_id, local_url, public_url, ready: true, verified_reachable, ...(signing_secret === undefined ? {} : {signing_secret})})
  }

  /** `{"event": "unreachable" | "recovered", …}` with --json; a warning or a note otherwise. */
  private printReachability(change: ReachabilityChange): void {
    const {io} = this
    this.output.line(change, () => {
      if (change.event === 'unreachable')
        io.warn(`${change.message}${change.reason === 'tunnel_exited' ? ' Restarting it…' : ''} Deliveries meanwhile are retried by their sender.`)
      else
        io.info(
          `${clock()}  ${io.chalk.green('reachable again')} at ${change.public_url}${change.re_registered ? ` (registered anew as endpoint ${change.endpoint_id}: the service cannot change an endpoint's URL)` : ''}${change.verified_reachable ? ', verified by a probe' : ''}.`,
        )
    })
  }

  private printEvent(event: ListenerEvent): void {
    this.output.line(event, () => this.printEventLine(event))
  }

  private printEventLine(event: ListenerEvent): void {
    const {io} = this
    let forward = ''
    if (event.forward_error !== undefined) forward = `  -> ${io.chalk.red(`failed: ${sanitize(event.forward_error, 'cell')}`)}`
    else if (event.forward_status !== null) {
      const ok = event.forward_status >= 200 && event.forward_status < 300
      forward = `  -> ${io.chalk[ok ? 'green' : 'red'](String(event.forward_status))} (${event.duration_ms} ms)`
    }
    // Type and id come from the sender: shown escaped, never as raw control sequences. Lines are printed as events
    // come, so the type's column is as wide as the longest name the service has (customer.created), not measured.
    const type = padCells(sanitize(event.type, 'cell'), EVENT_TYPE_WIDTH)
    io.out(`${clock(new Date(event.received_at))}  ${type}  ${sanitize(event.id, 'cell')}${forward}`)
  }

  /** 503s of a flood, counted and said once a second rather than one line each. */
  private busy = {count: 0, timer: undefined as NodeJS.Timeout | undefined}

  private printRejection(rejection: Rejection): void {
    const {io} = this
    if (rejection.reason === 'busy') {
      this.busy.count += 1
      this.busy.timer ??= setTimeout(() => this.flushBusy(), 1000).unref()
      return
    }
    io.info(`${clock()}  ${io.chalk.red(`rejected ${rejection.status}`)}  ${sanitize(rejection.path, 'cell')}: ${rejection.message}`)
  }

  private flushBusy(): void {
    const {io} = this
    clearTimeout(this.busy.timer)
    this.busy.timer = undefined
    if (this.busy.count === 0) return
    io.info(
      `${clock()}  ${io.chalk.yellow(`answered 503 to ${counted(this.busy.count, 'delivery', 'deliveries')}`)}: busy (--forward-concurrency and its queue are full, or stopping); their senders retry later`,
    )
    this.busy.count = 0
  }
}
