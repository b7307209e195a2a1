/**
 * Flag definitions shared by commands, declared once. Values are checked with the domain's rules
 * (src/domain/validate.ts), so a flag refuses exactly what the service would.
 */
import {Flags} from '@oclif/core'

import {splitArgv} from '../domain/argv.js'
import {MAX_TIMER_SECONDS} from '../domain/env.js'
import {
  API_VERSIONS,
  CURRENCIES,
  CUSTOMER_STATUSES,
  LIMITS,
  LIST_FIELDS,
  ORDER_STATUSES,
  RESOURCE_FIELDS,
  type ResourceName,
} from '../domain/schema.js'
import {checkPage, checkPerPage, checkSearch, parseId} from '../domain/validate.js'
import {parseFields} from '../io/fields.js'

const GLOBAL = 'GLOBAL'

/**
 * What a flag's value is, for programs (`commands --json`, services/command-catalogue.ts): its type beyond oclif's
 * boolean or option, its bounds, the environment variable that sets it when it is not given, and whether a terminal
 * asks for it when it is missing (so that it is required without one). Kept on the flag as its own properties
 * (oclif keeps them on a loaded command; scripts/sort-manifest.ts copies them into the manifest, which drops them).
 */
export interface ValueShape {
  valueType?: 'integer' | 'window' | 'date' | 'seconds' | 'money' | 'key=value' | 'fields' | 'product[:quantity]'
  min?: number
  max?: number
  maxLength?: number
  envVar?: string
  prompted?: boolean
}

/** The flag, with what its value is (ValueShape). */
export function shaped<F extends object>(flag: F, shape: ValueShape): F {
  return Object.assign(flag, shape)
}

/** A flag parsed as an integer and checked by a domain rule. */
function checkedInteger(check: (n: number) => string | undefined, bounds: {min?: number; max?: number}) {
  return Flags.custom<number>({
    ...({...bounds, valueType: 'integer'} satisfies ValueShape),
    async parse(input) {
      const n = /^[+-]?\d+$/.test(input.trim()) ? Number(input.trim()) : Number.NaN
      const problem = check(n)
      if (problem) throw new Error(problem.replace('(got NaN)', `(got ${JSON.stringify(input)})`))
      return n
    },
  })
}

/** Every command: output and diagnostics. */
export const outputFlags = {
  debug: Flags.boolean({description: 'Trace HTTP requests on stderr (secrets are never shown).', helpGroup: GLOBAL}),
  jq: Flags.string({
    description: 'Filter the JSON output with a jq expression (implies --json); strings print raw, one result a line.',
    helpGroup: GLOBAL,
  }),
  json: Flags.boolean({
    description: 'Print exactly one JSON document on stdout (JSON Lines, one object a line, where a command streams: sandbox logs, webhooks listen).',
    helpGroup: GLOBAL,
  }),
}

/** The commands whose result may be taller than a terminal (a table, a report): they page it, and take this flag. */
export const pagerFlag = {
  'no-pager': shaped(
    Flags.boolean({
      description: 'Do not page a long result on a terminal (default: COMMERCE_PAGER, then PAGER, then less -FRX).',
      helpGroup: GLOBAL,
    }),
    {envVar: 'COMMERCE_PAGER'},
  ),
}

/**
 * The known fields as a flag's `options`, so that shell completion (which completes a flag's values from its
 * options) and --help list them, while oclif accepts every value: a comma-separated list is checked by parseFields.
 */
class OpenOptions extends Array<string> {
  override includes(): boolean {
    return true
  }
}

/**
 * `--fields a,b,c` for a command printing records of `resource` (src/io/fields.ts): whole records, or a list's,
 * which carry fewer fields (LIST_FIELDS); a field only a whole record has is then named as such (`wholeRecord`).
 */
