import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base/command.js'
import {jqStreamingRefusal} from '../../base/flags.js'
import {NetworkError} from '../../errors.js'
import {sanitize} from '../../io/sanitize.js'
import {sandboxUrl} from '../../services/sandbox/control-client.js'
import {cellWidth, fitCells} from '../../io/width.js'
import {fetchLogs, type LogEntry, logMatcher} from '../../services/sandbox/logs.js'

export default class SandboxLogs extends BaseCommand<typeof SandboxLogs> {
  static effect = 'reads' as const
  static summary = `Show the requests the local sandbox answered, oldest first, as \`stripe logs tail\` does.`
  static jsonOutput = 'JSON Lines: one object a request, {seq, time, method, path, query, status, duration_ms, key_id, request_body, response_body}.'
  static description = `One line per request on a terminal (time, method, path, status, duration, key id); with --json, JSON Lines (it streams: one JSON object per line, not one document): {seq, time, method, path, query, status, duration_ms, key_id, request_body, response_body}, key secrets, access tokens and signing secrets masked. The sandbox keeps the last 1,000 requests (and appends them to sandbox.log in the config directory). --follow keeps printing new requests until Ctrl-C, or until the sandbox stops (exit 0 either way).`
  static interruptible = true
  static examples = [
    '<%= config.bin %> sandbox logs',
    '<%= config.bin %> sandbox logs --status 4xx --path "/api/v2/orders*"',
    '<%= config.bin %> sandbox logs --follow --json | jq -c "{path, status}"',
  ]
  static flags = {
    follow: Flags.boolean({char: 'f', description: 'Keep printing new requests until Ctrl-C.'}),
    limit: Flags.integer({char: 'L', default: 50, description: 'How many of the latest matching requests to show first.', min: 1}),
    path: Flags.string({description: 'Only paths matching this glob (* any characters, ? one).'}),
    status: Flags.string({char: 's', description: 'Only these statuses or classes, comma-separated: 429, 4xx, 2xx,5xx.'}),
  }

  protected jqRefusal(): string {
    return jqStreamingRefusal('commerce sandbox logs --json', 'it prints JSON lines as they happen')
  }

  async run(): Promise<void> {
    const {flags, io} = this
    const matches = logMatcher({path: flags.path, status: flags.status})
    // On a terminal each entry fits the window (the path and query cut with `…`); a pipe gets them whole.
    const width = io.isStdoutTTY ? io.width() : undefined
    const show = (e: LogEntry) => this.output.line(e, () => io.out(formatLogLine(e, width)))
    const first = await fetchLogs(this.deps.env)
    for (const e of first.filter(matches).slice(-flags.limit)) show(e)
    if (!flags.follow) return
    let after = first.at(-1)?.seq ?? 0
    const base = sandboxUrl(this.deps.env) // named once stopped too, when its state file is gone
    // Ctrl-C or SIGTERM ends --follow (BaseCommand.interruptible).
    const stop = this.interrupted
    while (!stop.aborted) {
      const entries = await fetchLogs(this.deps.env, after, 20, stop, base).catch((error: Error) => {
        if (stop.aborted) return []
        // The sandbox went away while followed: the end of its log, as `docker logs -f` ends with its container.
        if (error instanceof NetworkError) return undefined
        throw error
      })
      if (entries === undefined) return io.info(`The sandbox at ${base} stopped: no more requests to show.`)
      for (const e of entries) {
        after = e.seq
        if (matches(e)) show(e)
      }
    }
  }
}

/** `10:31:02.114  GET    /api/v2/customers?page=2  200  3.1 ms  sbx_all_1a2b3c`, cut to `width` cells when given. */
function formatLogLine(e: LogEntry, width?: number): string {
  const time = new Date(e.time)
  const hh = (n: number, w = 2) => String(n).padStart(w, '0')
  const clock = `${hh(time.getHours())}:${hh(time.getMinutes())}:${hh(time.getSeconds())}.${hh(time.getMilliseconds(), 3)}`
  const target = sanitize(e.query ? `${e.path}?${e.query}` : e.path, 'cell')
  const head = `${clock}  ${sanitize(e.method, 'cell').padEnd(6)} `
  const tail = sanitize(`  ${e.status}  ${e.duration_ms} ms${e.key_id ? `  ${e.key_id}` : ''}${e.fault ? `  (fault: ${e.fault})` : ''}`, 'cell')
  if (width === undefined) return head + target + tail
  const room = width - cellWidth(head) - cellWidth(tail)
  // The path keeps at least a few characters; past that the tail (key id, fault) is what gives way.
  return fitCells(head + fitCells(target, Math.max(12, room)) + tail, width)
}
