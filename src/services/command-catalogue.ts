/**
 * The CLI described to a program (`commerce commands --json`), and the lists generated from the same declarations
 * (scripts/generated-docs.ts): what each command says of itself on its class (`static operations`, `pick`,
 * `effect`, `exitCodes`), read from oclif's manifest without loading a command. What a command changes is decided here
 * (`effectOf`), once, for `commands --json`, the generated docs and the did-you-mean guard.
 */
import type {Command} from '@oclif/core'

import {OPERATIONS, type OperationId} from '../domain/schema.js'
import {ENVIRONMENT} from '../domain/environment.js'
import {ERROR_CODES} from '../errors.js'

/** What a command changes: nothing; only local state (config, aliases, the local sandbox, the inbox, caches); the account. */
export type Effect = 'reads' | 'local' | 'account'

/** What a command's class declares, as the manifest carries it (BaseCommand's statics). */
export interface Declared {
  operations?: readonly OperationId[]
  pick?: string
  effect?: Effect
  exitCodes?: Record<string, string>
  stdoutIsProtocol?: boolean
  /** What its --json prints, where its operations do not say (a schema, or a sentence). */
  jsonOutput?: Record<string, unknown> | string
}

/** A flag as `commands --json` describes it: only what is so (no null, no false), its value typed. */
export interface FlagOut {
  /** boolean, string, integer, enum, or a grammar of VALUE_TYPES (window, date, seconds, money...). */
  type: string
  description?: string
  char?: string
  default?: unknown
  /** An enum's values; for `fields`, the fields known (any field the records carry is taken). */
  values?: readonly string[]
  minimum?: number
  maximum?: number
  max_length?: number
  repeatable?: true
  /** `--no-NAME` is taken too. */
  negatable?: true
  /** The environment variable read when the flag is not given. */
  env?: string
  required?: true
  /** Asked for on a terminal when missing: required without one. */
  required_without_terminal?: true
  exclusive?: readonly string[]
}

/** The examples of a command it gives: its help has them all. */
const EXAMPLES = 3

/** The grammars of the flag types beyond boolean, string, integer and enum: said once, named by each flag. */
export const VALUE_TYPES: Readonly<Record<string, string>> = {
  date: 'A date (2026-11-30: to the end of that day) or an ISO 8601 date-time (2026-11-30T18:00, with an offset or in the zone).',
  fields: 'Comma-separated field names, nested as metadata.plan; `values` lists those known, any the records carry is taken.',
  'key=value': 'KEY=VALUE; repeatable.',
  money: "A positive integer in the service's money unit (the profile's money_unit: minor or major).",
  'product[:quantity]': 'A product id, and a quantity after a colon (default 1).',
  seconds: 'A positive number of seconds (decimals allowed).',
  window: 'A span back from now (90s, 30m, 24h, 7d, 12w, 6mo), a date or an ISO 8601 date-time.',
}

/** An operation that is no read but changes no record of the account: a token is issued to the caller. */
const NO_CHANGE = new Set<string>(['issueToken'])

/** The commands of oclif's own plugins that we ship (they declare nothing of ours). */
const OCLIF_EFFECTS: Readonly<Record<string, Effect>> = {
  help: 'reads',
  plugins: 'reads',
  'plugins:inspect': 'reads',
  'plugins:install': 'local',
  'plugins:link': 'local',
  'plugins:reset': 'local',
  'plugins:uninstall': 'local',
  'plugins:unlink': 'local',
  'plugins:update': 'local',
}

const EFFECTS: readonly Effect[] = ['reads', 'local', 'account']

/**
 * What a command changes: as it declares (`static effect`), else as its operations say (any but a read or a token's
 * issue changes the account; revoking a token does), else as oclif's own plugins are known to; anything else (a
 * plugin's command that says nothing) is counted as changing the account. Undefined for a command of ours that
 * neither declares nor makes an operation: test/build/registries.test.ts refuses one.
 */
export function effectOf(c: Command.Loadable & Declared, ourPlugin: string): Effect | undefined {
  if (c.effect !== undefined && EFFECTS.includes(c.effect)) return c.effect
  const ops = (c.operations ?? []).filter((op) => Object.hasOwn(OPERATIONS, op))
  if (ops.length > 0) return ops.some((op) => OPERATIONS[op].method !== 'GET' && !NO_CHANGE.has(op)) ? 'account' : 'reads'
  if (Object.hasOwn(OCLIF_EFFECTS, c.id)) return OCLIF_EFFECTS[c.id]
  return c.pluginName === ourPlugin ? undefined : 'account'
}

