/**
 * `commerce mcp`: a Model Context Protocol server over stdio, on the official TypeScript SDK (its low-level Server,
 * so that each tool's input schema is the JSON Schema of tool-kit.ts, written once). Stdout carries the protocol
 * only; anything said goes to stderr. The tools that change the account are listed, and run, only when `allowWrites`.
 * A tool's failure is a tool error carrying the CLI's error document (`{"error": {"code", ...}}`), never a secret.
 * The server ends when its client goes away (standard input closes).
 */
import type {Readable, Writable} from 'node:stream'

import {redactBody} from '../../api/redact.js'
import {historyScope, newReference} from '../../config/history.js'
import {option, phrase} from '../../domain/phrase.js'
import {closest} from '../../domain/suggest.js'
import {ERROR_CODES, UsageError} from '../../errors.js'
import {jsonText} from '../../domain/text.js'
import {HISTORY_READ, HISTORY_UNDO} from './history-tools.js'
import {READ_TOOLS} from './read-tools.js'
import {errorResult, type Tool, type ToolDeps} from './tool-kit.js'
import {WRITE_TOOLS} from './write-tools.js'

export interface ServeOptions {
  deps: ToolDeps
  /** The tools offered (toolsOffered): the reads, the writes when allowed, narrowed by --tools and --toolsets. */
  tools: Tool[]
  /** Why no call can succeed (no sandbox running, a profile that does not exist): said in the instructions and by every call. */
  problem?: {code: string; message: string; hint?: string | null}
  /** What the token may do, said in the instructions: its scopes, or why they are not known. */
  access?: string
  allowWrites: boolean
  version: string
  /** The package's folder: its docs pages are offered as resources (resources.ts). */
  root: string
  /** Aborted on SIGTERM (and SIGINT, SIGHUP): nothing more is read, the calls in flight are answered, the server closes. */
  stop?: AbortSignal
  stdin: Readable
  stdout: Writable
  /** The CLI's error document for a failure (base/error-shape.ts, its options named as the tools name them). */
  describe(error: unknown): {code: string; message: string}
  /** A line for a person (stderr). */
  say(text: string): void
}

/** The sets of tools `--toolsets` names; auth_status is always offered. */
export const TOOLSETS = ['customers', 'orders', 'products', 'webhooks', 'stats', 'history', 'account'] as const
const SET_OF: Record<string, (typeof TOOLSETS)[number]> = {
  auth_status: 'account',
  customers_stats: 'stats',
  orders_stats: 'stats',
  products_top: 'stats',
  webhook_deliveries: 'webhooks',
}
const setOf = (tool: Tool) => SET_OF[tool.name] ?? tool.name.split('_')[0]

/** Every tool the server knows: the reads, and the writes when allowed. */
export function offeredTools(allowWrites: boolean): Tool[] {
  return allowWrites ? [...READ_TOOLS, HISTORY_READ, ...WRITE_TOOLS, HISTORY_UNDO] : [...READ_TOOLS, HISTORY_READ]
}

/** The tools offered: the reads (and writes when allowed), only those named (`tools`) or of the sets named (`toolsets`). */
export function toolsOffered(o: {allowWrites: boolean; tools?: string[]; toolsets?: string[]}): Tool[] {
  const all = offeredTools(true)
  const unknown = (names: string[], known: readonly string[], what: string) => {
    for (const name of names)
      if (!known.includes(name)) {
        const near = closest(name, known)
        throw new UsageError(
          phrase`${option(what)}: no ${what === 'tools' ? 'tool' : 'tool set'} named ${JSON.stringify(name)}${near ? ` (did you mean ${near}?)` : ''}; the names: ${known.join(', ')}.`,
        )
      }
  }
  unknown(
    o.tools ?? [],
    all.map((t) => t.name),
    'tools',
  )
  unknown(o.toolsets ?? [], TOOLSETS, 'toolsets')
  return offeredTools(o.allowWrites).filter(
    (t) => t.name === 'auth_status' || ((!o.tools || o.tools.includes(t.name)) && (!o.toolsets || o.toolsets.includes(setOf(t)))),
  )
}

/** A value as a tool returns it: secrets masked by field name and prefix (api/redact.ts), as in --debug traces. */
function safe(value: unknown): Record<string, unknown> {
  const masked = JSON.parse(redactBody(JSON.stringify(value ?? null))) as unknown
  return masked !== null && typeof masked === 'object' && !Array.isArray(masked) ? (masked as Record<string, unknown>) : {result: masked}
}

/** Checks a tool's arguments against its input schema: an error message, or undefined when they conform. */
type ArgumentCheck = (tool: Tool, args: Record<string, unknown>) => string | undefined