export function fieldsFlag(resource: ResourceName | readonly string[], view: 'list' | 'record' = 'record') {
  // A list of fields: the records of a local file of ours (the history), whole in lists and alone.
  const known: readonly string[] = typeof resource !== 'string' ? resource : view === 'list' ? LIST_FIELDS[resource] : RESOURCE_FIELDS[resource]
  const whole = typeof resource !== 'string' ? [] : RESOURCE_FIELDS[resource].filter((f) => !known.includes(f))
  const flag = shaped(
    Flags.custom<string[]>({
      description: `Print only these fields, in this order (comma-separated; nested as metadata.plan), in tables, tab-separated rows and --json alike: any field the records carry. Known: ${known.join(', ')}.${whole.length > 0 ? ` A list's records do not carry ${whole.join(', ')}: \`get\` reads a whole one.` : ''}`,
      helpValue: 'a,b,c',
      options: OpenOptions.from(known),
      async parse(input) {
        try {
          // Which names exist is judged against the records too (io/fields.ts): a service sends fields we do not know.
          return parseFields(input)
        } catch (error) {
          // A plain Error, as from any flag's parse: BaseCommand names the flag once (`--fields: ...`, exit 2).
          throw new Error((error as Error).message.replace(/^--fields: /, ''))
        }
      },
    })(),
    {valueType: 'fields'},
  )
  // Beside the flag, for BaseCommand to hand to io/fields.ts (oclif keeps a flag's own properties).
  ;(flag as unknown as {wholeRecord: readonly string[]}).wholeRecord = whole
  return {fields: flag}
}

export const profileFlag = {
  profile: shaped(
    Flags.string({
      char: 'p',
      description: 'Profile to use (default: COMMERCE_PROFILE, then the chosen profile, then "default").',
      helpGroup: GLOBAL,
    }),
    {envVar: 'COMMERCE_PROFILE'},
  ),
}

/** Why --jq is refused where output streams (export, api --paginate, JSON lines): what to do instead. */
export function jqStreamingRefusal(command: string, why = 'its output streams so that memory stays flat'): string {
  return `${why}; pipe it to jq instead: \`${command} | jq EXPR\``
}

/** Every command that talks to the service. */
export const apiFlags = {
  ...outputFlags,
  ...profileFlag,
  'allow-insecure-http': Flags.boolean({
    description: 'Allow a plain http:// base URL to a host that is not this machine (key secret and tokens travel in clear).',
    helpGroup: GLOBAL,
  }),
  'base-url': shaped(Flags.string({description: 'Service base URL (default: COMMERCE_BASE_URL, then the profile).', helpGroup: GLOBAL}), {
    envVar: 'COMMERCE_BASE_URL',
  }),
  'max-wait': Flags.integer({
    default: 120,
    description: 'Longest total wait, in seconds, for rate-limit (429) retries.',
    helpGroup: GLOBAL,
    max: MAX_TIMER_SECONDS,
    min: 0,
  }),
}

/** Only on operations that also exist in v1. */
export const apiVersionFlag = {
  'api-version': Flags.option({
    description: "API version (default: the profile's, else v2). v1 is deprecated.",
    helpGroup: GLOBAL,
    options: API_VERSIONS,
  })(),
}

export const pageFlags = {
  all: Flags.boolean({description: 'Fetch every page.', exclusive: ['limit', 'page']}),
  limit: checkedInteger((n) => (Number.isInteger(n) && n >= 1 ? undefined : `must be an integer of at least 1 (got ${n})`), {min: 1})({
    char: 'L',
    description: 'Return the first N records, fetching as many pages as needed.',
    exclusive: ['all'],
  }),
  page: checkedInteger(checkPage, {min: LIMITS.page.min})({description: 'Page to show (1-based).', exclusive: ['all']}),
  'per-page': checkedInteger(checkPerPage, LIMITS.perPage)({description: 'Records per page (1-100).'}),
}

export const searchFlag = Flags.custom<string>({
  char: 'q',
  ...({maxLength: LIMITS.searchMaxLength} satisfies ValueShape),
  async parse(input) {
    const problem = checkSearch(input)
    if (problem) throw new Error(problem)
    return input
  },
})

export const currencyFlag = Flags.option({description: 'Currency.', options: CURRENCIES})

export const customerStatusFlag = Flags.option({char: 's', description: 'Status.', options: CUSTOMER_STATUSES})

