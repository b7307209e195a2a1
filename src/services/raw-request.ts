/**
 * `commerce api`: a raw request to the service (after `gh api`). This module turns the command's strings into
 * an ApiRequest (path, method, typed fields, body, headers) and sends it through the one client, so the
 * contract's headers, retry rules, token handling and --debug redaction apply unchanged.
 */
import type {ApiClient, ApiRequest} from '../api/client.js'
import {pages} from '../api/paginate.js'
import {type HttpMethod, LIMITS, servedOperations} from '../domain/schema.js'
import {checkPage, checkPerPage} from '../domain/validate.js'
import {checkHeaderValue} from '../api/base-url.js'
import {fileProblem} from '../domain/files.js'
import {option, phrase} from '../domain/phrase.js'
import {UsageError} from '../errors.js'
import {isObject} from '../domain/json.js'

export const API_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PATCH', 'DELETE']

/** The 24 operations, one a line (`commerce api --help`), from the table the sandbox routes. */
export function operationLines(): string {
  return servedOperations()
    .map(
      ({op, version}) =>
        `- ${op.method.padEnd(6)} /api/${version}${op.path}`.padEnd(44) + `${op.id}${version.toUpperCase()}${op.auth ? '' : ' (public)'}`,
    )
    .join('\n')
}

/** The OpenAPI document (`commerce api --spec`): the one the sandbox serves, made where it is. */
export async function serviceDescription(): Promise<Record<string, unknown>> {
  const {openApiDocument, SANDBOX_API_VERSION} = await import('../sandbox/openapi.js')
  return openApiDocument(SANDBOX_API_VERSION)
}

/** Reads a file, or standard input for `-`, as text. Supplied by the command. */
export type ReadSource = (path: string) => Promise<string>

export interface RawRequestInput {
  /** As typed: `/api/v2/customers`, `v2/customers`, `customers` (the API version in effect), with an optional query string. */
  path: string
  /** Default: POST when there are fields or an input body, else GET (always GET with --paginate). */
  method?: string
  /** `--field KEY=VALUE`: typed values, `@file` reads a file. */
  fields?: string[]
  /** `--raw-field KEY=VALUE`: always strings. */
  rawFields?: string[]
  /** `--input FILE|-`: the body, as read (JSON text). */
  input?: {source: string; text: string}
  /** `--header "K: V"`. */
  headers?: string[]
  noAuth?: boolean
  paginate?: boolean
}

interface Field {
  key: string
  /** The typed value (body). */
  value: unknown
  /** The text as given, or the file's content (query string). */
  text: string
}

/** `v2/customers` -> `/api/v2/customers`; `customers` -> `/customers` (the client adds `/api/{version}`). */
export function normalizePath(path: string): string {
  const trimmed = path.trim()
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed))
    throw new UsageError(
      phrase`PATH is relative to the base URL (got ${JSON.stringify(path)}); e.g. \`commerce api v2/customers\`, and ${option('baseUrl')} for the host.`,
    )
  const bare = trimmed.replace(/^\/+/, '')
  if (bare === '' || bare.startsWith('?')) throw new UsageError('PATH is empty; e.g. `commerce api customers` or `commerce api /api/v2/products`.')
  if (bare.startsWith('api/')) return `/${bare}`
  if (/^v\d+(?:[/?]|$)/.test(bare)) return `/api/${bare}`
  return `/${bare}`
}

/**
 * A typed value, as `gh api -F` types it: integers without leading zeros, true, false and null; everything else
 * is a string. Integers beyond the safe range stay strings (they would lose digits as numbers).
 */
export function typedValue(text: string): unknown {
  if (text === 'true') return true
  if (text === 'false') return false
  if (text === 'null') return null
  if (/^-?(?:0|[1-9]\d*)$/.test(text) && Number.isSafeInteger(Number(text))) return Number(text)
  return text
}

function splitField(spec: string, flag: 'fields' | 'rawFields'): {key: string; text: string} {
  const eq = spec.indexOf('=')
  if (eq <= 0) throw new UsageError(phrase`${option(flag)} must be KEY=VALUE (got ${JSON.stringify(spec)}).`)
  return {key: spec.slice(0, eq), text: spec.slice(eq + 1)}
}

async function parseFields(input: RawRequestInput, read: ReadSource): Promise<Field[]> {
  const fields: Field[] = []
  for (const spec of input.fields ?? []) {
    const {key, text} = splitField(spec, 'fields')
    if (text.startsWith('@')) {
      const file = text.slice(1)
      if (file === '') throw new UsageError(phrase`${option('fields')} ${key}: @ must be followed by a file name (or - for standard input).`)
      if (file === '-' && input.input?.source === '-')
        throw new UsageError(phrase`Standard input cannot be read twice: ${option('input')} - and ${option('fields')} KEY=@- together.`)
      let content: string
      try {
        content = await read(file)
      } catch (error) {
        throw new UsageError(phrase`${option('fields')} ${key}: ${fileProblem(error, file)}.`)
      }
      fields.push({key, text: content, value: content})
    } else fields.push({key, text, value: typedValue(text)})
  }
  for (const spec of input.rawFields ?? []) {
    const {key, text} = splitField(spec, 'rawFields')
    fields.push({key, text, value: text})
  }
  return fields
}

/** `items[][product_id]` -> ['items', '', 'product_id']; a key that is not of that shape is taken literally. */
function keySegments(key: string): string[] {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key)
  if (!m) return [key]
  return [m[1], ...[...m[2].matchAll(/\[([^[\]]*)\]/g)].map((s) => s[1])]
}

