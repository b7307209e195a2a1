import {readFile} from 'node:fs/promises'

import {Args, Flags} from '@oclif/core'

import {ApiCommand} from '../base/command.js'
import {apiVersionFlag} from '../base/flags.js'
import {fileProblem, readAll} from '../domain/files.js'
import {ApiError, UsageError} from '../errors.js'
import {sanitize} from '../io/sanitize.js'
import {API_METHODS, operationLines, paginate, prepareRequest, serviceDescription} from '../services/raw-request.js'
import {checkRequestBody} from '../services/api-check.js'

export default class Api extends ApiCommand<typeof Api> {
  static historySurface = 'api' as const
  static effect = 'account' as const
  static args = {
    path: Args.string({
      description:
        'Path relative to the base URL: /api/v2/customers, v2/customers, or customers (the API version in effect). May carry a query string.',
    }),
  }

  static summary = `Make a raw request to the service and print the JSON response.`
  static fieldFlags = {fields: '--field', headers: '--header', rawFields: '--raw-field'}
  static description = `The token is sent whenever credentials are available (not with --no-auth, nor when you pass your own Authorization header). The method defaults to POST when --field, --raw-field or --input is given, else GET; --paginate implies GET. --field values are typed: integers without leading zeros, true, false and null; anything else is a string; @FILE reads a file as is (@- standard input). Nested keys as in \`gh api\`: metadata[plan]=pro, items[][product_id]=1. For a GET, or together with --input, the fields are sent as query parameters. The response is printed as JSON (indented on a terminal); a 204 prints nothing. On an HTTP error the response body still goes to stdout (with --json: the {"error": ...} document instead), the error line to stderr, and the exit code follows the table. Retry rules are the usual ones: a POST or PATCH is never repeated after a 5xx or a network error.

--spec prints the service's OpenAPI 3.1 document (what the local sandbox serves at /openapi.json), for an API client or a code generator; it sends nothing.

Operations (METHOD PATH, operationId):
${operationLines()}`

  static examples = [
    '<%= config.bin %> api customers',
    '<%= config.bin %> api --spec > commerce-openapi.json',
    '<%= config.bin %> api /api/v2/customers -X GET --field status=active --field per_page=5',
    '<%= config.bin %> api v2/customers --field email=ada@example.com --field name="Ada Lovelace" --field send_invite=false',
    '<%= config.bin %> api v2/orders --header "Idempotency-Key: $(uuidgen)" --input order.json',
    '<%= config.bin %> api v2/customers --paginate | jq length',
    '<%= config.bin %> api /api/v2/products --no-auth',
  ]

  static flags = {
    ...apiVersionFlag,
    field: Flags.string({char: 'F', description: 'A body (or, for GET, query) parameter KEY=VALUE, typed; @FILE reads a file.', multiple: true}),
    header: Flags.string({char: 'H', description: 'An extra request header "Name: value".', multiple: true}),
    input: Flags.string({description: 'File to send as the JSON body (- for standard input).'}),
    method: Flags.string({char: 'X', description: `HTTP method (${API_METHODS.join(', ')}).`}),
    'no-auth': Flags.boolean({description: 'Send no Authorization header.'}),
    paginate: Flags.boolean({
      description: 'Follow every page of a list and print one JSON array of all the `data` records (--jq runs on that array).',
    }),
    'raw-field': Flags.string({char: 'f', description: 'A parameter KEY=VALUE sent as a string, untyped.', multiple: true}),
    validate: Flags.boolean({
      allowNo: true,
      default: true,
      description: "Check the body against its operation (the service's description) before sending it; --no-validate sends it as it is.",
    }),
    spec: Flags.boolean({description: 'Print the OpenAPI 3.1 document of the service (as the sandbox serves it) and send nothing.'}),
  }

  protected v2Hint(): string {
    return 'commerce api /api/v2/...'
  }

  async run(): Promise<void> {
    const {flags} = this
    if (flags.spec) return this.output.document(await serviceDescription())
    if (this.args.path === undefined) throw new UsageError('Missing argument PATH (path relative to the base URL), or --spec.')
    const read = async (path: string) => (path === '-' ? (await readAll(this.deps.stdin)).toString('utf8') : readFile(path, 'utf8'))
    const prepared = await prepareRequest(
      {
        fields: flags.field,
        headers: flags.header,
        input: flags.input === undefined ? undefined : {source: flags.input, text: await readInput(flags.input, read)},
        method: flags.method,
        noAuth: flags['no-auth'],
        paginate: flags.paginate,
        path: this.args.path,
        rawFields: flags['raw-field'],
      },
      read,
    )
    const client = await this.ctx.client()
    if (flags.validate) checkRequestBody(prepared.request, client.apiPath(prepared.request.path))
    try {
      if (flags.paginate) await this.output.array(paginate(client, prepared))
      else await this.printBody((await client.request(prepared.request)).body)
    } catch (error) {
      // The body of an error response is the result a script may want; with --json, BaseCommand prints the
      // contract's {"error": ...} document instead (stdout carries exactly one JSON document).
      if (error instanceof ApiError) await this.output.result(undefined, () => this.printBody(error.body))
      throw error
    }
  }

  /** A body as JSON (a string body as it is, unless --json asks for a JSON document). */
  private async printBody(body: unknown): Promise<void> {
    if (body === undefined) return
    if (typeof body === 'string') await this.output.result(body, () => this.io.out(this.io.isStdoutTTY ? sanitize(body, 'terminal') : body))
    else await this.output.document(body)
  }
}

async function readInput(source: string, read: (path: string) => Promise<string>): Promise<string> {
  try {
    return await read(source)
  } catch (error) {
    throw new UsageError(`--input: ${fileProblem(error, source)}.`)
  }
}
