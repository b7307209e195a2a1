/**
 * Every answer of an in-process sandbox checked against the OpenAPI document (src/sandbox/openapi.ts), both ways: a
 * status the operation does not document, or a body that breaks its schema, is a violation; so is an accepted (2xx)
 * request whose body breaks the operation's request schema; and so is what the sandbox does that the document does
 * not say: a field of an answer that its schema does not declare (`undeclaredFields`), or a query parameter the
 * sandbox read (`queryRead`) that the operation does not declare. test/helpers/openapi-setup.ts fails the test that
 * caused one.
 * Only /api/ answers are checked (the control path is the sandbox's own), never an injected fault's.
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {isEmail} from '@hyperjump/json-schema-formats'
import {Ajv2020, type ValidateFunction} from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

import {openApiDocument, SANDBOX_API_VERSION} from '../../src/sandbox/openapi.js'
import type {LogEntry} from '../../src/domain/sandbox-control.js'
import type {SandboxAnswer} from '../../src/sandbox/server-handle.js'

export const DOCUMENT = openApiDocument(SANDBOX_API_VERSION) as {paths: Record<string, Record<string, any>>; components: any}
const ID = 'https://commerce-cli.invalid/openapi.json'

type Operation = {responses: Record<string, any>; requestBody?: any}
const routes = Object.entries(DOCUMENT.paths).map(([template, methods]) => ({
  methods: methods as Record<string, Operation>,
  regex: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
  template,
}))

let ajv: Ajv2020 | undefined
const compiled = new Map<string, ValidateFunction>()

/** A validator for a schema of the document (a `$ref` into its components). */
function validatorOf(schema: {$ref?: string}): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({allErrors: true, strict: false})
    addFormats.default(ajv)
    // JSON Schema's email is RFC 5321's Mailbox (quoted local parts, address literals); ajv-formats' is narrower.
    ajv.addFormat('email', isEmail)
    ajv.addSchema({$id: ID, components: DOCUMENT.components})
  }
  const key = schema.$ref ?? JSON.stringify(schema)
  const known = compiled.get(key)
  if (known) return known
  const made = ajv.compile(schema.$ref ? {$ref: `${ID}${schema.$ref}`} : schema)
  compiled.set(key, made)
  return made
}

/**
 * The problems of one answer (empty when it conforms, or when it is not an operation of the document). A body the
 * request log left out for its size (`bodyOmitted`) is not checked; its status is.
 */
export function problemsOf(
  answer: Pick<SandboxAnswer, 'method' | 'path' | 'status' | 'text' | 'requestBody'> & {
    query?: string
    queryRead?: string[]
    bodyOmitted?: boolean
    /** The headers the sandbox set on the answer (HTTP's own, such as Content-Type, are not the document's to declare). */
    headers?: Record<string, string>
  },
): string[] {
  if (!answer.path.startsWith('/api/')) return []
  const route = routes.find((r) => r.regex.test(answer.path))
  const op = route?.methods[answer.method.toLowerCase()]
  if (!route || !op) return []
  const where = `${answer.method} ${route.template} -> ${answer.status}`
  const response = op.responses[String(answer.status)]
  if (!response)
    return [`${where}: the document does not list status ${answer.status} for this operation (it lists ${Object.keys(op.responses).join(', ')})`]
  const problems: string[] = []
  const schema = response.content?.['application/json']?.schema
  const bodyKnown = !answer.bodyOmitted
  if (bodyKnown && schema) {
    let body: unknown
    try {
      body = answer.text === undefined ? undefined : JSON.parse(answer.text)
    } catch {
      return [`${where}: the body is not JSON`]
    }
    const validate = validatorOf(schema)
    if (!validate(body)) problems.push(`${where}: the body breaks its schema: ${ajv!.errorsText(validate.errors)}`)
    for (const field of undeclaredFields(schema, body, '')) problems.push(`${where}: the body has ${field}, which its schema does not declare`)
  } else if (bodyKnown && answer.text !== undefined && answer.text !== '') problems.push(`${where}: a body where the document has none`)
  const requestSchema = op.requestBody?.content?.['application/json']?.schema
  if (answer.status < 300 && requestSchema && answer.requestBody !== null && answer.requestBody !== undefined) {
    const validate = validatorOf(requestSchema)
    if (!validate(answer.requestBody))
      problems.push(`${where}: an accepted request body breaks the request schema: ${ajv!.errorsText(validate.errors)}`)
  }
  if (answer.headers) problems.push(...headerProblems(response, answer.headers, where))
  if (answer.status < 300) problems.push(...queryProblems(op, answer.query ?? '', where))
  const declared = new Set((op as {parameters?: Array<{in: string; name: string}>}).parameters?.filter((p) => p.in === 'query').map((p) => p.name))
  for (const name of answer.queryRead ?? [])
    if (!declared.has(name)) problems.push(`${where}: the sandbox reads the query parameter ${name}, which the document does not declare`)
  return problems
}

/** Headers HTTP itself carries: not the document's to declare. */
const HTTP_HEADERS = new Set(['content-type', 'content-length', 'connection', 'date', 'keep-alive', 'transfer-encoding'])