type CachedFlag = {
  char?: string
  type: 'boolean' | 'option'
  description?: string
  summary?: string
  options?: string[]
  default?: unknown
  required?: boolean
  multiple?: boolean
  allowNo?: boolean
  exclusive?: string[]
  helpGroup?: string
  // What the manifest adds (base/flags.ts ValueShape, scripts/sort-manifest.ts).
  valueType?: string
  min?: number
  max?: number
  maxLength?: number
  envVar?: string
  prompted?: boolean
}

/** A flag for a program: what it takes, nothing said that is not so. */
function flagOut(flag: CachedFlag): FlagOut {
  const integer = flag.valueType === 'integer' || (flag.valueType === undefined && (flag.min !== undefined || flag.max !== undefined))
  const type =
    flag.type === 'boolean' ? 'boolean' : integer ? 'integer' : flag.valueType !== undefined ? flag.valueType : flag.options ? 'enum' : 'string'
  const out: FlagOut = {type}
  // A --fields flag's description is its grammar (value_types.fields) and the fields it knows (values): said there.
  const description = flag.valueType === 'fields' ? undefined : (flag.summary ?? flag.description)
  if (description) out.description = description
  if (flag.char) out.char = flag.char
  if (flag.default !== undefined && typeof flag.default !== 'function' && flag.default !== false) out.default = flag.default
  if (flag.options) out.values = flag.options
  if (flag.min !== undefined) out.minimum = flag.min
  if (flag.max !== undefined) out.maximum = flag.max
  if (flag.maxLength !== undefined) out.max_length = flag.maxLength
  if (flag.multiple) out.repeatable = true
  if (flag.allowNo) out.negatable = true
  if (flag.envVar) out.env = flag.envVar
  if (flag.required) out.required = true
  if (flag.prompted) out.required_without_terminal = true
  if (flag.exclusive?.length) out.exclusive = flag.exclusive
  return out
}

const isGlobal = (flag: CachedFlag) => flag.helpGroup === 'GLOBAL'

/**
 * What a command's --json prints, as the OpenAPI document's schemas (`commerce api --spec`, the MCP resource
 * commerce://openapi.json) name it: its records (a list) or its record, from the operation that answers with a body
 * (a write's, else a read's). Undefined when no operation says: the command's description does.
 */
function jsonOf(ops: readonly OperationId[], schemaOf: (op: string) => string | undefined): Record<string, unknown> | undefined {
  const answering = [...ops.filter((op) => OPERATIONS[op].method !== 'GET'), ...ops.filter((op) => OPERATIONS[op].method === 'GET')].find(
    (op) => op !== 'issueToken' && schemaOf(op) !== undefined,
  )
  if (answering === undefined) return undefined
  const schema = schemaOf(answering)!
  const ref = (name: string) => ({$ref: `#/components/schemas/${name}`})
  return schema.endsWith('Page') ? {items: ref(schema.slice(0, -'Page'.length)), type: 'array'} : ref(schema)
}

/** The environment variables a command reads beyond those every command, or every command that calls the service, reads. */
function envOf(id: string): string[] {
  return ENVIRONMENT.filter((v) => Array.isArray(v.readers) && v.readers.includes(id)).flatMap((v) => v.names)
}

/**
 * Every visible command, described for a program, sorted by id, and the tables they share said once: the exit code of
 * each error code, the global flags (each command names those it takes), the environment, the flag value grammars.
 */
