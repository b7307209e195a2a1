import {Flags} from '@oclif/core'

import type {OperationId} from '../../domain/schema.js'
import {ApiCommand} from '../../base/command.js'
import {sanitize} from '../../io/sanitize.js'
import {dryRunFlag, fieldsFlag} from '../../base/flags.js'
import {EVENT_TYPES, RESOURCE_COLUMNS} from '../../domain/schema.js'
import {createWebhook, splitEvents} from '../../services/webhooks/endpoints.js'

export default class WebhooksCreate extends ApiCommand<typeof WebhooksCreate> {
  static operations: readonly OperationId[] = ['createWebhook']
  static summary = `Register a webhook endpoint (v2) and keep its signing secret in the profile.`
  static description = `The service shows the signing secret only in this answer: it is printed once, and stored in the profile under the endpoint's id (\`config list\` shows it masked), where \`webhooks listen\` finds it. The URL must be HTTPS; against the local sandbox, http://127.0.0.1 URLs are accepted too. The service cannot delete an endpoint.`
  static examples = [
    '<%= config.bin %> webhooks create --url https://example.com/hooks --event order.paid',
    '<%= config.bin %> webhooks create --url https://example.com/hooks --event order.paid --json | jq -r .signing_secret',
  ]
  static fieldFlags = {events: '--event', url: '--url'}
  static flags = {
    ...dryRunFlag,
    ...fieldsFlag('webhook'),
    event: Flags.string({
      // One name for event types on create and listen; the plural is accepted on both.
      aliases: ['events'],
      description: `Event to subscribe to (e.g. ${EVENT_TYPES.join(', ')}, or any name the service knows); repeat, or separate with commas.`,
      multiple: true,
      required: true,
    }),
    url: Flags.string({description: 'HTTPS URL the service delivers to.', required: true}),
  }

  async run(): Promise<void> {
    const {flags, io} = this
    const {endpoint, note, profile} = await createWebhook(this.ctx, {events: splitEvents(flags.event), url: flags.url})
    if (note) io.warn(sanitize(note, 'terminal'))
    await this.output.result(endpoint, async () => {
      this.output.success(`Registered webhook endpoint ${endpoint.id}.`)
      await this.output.record(endpoint, [...RESOURCE_COLUMNS.webhook, 'signing_secret'])
      io.info(
        `The signing secret is kept in profile "${profile}" (config.json, mode 0600): \`commerce webhooks secret ${endpoint.id} --reveal\` prints it again.`,
      )
    })
  }
}
