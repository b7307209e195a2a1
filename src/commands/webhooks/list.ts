import {ApiCommand} from '../../base/command.js'
import {fieldsFlag} from '../../base/flags.js'
import {RESOURCE_COLUMNS} from '../../domain/schema.js'
import {listWebhooks} from '../../services/webhooks/endpoints.js'

export default class WebhooksList extends ApiCommand<typeof WebhooksList> {
  static summary = `List the account's webhook endpoints (v2).`
  static description = `In the table, "secret" says whether this profile holds the endpoint's signing secret (which \`webhooks listen\` needs to reuse an endpoint). The service has no operation to delete an endpoint.`
  static examples = ['<%= config.bin %> webhooks list', "<%= config.bin %> webhooks list --json | jq -r '.[].url'"]
  static flags = fieldsFlag('webhook')

  async run(): Promise<void> {
    const {endpoints, total} = await listWebhooks(await this.ctx.client())
    const secrets = (await this.ctx.profile())?.webhook_secrets ?? {}
    await this.output.list(endpoints, {
      columns: [...RESOURCE_COLUMNS.webhook, 'secret'],
      computed: {secret: (e) => (String(e.id) in secrets ? 'stored' : '-')},
      position: () => ({first: 1, shown: endpoints.length, total}),
    })
  }
}