export async function describeCommands(commands: readonly Command.Loadable[], bin: string, ourPlugin: string) {
  const {responseSchemaOf} = await import('../sandbox/openapi.js')
  const globals = new Map<string, FlagOut>()
  // The global flags a command takes are one of a few sets (those of every command, of those that call the service...).
  const globalSets = new Map<string, string[]>()
  const setName = (set: string) => `set${[...globalSets.keys()].indexOf(set) + 1}`
  const described = commands
    // An alias's own entry (oclif lists `plugins:add` as a command) is said by the aliases of the command it runs.
    .filter((c) => !c.hidden && !c.aliases?.includes(c.id))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((command) => {
      const c = command as Command.Loadable & Declared
      const flags = Object.entries((c.flags ?? {}) as Record<string, CachedFlag>)
      for (const [name, flag] of flags) if (isGlobal(flag) && !globals.has(name)) globals.set(name, flagOut(flag))
      const ops = (c.operations ?? []).filter((op) => Object.hasOwn(OPERATIONS, op))
      const effect = effectOf(c, ourPlugin) ?? 'account'
      const globalNames = flags.filter(([, flag]) => isGlobal(flag)).map(([name]) => name)
      const set = globalNames.join(',')
      if (!globalSets.has(set)) globalSets.set(set, globalNames)
      const json = c.stdoutIsProtocol ? undefined : (c.jsonOutput ?? jsonOf(ops, responseSchemaOf))
      const env = envOf(c.id)
      const args = Object.entries(c.args ?? {}).map(([name, a]) => ({
        name,
        ...((a as {description?: string}).description ? {description: (a as {description: string}).description} : {}),
        ...((a as {required?: boolean}).required ? {required: true} : {}),
        // An id a terminal picks when it is missing (base/pick.ts): required without one.
        ...(c.pick !== undefined && name === 'id' ? {required_without_terminal: true} : {}),
      }))
      // What is empty or ours by default is left out: the catalogue stays small enough to hand a model whole.
      return {
        id: c.id,
        summary: c.summary ?? null,
        ...(c.description ? {description: render(c.description, bin)} : {}),
        ...(args.length > 0 ? {args} : {}),
        // By name, as oclif's manifest has them: the order is the one the command declares.
        flags: Object.fromEntries(flags.filter(([, flag]) => !isGlobal(flag)).map(([name, flag]) => [name, flagOut(flag)])),
        global_flags: setName(set),
        // The first examples (the simplest, as each command orders them): its help shows them all.
        ...(c.examples?.length ? {examples: c.examples.slice(0, EXAMPLES).map((e) => render(typeof e === 'string' ? e : e.command, bin))} : {}),
        ...(c.aliases?.length ? {aliases: c.aliases} : {}),
        effect,
        ...(effect === 'account' ? {changes_account: true} : {}),
        ...(ops.length > 0 ? {operations: ops} : {}),
        ...(json === undefined ? {} : {json}),
        ...(env.length > 0 ? {env} : {}),
        ...(c.pick === undefined ? {} : {picks: c.pick}),
        ...(c.exitCodes && Object.keys(c.exitCodes).length > 0 ? {exits: c.exitCodes} : {}),
        ...(c.pluginName && c.pluginName !== ourPlugin ? {plugin: c.pluginName} : {}),
      }
    })
  const shared = shareFlags(described)
  return {
    // A command's words are its id's (`customers:list` is `commerce customers list`).
    bin,
    exit_codes: Object.fromEntries(Object.entries(ERROR_CODES).map(([code, e]) => [code, e.exit])),
    json: {
      dry_run: 'A dry run prints {dry_run: true, sent: false, request, checks}: what would be sent and what the checks found.',
      error:
        'A failure prints {"error": {code, message, hint, errors, exit_code, status, service_message, retry_after}} (schemas/error.schema.json).',
      money: 'A record that carries money carries money_unit (minor or major) beside it.',
      schemas: "A command's `json` names the schemas of the OpenAPI document: `commerce api --spec`, or the MCP resource commerce://openapi.json.",
    },
    environment: {
      every_command: ENVIRONMENT.filter((v) => v.readers === 'every').flatMap((v) => v.names),
      every_command_with_operations: ENVIRONMENT.filter((v) => v.readers === 'service').flatMap((v) => v.names),
      meanings: Object.fromEntries(ENVIRONMENT.map((v) => [v.names.join(', '), v.meaning])),
    },
    value_types: VALUE_TYPES,
    global_flags: Object.fromEntries(globals),
    shared_flags: shared,
    global_flag_sets: Object.fromEntries([...globalSets.values()].map((names, i) => [`set${i + 1}`, names])),
    operations: Object.fromEntries(Object.values(OPERATIONS).map((op) => [op.id, {method: op.method, path: op.path, versions: [...op.versions]}])),
    commands: described,
  }
}

/** A flag many commands take alike, where each takes it: `{$ref: '#/shared_flags/KEY'}`. */
interface SharedRef {
  $ref: string
}

/**
 * Flags described alike on more than one command, said once (`shared_flags`) and referred to where taken; the key is
 * the flag's name, with `~2`, `~3` for its other descriptions (a --fields of another record).
 */
function shareFlags(commands: Array<{flags: Record<string, FlagOut | SharedRef>}>): Record<string, FlagOut> {
  const count = new Map<string, number>()
  const textOf = (name: string, f: FlagOut | SharedRef) => JSON.stringify([name, f])
  for (const c of commands) for (const [name, f] of Object.entries(c.flags)) count.set(textOf(name, f), (count.get(textOf(name, f)) ?? 0) + 1)
  const keys = new Map<string, string>()
  const shared: Record<string, FlagOut> = {}
  for (const c of commands)
    c.flags = Object.fromEntries(
      Object.entries(c.flags).map(([name, f]) => {
        const text = textOf(name, f)
        if ((count.get(text) ?? 0) < 2) return [name, f]
        let key = keys.get(text)
        if (key === undefined) {
          key = name
          for (let n = 2; Object.hasOwn(shared, key); n++) key = `${name}~${n}`
          keys.set(text, key)
          shared[key] = f as FlagOut
        }
        return [name, {$ref: `#/shared_flags/${key}`}]
      }),
    )
  return shared
}

/** A template of oclif's (`<%= config.bin %>`) as it reads. */
const render = (text: string, bin: string) => text.replaceAll('<%= config.bin %>', bin)