async function call(o: ServeOptions, check: ArgumentCheck, name: string, args: Record<string, unknown>, withdraw: (tool: Tool) => void) {
  const tool = offeredTools(true).find((t) => t.name === name)
  const refuse = (code: string, message: string, hint: string | null = null) => {
    const exit = (ERROR_CODES as Record<string, {exit: number}>)[code]?.exit ?? 2
    const error = {code, errors: {}, exit_code: exit, hint, message, retry_after: null, service_message: null, status: null}
    return {content: [{text: jsonText({error}), type: 'text' as const}], isError: true, structuredContent: {error}}
  }
  if (!tool) return refuse('usage', `No tool named ${JSON.stringify(name)}.`)
  if (tool.writes && !o.allowWrites)
    return refuse(
      'usage',
      `${name} changes the account: the server was started read-only. Start it with \`commerce mcp --allow-writes\` to allow it.`,
    )
  if (!o.tools.includes(tool)) return refuse('usage', `${name} is not offered: the server was started with a choice of tools that leaves it out.`)
  if (o.problem) return refuse(o.problem.code, o.problem.message, o.problem.hint ?? null)
  // What a model sends is checked against the tool's schema before any service sees it (a string id, an extra field);
  // an argument the tool does not take is named, with the nearest it does.
  const known = Object.keys(tool.inputSchema.properties)
  const unknown = Object.keys(args).find((key) => !known.includes(key))
  if (unknown !== undefined) {
    const near = closest(unknown, known)
    return refuse(
      'usage',
      `${name}: no argument named ${JSON.stringify(unknown)}${near ? ` (did you mean ${near}?)` : ''}; it takes ${known.join(', ')}.`,
    )
  }
  const problem = check(tool, args)
  if (problem) return refuse('usage', `${name}: ${problem}`)
  try {
    // In the history, a call is a run of its own, its command the call as the model made it (secrets masked).
    const command = `${name} ${redactBody(jsonText(args))}`
    const result = safe(await historyScope.run({command, run: newReference()}, () => tool.run(args, o.deps)))
    // The text most hosts hand the model: the same data, compact, nothing raw that could act on a reader.
    return {content: [{text: jsonText(result), type: 'text' as const}], structuredContent: result}
  } catch (error) {
    const described = safe({error: o.describe(error)})
    // Which scope an operation needs is not shown by the spec: a tool the service refused for one is withdrawn then.
    if ((described.error as {code?: string}).code === 'permission_denied') withdraw(tool)
    return {content: [{text: jsonText(described), type: 'text' as const}], isError: true, structuredContent: described}
  }
}

/** Serves until the client goes away. */
export async function serveMcp(o: ServeOptions): Promise<void> {
  const [{Server}, {PacedStdioTransport}, types, {AjvJsonSchemaValidator}, resources] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('./stdio-transport.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/validation/ajv'),
    import('./resources.js'),
  ])
  const {CallToolRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema} = types
  const validator = new AjvJsonSchemaValidator()
  const validators = new Map(offeredTools(true).map((t) => [t.name, validator.getValidator(t.inputSchema)]))
  const check: ArgumentCheck = (tool, args) => {
    const verdict = validators.get(tool.name)!(args)
    return verdict.valid ? undefined : `the arguments do not match the tool's input schema: ${verdict.errorMessage}`
  }
  const server = new Server(
    {name: 'commerce', title: 'Commerce Service (commerce CLI)', version: o.version},
    {
      capabilities: {resources: {}, tools: {listChanged: true}},
      instructions:
        "Operate a Commerce Service account: customers, orders, refunds, products, figures over time, webhooks. Amounts are integers in the money_unit a result states. Lists return one page and the call for the next. The resources hold the OpenAPI document and the CLI's documentation." +
        (o.access ? ` ${o.access}` : '') +
        (o.problem ? ` No call can succeed now: ${o.problem.message}${o.problem.hint ? ` ${o.problem.hint}` : ''} (${o.problem.code}).` : ''),
    },
  )
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: o.tools.map(({annotations, description, inputSchema, name, outputSchema, title}) => ({
      annotations: {...annotations, title},
      description,
      inputSchema,
      name,
      // A failed call's structuredContent is the error document: the schema says it, so a client that checks it (the
      // SDK's does, errors included) accepts both.
      outputSchema: {anyOf: [outputSchema, errorResult], type: 'object' as const},
      title,
    })),
  }))
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    call(o, check, request.params.name, request.params.arguments ?? {}, (tool) => {
      const at = o.tools.indexOf(tool)
      if (at < 0 || tool.name === 'auth_status') return
      o.tools.splice(at, 1)
      o.say(`${tool.name} is no longer offered: the service refused it for a missing permission (scope).`)
      void server.sendToolListChanged().catch(() => {})
    }),
  )
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({resources: resources.listResources(o.root)}))
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const found = await resources.readResource(o.root, request.params.uri)
    if (!found)
      throw new types.McpError(types.ErrorCode.InvalidParams, `No resource at ${JSON.stringify(request.params.uri)}: resources/list names them.`)
    return {contents: [{...found, uri: request.params.uri}]}
  })
  // The transport reads no more than it can answer, and answers what it read before closing: when the client closes
  // its end, or on a signal (a call in flight is aborted with the command, its answer the `terminated` error).
  const transport = new PacedStdioTransport(o.stdin, o.stdout)
  const closed = new Promise<void>((resolve) => (server.onclose = resolve))
  // A signal that came before (while the key was checked) stops it as soon as it starts: no 'abort' event comes again.
  const stop = () => transport.stop(String(o.stop?.reason ?? 'SIGTERM'))
  if (o.stop?.aborted) stop()
  else o.stop?.addEventListener('abort', stop, {once: true})
  // Alive until closed: once the client's end of stdin has closed, nothing else may hold the event loop while the last
  // calls finish (a retry's wait, a lock's).
  const alive = setInterval(() => {}, 2 ** 30)
  void closed.then(() => clearInterval(alive))
  await server.connect(transport)
  o.say(`commerce MCP server ready (${o.tools.length} tools, ${o.allowWrites ? 'writes allowed' : 'read-only'}).`)
  if (o.problem) o.say(`Every call will fail until this is fixed: ${o.problem.message}${o.problem.hint ? ` ${o.problem.hint}` : ''}`)
  await closed
}
