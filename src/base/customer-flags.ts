/** Flags that set customer fields (create and update), and the field -> flag map for error messages. */
import {Flags} from '@oclif/core'

import {LIMITS} from '../domain/schema.js'
import {metadataFlag, shaped} from './flags.js'

export const customerFieldFlags = {
  email: Flags.string({description: 'Email address (unique across the account).'}),
  metadata: metadataFlag({description: 'Metadata entry KEY=VALUE (repeatable).'}),
  name: shaped(Flags.string({description: 'Display name (at most 255 characters).'}), {maxLength: LIMITS.customerNameMaxLength}),
  plan: Flags.string({description: 'Plan, stored as metadata.plan.'}),
}

export const CUSTOMER_FIELD_FLAGS = {
  email: '--email',
  metadata: '--metadata',
  'metadata.plan': '--plan',
  name: '--name',
  send_invite: '--no-send-invite',
  status: '--status',
}