/** Tied both ways: a header the sandbox sent is declared on that response, and a required one declared is sent. */
function headerProblems(response: {headers?: Record<string, {required?: boolean}>}, sent: Record<string, string>, where: string): string[] {
  const declared = new Map(Object.entries(response.headers ?? {}).map(([name, h]) => [name.toLowerCase(), h]))
  const names = Object.keys(sent).map((name) => name.toLowerCase())
  return [
    ...names
      .filter((name) => !HTTP_HEADERS.has(name) && !declared.has(name))
      .map((name) => `${where}: sends the header ${name}, which the document does not declare`),
    ...[...declared]
      .filter(([name, h]) => h.required && !names.includes(name))
      .map(([name]) => `${where}: the document requires the header ${name}, which was not sent`),
  ]
}

/** A schema of the document with its `$ref` followed. */
function resolved(schema: any): any {
  let s = schema
  while (s?.$ref) s = DOCUMENT.components.schemas[String(s.$ref).split('/').pop()!]
  return s
}

/**
 * The fields of `value` (as `path.field`) that `schema` does not declare: an object's keys outside its properties
 * (and those of each part of an `allOf`), unless it takes any (`additionalProperties`); in nested objects and array
 * items likewise. The other direction of the check: what the sandbox sends, the document must say.
 */
export function undeclaredFields(schema: unknown, value: unknown, path: string): string[] {
  const s = resolved(schema)
  if (!s || value === null || typeof value !== 'object') return []
  if (Array.isArray(value)) return s.items ? value.flatMap((v, i) => undeclaredFields(s.items, v, `${path}[${i}]`)).slice(0, 5) : []
  const parts = [s, ...(s.allOf ?? []).map(resolved)]
  if (parts.some((p) => p.additionalProperties !== undefined && p.additionalProperties !== false)) return []
  const properties: Record<string, unknown> = Object.assign({}, ...parts.map((p) => p.properties ?? {}))
  if (Object.keys(properties).length === 0 && !parts.some((p) => p.type === 'object')) return []
  const out: string[] = []
  for (const [key, child] of Object.entries(value)) {
    const where = path ? `${path}.${key}` : key
    if (!(key in properties)) out.push(where)
    else out.push(...undeclaredFields(properties[key], child, where))
  }
  return out
}

/** An accepted request's query parameters against the operation's (integers typed as the sandbox reads them). */
function queryProblems(op: Operation & {parameters?: Array<{in: string; name: string; schema: object}>}, query: string, where: string): string[] {
  const problems: string[] = []
  for (const [name, value] of new URLSearchParams(query)) {
    const parameter = op.parameters?.find((p) => p.in === 'query' && p.name === name)
    if (!parameter) continue
    const typed = (parameter.schema as {type?: string}).type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value
    const validate = validatorOf(parameter.schema)
    if (!validate(typed))
      problems.push(`${where}: an accepted query parameter ${name}=${value} breaks its schema: ${ajv!.errorsText(validate.errors)}`)
  }
  return problems
}

const violations: string[] = []

/** What startTestSandbox gives the sandbox as `onAnswer`. */
export function recordAnswer(
  answer: Omit<SandboxAnswer, 'queryRead' | 'headers'> & {queryRead?: string[]; bodyOmitted?: boolean; headers?: Record<string, string>},
): void {
  for (const problem of problemsOf(answer)) if (violations.length < 20) violations.push(problem)
}

/**
 * The answers a sandbox process logged in CONFIG_DIR (`sandbox.log` and its rotated `.1`, JSON lines), each checked
 * as recordAnswer checks an in-process one. Secrets in the log are masked, which leaves them strings; answers shaped
 * by a fault are not the sandbox's own; a line cut short by a process killed mid-write is skipped. Returns how many
 * answers were checked.
 */
export function checkRequestLog(configDir: string): number {
  let checked = 0
  for (const file of [join(configDir, 'sandbox.log.1'), join(configDir, 'sandbox.log')]) {
    if (!existsSync(file)) continue
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      let entry: LogEntry
      try {
        entry = JSON.parse(line) as LogEntry
      } catch {
        continue
      }
      if (entry.fault) continue
      const body = entry.response_body as {omitted_bytes?: number} | null
      const bodyOmitted = body !== null && typeof body === 'object' && Object.keys(body).length === 1 && typeof body.omitted_bytes === 'number'
      const text = body === null ? undefined : JSON.stringify(body)
      const {method, path, query, status} = entry
      recordAnswer({bodyOmitted, headers: undefined, method, path, query, requestBody: entry.request_body, status, text})
      checked++
    }
  }
  return checked
}

/** The violations since the last call (and forgets them). */
export function takeViolations(): string[] {
  return violations.splice(0)
}

/** The problems of `value` against a named schema of the document's components (`Customer`, `Order`...). */
export function problemsAgainst(schemaName: string, value: unknown): string[] {
  const validate = validatorOf({$ref: `#/components/schemas/${schemaName}`})
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`)
}
