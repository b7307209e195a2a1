import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {fieldsFlag, pagerFlag} from '../../base/flags.js'
import {RESOURCE_COLUMNS} from '../../domain/schema.js'
import {counted} from '../../domain/text.js'
import {listWebhooks, staleListenEndpoints} from '../../services/webhooks/endpoints.js'

export default class WebhooksList extends ApiCommand<typeof WebhooksList> {
  static operations: readonly OperationId[] = ['listWebhooks']
  static effect = 'reads' as const
  static summary = `List the account's webhook endpoints (v2).`
  static description = `In the table, "secret" says whether this profile holds the endpoint's signing secret (which \`webhooks listen\` needs to reuse an endpoint), and "state" marks the endpoints this profile's \`webhooks listen\` registered: listening, or stale when their listener no longer answers. The service has no operation to delete an endpoint.`
  static examples = ['<%= config.bin %> webhooks list', "<%= config.bin %> webhooks list --json | jq -r '.[].url'"]
  static flags = {...fieldsFlag('webhook', 'list'), ...pagerFlag}

  async run(): Promise<void> {
    const {endpoints, total} = await listWebhooks(await this.ctx.client())
    const profile = await this.ctx.profile()
    const secrets = profile?.webhook_secrets ?? {}
    const listens = profile?.listen_endpoints ?? {}
    // Only for people: the JSON document is the service's list as it came.
    const stale = this.output.json ? new Set<string>() : await staleListenEndpoints(this.ctx, endpoints)
    await this.output.list(endpoints, {
      columns: [...RESOURCE_COLUMNS.webhook, 'secret', 'state'],
      computed: {
        secret: (e) => (String(e.id) in secrets ? 'stored' : '-'),
        state: (e) => (stale.has(String(e.id)) ? 'stale' : String(e.id) in listens ? 'listening' : ''),
      },
      important: ['url'],
      middle: ['url'],
      position: () => ({first: 1, shown: endpoints.length, total}),
    })
    if (stale.size > 0)
      this.output.note(
        `${counted(stale.size, 'endpoint')} that \`webhooks listen\` registered no longer ${stale.size === 1 ? 'answers' : 'answer'} (stale); the service cannot delete endpoints.`,
      )
  }
}
