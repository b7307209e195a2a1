/**
 * What a person can pick an id from: each kind of record (services/pickers.ts lists its candidates) and the noun a
 * picker asks with (base/pick.ts). A command declares the kind it picks on its class (`static pick = 'customer'`):
 * its picker, its id completion in bash and zsh (services/completion.ts) and the docs' lists follow from that.
 */
export const PICK_KINDS = {
  customer: {noun: 'customer'},
  event: {noun: 'event'},
  order: {noun: 'order'},
  'orderable-customer': {noun: 'customer (active or invited)'},
  product: {noun: 'product'},
  'refundable-order': {noun: 'order (paid or shipped)'},
} as const satisfies Record<string, {noun: string}>

export type PickKind = keyof typeof PICK_KINDS

export const PICK_KIND_NAMES = Object.keys(PICK_KINDS) as PickKind[]
