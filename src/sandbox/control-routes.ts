/** The control path's routes, as `GET /_sandbox` lists them and the README describes them. */
import {CONTROL_PREFIX} from './decisions.js'

export const CONTROL_ROUTES = [
  {description: 'This description, with counts of the stored records.', method: 'GET', path: CONTROL_PREFIX},
  {description: 'Move a pending order to paid; sends order.paid to subscribed endpoints.', method: 'POST', path: `${CONTROL_PREFIX}/orders/{id}/pay`},
  {description: 'Move a paid order to shipped; sends order.shipped.', method: 'POST', path: `${CONTROL_PREFIX}/orders/{id}/ship`},
  {
    description:
      'Make an event happen. Body {"type", "order_id"?, "customer_id"?, "set"?: {"data.FIELD": value}}: the change the event reports happens to that order or customer, or to a new one (orders for the one sandbox trigger customer); "set" overrides fields of the delivered payload only (422 on a field the payload does not have, before anything changes).',
    method: 'POST',
    path: `${CONTROL_PREFIX}/events`,
  },
  {description: 'Webhook delivery attempts, newest first.', method: 'GET', path: `${CONTROL_PREFIX}/deliveries`},
  {
    description: 'The request log, oldest first: ?after=SEQ for newer entries only, ?wait=S to wait up to S s (max 25) for one.',
    method: 'GET',
    path: `${CONTROL_PREFIX}/logs`,
  },
  {
    description:
      'Add a fault rule. Body {"path": GLOB, "method"?, "status"?, "retry_after"?, "delay_ms"?, "drop"?, "count"? | "rate"?, "random_seed"?}; only /api/ requests; one application unless count or rate.',
    method: 'POST',
    path: `${CONTROL_PREFIX}/faults`,
  },
  {description: 'The fault rules in force.', method: 'GET', path: `${CONTROL_PREFIX}/faults`},
  {description: 'Remove every fault rule.', method: 'DELETE', path: `${CONTROL_PREFIX}/faults`},
  {description: 'The latest 100 customers and orders and every webhook endpoint, for the inspector.', method: 'GET', path: `${CONTROL_PREFIX}/data`},
  {
    description: 'A webhook endpoint\'s signing secret: {"id", "signing_secret"} (`webhooks secret` of an endpoint a scenario made); 404 unknown id.',
    method: 'GET',
    path: `${CONTROL_PREFIX}/webhooks/{id}/secret`,
  },
  {description: 'Orders and gross per day, last 30 days (UTC), per currency: the inspector’s chart.', method: 'GET', path: `${CONTROL_PREFIX}/sales`},
  {description: 'The inspector page (HTML; loopback clients only).', method: 'GET', path: `${CONTROL_PREFIX}/ui`},
  {
    description:
      'Apply a scenario: {"customers"|"orders"|"refunds"|"webhooks": {NAME: create body}}, ${NAME.id} references; answers {ids: {NAME: id}}. Checked whole first: 422 naming kind.NAME.field, nothing created.',
    method: 'POST',
    path: `${CONTROL_PREFIX}/seed`,
  },
  {
    description: 'Empty the data (customers, orders, refunds, webhooks, idempotency keys); the catalogue and key pairs stay.',
    method: 'POST',
    path: `${CONTROL_PREFIX}/reset`,
  },
  {description: 'Save the whole state under a name: {"name"}.', method: 'POST', path: `${CONTROL_PREFIX}/snapshots`},
  {description: 'The saved snapshots.', method: 'GET', path: `${CONTROL_PREFIX}/snapshots`},
  {description: 'Bring back a saved state (the key pairs stay).', method: 'POST', path: `${CONTROL_PREFIX}/snapshots/{name}/restore`},
  {description: 'Delete a saved snapshot.', method: 'DELETE', path: `${CONTROL_PREFIX}/snapshots/{name}`},
] as const
