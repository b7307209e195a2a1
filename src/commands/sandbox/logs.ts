import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base/command.js'
import {jqStreamingRefusal} from '../../base/flags.js'
import {sanitize} from '../../io/sanitize.js'
import {fetchLogs, formatLogLine, type LogEntry, logMatcher} from '../../services/sandbox/logs.js'

export default class SandboxLogs extends BaseCommand<typeof SandboxLogs> {
  static summary = `Show the requests the local sandbox answered, oldest first, as \`stripe logs tail\` does.`
  static description = `One line per request on a terminal (time, method, path, status, duration, key id); with --json, one JSON object per line: {seq, time, method, path, query, status, duration_ms, key_id, request_body, response_body}, key secrets, access tokens and signing secrets masked. The sandbox keeps the last 1,000 requests (and appends them to sandbox.log in the config directory). --follow keeps printing new requests until Ctrl-C (exit 0).`
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
    const show = (e: LogEntry) => this.output.line(e, () => io.out(sanitize(formatLogLine(e), 'terminal')))
    const first = await fetchLogs(process.env)
    for (const e of first.filter(matches).slice(-flags.limit)) show(e)
    if (!flags.follow) return
    let after = first.at(-1)?.seq ?? 0
    // Ctrl-C or SIGTERM ends --follow (BaseCommand.interruptible).
    const stop = this.interrupted
    while (!stop.aborted) {
      const entries = await fetchLogs(process.env, after, 20, stop).catch((error: Error) => {
        if (stop.aborted) return []
        throw error
      })
      for (const e of entries) {
        after = e.seq
        if (matches(e)) show(e)
      }
    }
  }
}