/**
 * Builds a JSON body from fields, with `gh api`'s nesting: `a[b]=1` -> {a: {b: 1}}, `a[]=1` appends to an array,
 * `items[][product_id]=1 items[][quantity]=2` -> {items: [{product_id: 1, quantity: 2}]} (a key already present
 * in the last element starts a new one).
 */
export function buildBody(fields: readonly {key: string; value: unknown}[]): Record<string, unknown> {
  const root: Record<string, unknown> = {}
  for (const {key, value} of fields) {
    const segs = keySegments(key)
    const conflict = () => new UsageError(phrase`${option('fields')} ${key}: conflicts with another field's shape (object, array or value).`)
    let node: unknown = root
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i]
      const last = i === segs.length - 1
      const next = segs[i + 1]
      if (seg === '') {
        if (!Array.isArray(node)) throw conflict()
        if (last) {
          node.push(value)
          break
        }
        let element: unknown = node.at(-1)
        const reusable = next === '' ? Array.isArray(element) : isObject(element) && !(next in element)
        if (!reusable) {
          element = next === '' ? [] : {}
          node.push(element)
        }
        node = element
        continue
      }
      if (!isObject(node)) throw conflict()
      if (last) {
        node[seg] = value
        break
      }
      node[seg] ??= next === '' ? [] : {}
      if (next === '' ? !Array.isArray(node[seg]) : !isObject(node[seg])) throw conflict()
      node = node[seg]
    }
  }
  return root
}

export function parseHeader(spec: string): [string, string] {
  const colon = spec.indexOf(':')
  const name = colon > 0 ? spec.slice(0, colon).trim() : ''
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw new UsageError(phrase`${option('headers')} must be "Name: value" (got ${JSON.stringify(spec)}).`)
  const value = spec.slice(colon + 1).trim()
  checkHeaderValue(phrase`${option('headers')} ${name}`, value)
  return [name, value]
}

export function parseMethod(method: string | undefined, hasBody: boolean): HttpMethod {
  if (method === undefined) return hasBody ? 'POST' : 'GET'
  const upper = method.toUpperCase() as HttpMethod
  if (!API_METHODS.includes(upper))
    throw new UsageError(phrase`${option('method')} must be one of ${API_METHODS.join(', ')} (got ${JSON.stringify(method)}).`)
  return upper
}

export interface PreparedRequest {
  request: ApiRequest
  /** For --paginate: the first page and the page size. */
  page?: number
  perPage?: number
}

/** Turns the command's input into the request to send. Throws UsageError (exit 2) before anything is sent. */
export async function prepareRequest(input: RawRequestInput, read: ReadSource): Promise<PreparedRequest> {
  const fields = await parseFields(input, read)
  // --paginate lists, so it implies GET even with fields (which then are query parameters).
  const method = input.paginate && input.method === undefined ? 'GET' : parseMethod(input.method, fields.length > 0 || input.input !== undefined)
  const full = normalizePath(input.path)
  const q = full.indexOf('?')
  const pathname = q === -1 ? full : full.slice(0, q)
  const query = new URLSearchParams(q === -1 ? '' : full.slice(q + 1))

  let body: unknown
  let rawBody: string | undefined
  if (input.input) {
    if (method === 'GET')
      throw new UsageError(phrase`${option('input')} sends a body, which a GET cannot carry; pass ${option('method')} POST (or PATCH, DELETE).`)
    if (input.input.text.trim() === '') throw new UsageError(phrase`${option('input')} ${input.input.source}: the body is empty.`)
    try {
      JSON.parse(input.input.text)
      rawBody = input.input.text
    } catch (error) {
      throw new UsageError(
        phrase`${option('input')} ${input.input.source}: not valid JSON (${(error as Error).message}). The service takes JSON bodies only.`,
      )
    }
  }
  // Fields go in the query string for a GET, or alongside an --input body (as `gh api` does); else they are the body.
  if (method === 'GET' || input.input) for (const f of fields) query.append(f.key, f.text)
  else if (fields.length > 0) body = buildBody(fields)

  const headers: Record<string, string> = {}
  for (const spec of input.headers ?? []) {
    const [name, value] = parseHeader(spec)
    headers[name.toLowerCase()] = value
  }
  // A caller's own Authorization header is sent as given, in place of the CLI's token.
  const auth = input.noAuth || headers.authorization !== undefined ? false : 'optional'

  let page: number | undefined
  let perPage: number | undefined
  if (input.paginate) {
    if (method !== 'GET') throw new UsageError(phrase`${option('paginate')} follows the pages of a list, which is a GET (got ${method}).`)
    page = pageParam(query, 'page', checkPage)
    perPage = pageParam(query, 'per_page', checkPerPage) ?? LIMITS.perPage.max
  }
  const search = query.toString()
  return {
    page,
    perPage,
    request: {auth, body, headers, method, path: search ? `${pathname}?${search}` : pathname, rawBody},
  }
}

/** Takes `page`/`per_page` out of the query (pagination sets them on every request) and checks them. */
function pageParam(query: URLSearchParams, name: string, check: (n: number) => string | undefined): number | undefined {
  const raw = query.get(name)
  if (raw === null) return undefined
  query.delete(name)
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN
  const problem = check(n)
  if (problem) throw new UsageError(`${name}: ${problem.replace('(got NaN)', `(got ${JSON.stringify(raw)})`)}`)
  return n
}

/** Every `data` record of every page, in order, as they arrive. */
export async function* paginate(client: ApiClient, prepared: PreparedRequest): AsyncGenerator<unknown> {
  for await (const page of pages(client, prepared.request, {all: true, page: prepared.page, perPage: prepared.perPage})) yield* page.data
}