export const orderStatusFlag = Flags.option({char: 's', description: 'Status.', options: ORDER_STATUSES})

export const yesFlag = {
  yes: Flags.boolean({char: 'y', description: 'Do not ask for confirmation (required without a terminal); the checks still run.'}),
}

/** `--yes` where a question is asked only after a person picked the record on a terminal (no question without one). */
export const pickedYesFlag = {
  yes: Flags.boolean({char: 'y', description: 'Do not ask to confirm the change to a customer picked on a terminal; the checks still run.'}),
}

/** Commands that change the account: every check runs, nothing that changes anything is sent (api/dry-run.ts). */
export const dryRunFlag = {
  'dry-run': Flags.boolean({
    description: 'Run every check (and no question), print what would be sent (JSON with --json), and send nothing that changes anything.',
  }),
}

/** A positive integer id (customer, order, product), as an argument parser; an argument's error names it. */
export async function parseIdArg(input: string, context?: {token?: {type: string; arg?: string}}): Promise<number> {
  const id = parseId(input.trim())
  const arg = context?.token?.type === 'arg' && context.token.arg ? `${context.token.arg.toUpperCase()} ` : ''
  if (id === undefined) throw new Error(`${arg || 'an id '}must be a positive integer (got ${JSON.stringify(input)})`)
  return id
}

/** `--metadata KEY=VALUE` (repeatable). */
export const metadataFlag = Flags.custom<{key: string; value: string}>({
  multiple: true,
  ...({valueType: 'key=value'} satisfies ValueShape),
  async parse(input) {
    const eq = input.indexOf('=')
    if (eq <= 0) throw new Error(`expected KEY=VALUE (got ${JSON.stringify(input)})`)
    return {key: input.slice(0, eq), value: input.slice(eq + 1)}
  },
})

/** A flag naming a resource by its id (a positive integer). */
export const idFlag = Flags.custom<number>({parse: parseIdArg, ...({min: 1, valueType: 'integer'} satisfies ValueShape)})

/** What every list command takes: a pager, --fields of its resource, the API version, and paging. */
export function listFlags(resource: ResourceName) {
  return {...pagerFlag, ...fieldsFlag(resource, 'list'), ...apiVersionFlag, ...pageFlags}
}

/** The filters of a customers list and export, one set for both (the same query). */
export const customerFilterFlags = {
  search: searchFlag({description: 'Free-text search over name and email (v2 only; at most 120 characters).'}),
  status: customerStatusFlag({description: 'Only customers with this status.'}),
}

/** The filters of an orders list and export. */
export const orderFilterFlags = {
  customer: idFlag({description: "Only this customer's orders."}),
  status: orderStatusFlag({description: 'Only orders with this status.'}),
}

interface FlagShape {
  char?: string
  options?: readonly string[]
  type?: string
}

/**
 * Enum values in any case: `--status ACTIVE`, `-s Paid`, `--currency=usd` become the service's spelling before
 * oclif checks them against the flag's options (it compares exactly). Other tokens are left as they are.
 */
export function normalizeEnumValues(argv: readonly string[], flags: Record<string, FlagShape>): string[] {
  const byToken = new Map<string, readonly string[]>()
  for (const [name, flag] of Object.entries(flags)) {
    if (!flag.options) continue
    byToken.set(`--${name}`, flag.options)
    if (flag.char) byToken.set(`-${flag.char}`, flag.options)
  }
  const canonical = (options: readonly string[], value: string) => options.find((o) => o.toLowerCase() === value.toLowerCase()) ?? value
  const {after, before: out} = splitArgv(argv)
  for (let i = 0; i < out.length; i++) {
    const token = out[i]
    const eq = token.indexOf('=')
    if (token.startsWith('--') && eq > 0) {
      const options = byToken.get(token.slice(0, eq))
      if (options) out[i] = `${token.slice(0, eq + 1)}${canonical(options, token.slice(eq + 1))}`
      continue
    }
    const options = byToken.get(token)
    if (options && i + 1 < out.length) {
      out[i + 1] = canonical(options, out[i + 1])
      i++
    }
  }
  return after === undefined ? out : [...out, '--', ...after]
}
