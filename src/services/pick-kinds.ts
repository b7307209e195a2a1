/**
 * The one registry of what a person can pick an id from: each kind of record (services/pickers.ts lists its
 * candidates), the noun a picker asks with (base/pick.ts), and the commands whose id argument is completed from the
 * account in bash and zsh (services/completion.ts, the hidden `completion-ids` command). A new kind, or a new command
 * with a picker, is one entry here: the compiler then asks for its candidates, and test/build/registries.test.ts fails
 * for a command that picks an id but is not listed.
 */
export const PICK_KINDS = {
  customer: {commands: ['customers delete', 'customers get', 'customers update'], noun: 'customer'},
  event: {commands: ['webhooks events get', 'webhooks replay'], noun: 'event'},
  order: {commands: ['orders get'], noun: 'order'},
  'orderable-customer': {commands: [], noun: 'customer (active or invited)'},
  product: {commands: ['products get'], noun: 'product'},
  'refundable-order': {commands: ['orders refund'], noun: 'order (paid or shipped)'},
} as const satisfies Record<string, {commands: readonly string[]; noun: string}>

export type PickKind = keyof typeof PICK_KINDS

export const PICK_KIND_NAMES = Object.keys(PICK_KINDS) as PickKind[]

/** The command (its words) whose id argument completes from the account -> the kind of its ids. */
export const ID_COMPLETIONS: Readonly<Record<string, PickKind>> = Object.fromEntries(
  PICK_KIND_NAMES.flatMap((kind) => PICK_KINDS[kind].commands.map((command) => [command, kind])),
)
