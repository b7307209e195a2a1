/**
 * What every tool of the MCP server is made of (services/mcp/read-tools.ts, write-tools.ts): its name, what it
 * tells the model, its input schema (JSON Schema, from the same tables as the commands' flags and the OpenAPI
 * document: src/domain/schema.ts), its annotations, and its handler over the services the commands use.
 */
import type {ApiClient} from '../../api/client.js'
import type {ApiVersion, MoneyUnit} from '../../domain/schema.js'
import {LIMITS} from '../../domain/schema.js'
import {DEFAULT_SINCE, SINCE_FORMS, UNTIL_FORMS} from '../../domain/window-grammar.js'
import type {StatsWindow} from '../stats.js'
import type {AuthContext} from '../credentials.js'
import type {WebhookContext} from '../webhooks/endpoints.js'

/** What the tools use of the command that serves them (commands/mcp.ts builds it from its context). */
export interface ToolDeps {
  ctx: AuthContext & WebhookContext
  client(): Promise<ApiClient>
  /** A client that sends reads and stops at the first request that would change anything (DryRunStop). */
  dryRunClient(): Promise<ApiClient>
  apiVersion(): Promise<ApiVersion>
  moneyUnit(): Promise<MoneyUnit | 'unknown'>
  /** A window as the stats commands read `--since`, `--until`, `--by`, `--utc`. */
  window(args: {since: string; until?: string; by?: string; utc?: boolean}): Promise<{window: StatsWindow; span: string}>
  env: NodeJS.ProcessEnv
  /** Milliseconds since the epoch: the command's clock, which tests give. */
  now(): number
}

export type Args = Record<string, unknown>

export interface Tool {
  name: string
  title: string
  description: string
  inputSchema: {type: 'object'; properties: Record<string, object>; required?: string[]; additionalProperties: false}
  /** What its structuredContent is on success (JSON Schema; the server offers it with the error document beside it). */
  outputSchema: OutputSchema
  annotations: {readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: boolean}
  /** Changes the account: offered only with --allow-writes. */
  writes: boolean
  run(args: Args, deps: ToolDeps): Promise<unknown>
}

export interface OutputSchema {
  type: 'object'
  properties?: Record<string, object>
  required?: string[]
  anyOf?: object[]
}

/** An object result: these keys (typed loosely where the service decides the shape), those always there. */
export const result = (properties: Record<string, object>, required: string[] = Object.keys(properties)): OutputSchema => ({
  properties,
  required,
  type: 'object',
})

const anything = {}
const integer = {type: 'integer'}
const nullable = (type: string) => ({type: [type, 'null']})
const moneyUnit = {enum: ['minor', 'major', 'unknown']}

/** One page of a list tool's records (onePage), with the call for the next. */
export const pageResult = (withMoney = false): OutputSchema =>
  result({
    data: {items: {type: 'object'}, type: 'array'},
    next: nullable('object'),
    page: integer,
    per_page: integer,
    total: nullable('integer'),
    ...(withMoney ? {money_unit: moneyUnit} : {}),
  })

/** A record of the service as it sent it, with its id (and its money's unit when it carries money). */
export const recordResult = (withMoney = false): OutputSchema => result({id: anything, ...(withMoney ? {money_unit: moneyUnit} : {})})

/** The dry-run document (api/dry-run.ts), as `dry_run` returns it. */
export const dryRunResult: OutputSchema = result({
  checks: {type: 'object'},
  dry_run: {const: true},
  request: nullable('object'),
  sent: {const: false},
})

/** The error document (schemas/error.schema.json, loosely): what a failed call's structuredContent is. */
export const errorResult: OutputSchema = result({
  error: result({code: {type: 'string'}, exit_code: integer, hint: nullable('string'), message: {type: 'string'}}, ['code', 'message', 'exit_code']),
})

/** The money figures' results: their window, unit and read, the rest as each report has it. */
export const figuresResult = (withMoney: boolean): OutputSchema =>
  result({
    read: {type: 'object'},
    since: {type: 'string'},
    time_zone: {type: 'string'},
    until: {type: 'string'},
    window: {type: 'string'},
    ...(withMoney ? {money_unit: moneyUnit} : {}),
  })

export {anything, moneyUnit, nullable}

/** A tool that only reads. */
export function reader(t: Omit<Tool, 'annotations' | 'writes'>): Tool {
  return {...t, annotations: {idempotentHint: true, openWorldHint: true, readOnlyHint: true}, writes: false}
}

/** A tool that changes the account. */
export function writer(t: Omit<Tool, 'annotations' | 'writes'> & {destructive: boolean; idempotent: boolean}): Tool {
  const {destructive, idempotent, ...rest} = t
  return {...rest, annotations: {destructiveHint: destructive, idempotentHint: idempotent, openWorldHint: true, readOnlyHint: false}, writes: true}
}

export function object(properties: Record<string, object>, required: string[] = []): Tool['inputSchema'] {
  return {additionalProperties: false, properties, type: 'object', ...(required.length > 0 ? {required} : {})}
}

export const id = (what: string) => ({description: `The ${what}'s id.`, minimum: 1, type: 'integer'})
export const oneOf = (values: readonly string[], description: string) => ({description, enum: [...values], type: 'string'})
export const text = (description: string, extra: object = {}) => ({description, type: 'string', ...extra})

export const paging = {
  page: {default: 1, description: 'The page to read (1-based); a result says the next one.', minimum: LIMITS.page.min, type: 'integer'},
  per_page: {default: 30, description: 'Records per page.', maximum: LIMITS.perPage.max, minimum: LIMITS.perPage.min, type: 'integer'},
}

export const searchText = text('Free text matched against names and emails.', {maxLength: LIMITS.searchMaxLength, minLength: 1})

/** The window of a figures tool, as the stats commands take it. */
export const windowArgs = {
  since: text(`Where the window starts: ${SINCE_FORMS}; a span includes the current unit (7d: today and the 6 days before).`, {
    default: DEFAULT_SINCE,
  }),
  until: text(`Where it ends (default: now): ${UNTIL_FORMS} (a date: the whole day).`),
  utc: {default: false, description: 'Count in UTC instead of the local time zone.', type: 'boolean'},
}

/** One page of a listing: its records, where it stands, and the call that reads the next page, if any. */
export async function onePage<T>(
  listing: {records: AsyncIterable<T>; position: () => {first: number; shown: number; total?: number; page?: number; perPage?: number} | undefined},
  tool: string,
  args: Args,
): Promise<{data: T[]; page: number; per_page: number; total: number | null; next: {tool: string; arguments: Args} | null}> {
  const data: T[] = []
  for await (const record of listing.records) data.push(record)
  const position = listing.position()
  const page = (args.page as number | undefined) ?? 1
  const perPage = position?.perPage ?? (args.per_page as number | undefined) ?? 30
  const total = position?.total ?? null
  const more = total === null ? data.length === perPage : page * perPage < total
  return {data, next: more ? {arguments: {...args, page: page + 1}, tool} : null, page, per_page: perPage, total}
}
