import {Flags} from '@oclif/core'

import {ApiCommand} from '../base/command.js'
import {describeError} from '../base/error-shape.js'
import {windowOf} from '../base/stats-window.js'
import {GRANULARITIES, type Granularity} from '../domain/periods.js'
import {type OperationId, SCOPES} from '../domain/schema.js'
import {AuthError, interruptedBy, UsageError} from '../errors.js'

/** How long the start waits for the token's scopes before it answers `initialize` without them. */
const ACCESS_DEADLINE_MS = 5000
import {sanitize} from '../io/sanitize.js'
import {status} from '../services/auth-status.js'
import {sandboxLogin} from '../services/credentials.js'
import {serveMcp, TOOLSETS, toolsOffered} from '../services/mcp/serve.js'

/**
 * An option as a model names it: a tool's argument (`expectRefunded` is `expect_refunded`); the server's own bound on
 * waiting for 429s is no argument, but the flag `commerce mcp` was started with.
 */
const argumentName = (option: string) => (option === 'maxWait' ? '`commerce mcp --max-wait`' : option.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))

export default class Mcp extends ApiCommand<typeof Mcp> {
  static stdoutIsProtocol = true
  // Each tool call is its own run in the history, its command the call (services/mcp/serve.ts).
  static historySurface = 'mcp' as const
  // A signal ends the server once the calls in flight are answered (their requests aborted), not at once.
  static interruptible = true
  static operations: readonly OperationId[] = [
    'listCustomers',
    'getCustomer',
    'listOrders',
    'getOrder',
    'listProducts',
    'getProduct',
    'listWebhooks',
    'createCustomer',
    'updateCustomer',
    'deleteCustomer',
    'createOrder',
    'refundOrder',
    'createWebhook',
  ]
  static summary = `Serve this account to AI agents over MCP, read-only by default.`
  static description = `A Model Context Protocol server over stdio, for an MCP client (Claude Desktop, an IDE's assistant, an agent): it starts \`commerce mcp\` and speaks the protocol on its standard input and output. The tools read customers, orders, products, the account's figures (orders and customers over time, top products), the credentials' status, webhook endpoints and the deliveries \`webhooks listen\` received; with --allow-writes also create, update and delete customers, create orders (always with an Idempotency-Key, returned), refund orders (with expect_refunded), register webhook endpoints and undo a change the history recorded. A delete and a refund take dry_run. The profile's credentials are used (or, with --sandbox, the running local sandbox's); no secret ever reaches a result. Diagnostics go to stderr; the server ends when its client closes the connection.`
  static examples = ['<%= config.bin %> mcp', '<%= config.bin %> mcp --sandbox --allow-writes', '<%= config.bin %> mcp --profile staging']
  static flags = {
    'allow-writes': Flags.boolean({description: 'Offer the tools that change the account (create, update, delete, refund, register).'}),
    sandbox: Flags.boolean({description: 'Use the running local sandbox (`commerce sandbox start --detach`), whatever the profile says.'}),
    tools: Flags.string({description: 'Offer only these tools (comma-separated names; auth_status is always offered).', helpValue: 'NAME,...'}),
    toolsets: Flags.string({
      description: `Offer only the tools of these sets (comma-separated: ${TOOLSETS.join(', ')}); auth_status is always offered.`,
      helpValue: 'SET,...',
    }),
  }

  async run(): Promise<void> {
    const {flags, io} = this
    if (this.argv.some((a) => a === '--json' || a === '--jq' || a.startsWith('--jq=')))
      throw new UsageError('`commerce mcp` speaks the protocol on its standard output: --json and --jq have no place there.')
    const list = (value: string | undefined) =>
      value
        ?.split(',')
        .map((n) => n.trim())
        .filter((n) => n !== '')
    const tools = toolsOffered({allowWrites: flags['allow-writes'], tools: list(flags.tools), toolsets: list(flags.toolsets)})
    const describe = (error: unknown) => {
      const {internal: _internal, ...shape} = describeError(error instanceof Error ? error : new Error(String(error)), {
        commandLine: 'commerce mcp',
        debug: false,
        flagOf: argumentName,
        json: true,
        now: this.deps.now,
      })
      return shape
    }
    // What stops every call is found now and said by the server (its instructions, each call), which starts all the
    // same: a host shows the model why, where an exit would show only "Connection closed".
    let problem: ReturnType<typeof describe> | undefined
    if (flags.sandbox) {
      const sandbox = sandboxLogin(this.deps.env, SCOPES)
      if (sandbox)
        this.useEnvironment({
          ...this.deps.env,
          COMMERCE_BASE_URL: sandbox.baseUrl,
          COMMERCE_KEY_ID: sandbox.keyId,
          COMMERCE_KEY_SECRET: sandbox.keySecret,
        })
      else
        problem = describe(
          new UsageError('No local sandbox runs.', {
            code: 'sandbox_not_running',
            hint: 'Start one with `commerce sandbox start --detach`, then restart this server.',
          }),
        )
    } else await this.ctx.profileName().catch((error: unknown) => (problem = describe(error)))
    const access = problem ? undefined : await this.access().catch((error: unknown) => void (problem = describe(error)))
    await serveMcp({
      access,
      allowWrites: flags['allow-writes'],
      deps: {
        apiVersion: () => this.ctx.apiVersion(),
        client: () => this.ctx.client({signal: this.interrupted}),
        ctx: this.ctx,
        dryRunClient: () => this.ctx.client({dryRun: true}),
        env: this.deps.env,
        moneyUnit: () => this.moneyUnit(),
        now: () => this.deps.now(),
        window: async (a) => {
          if (a.by !== undefined && !(GRANULARITIES as readonly string[]).includes(a.by))
            throw new UsageError(`by must be one of ${GRANULARITIES.join(', ')} (got ${JSON.stringify(a.by)}).`)
          return windowOf({...a, by: a.by as Granularity | undefined, utc: a.utc === true}, this.deps.now(), this.deps.env, io)
        },
      },
      describe,
      problem,
      root: this.config.root,
      say: (text) => io.info(sanitize(text, 'terminal')),
      stdin: io.stdin,
      stdout: io.stdout,
      stop: this.interrupted,
      tools,
      version: this.config.version,
    })
    if (this.interrupted.aborted) throw interruptedBy(this.interrupted.reason)
  }

  /**
   * The token's scopes, for the instructions (which scope each operation needs is not shown by the spec: the model is
   * told what the token has, and a tool the service refuses is withdrawn then). Credentials the service rejects are
   * the AuthError (a problem every call says); a service that cannot be reached, or is slow, is said and not a problem.
   */
  private async access(): Promise<string> {
    const deadline = new Promise<string>((resolve) => {
      const timer = setTimeout(
        () => resolve(`The token's scopes could not be checked: the service did not answer within ${ACCESS_DEADLINE_MS / 1000} s.`),
        ACCESS_DEADLINE_MS,
      )
      timer.unref()
    })
    const checked = status(this.ctx, {raise: true}).then(
      (s) =>
        s.scopes === null
          ? "The token's scopes are not known (an access token given as is): a tool the service refuses for a missing scope is withdrawn."
          : `The token's scopes: ${s.scopes.join(', ') || 'none'}; a tool the service refuses for a missing scope is withdrawn.`,
      (error: unknown) => {
        if (error instanceof AuthError) throw error
        return `The token's scopes could not be checked: ${error instanceof Error ? error.message : String(error)}`
      },
    )
    // A signal meanwhile: the server stops as it starts (serveMcp), so the check's answer is no longer awaited.
    const stopped = new Promise<string>((resolve) => {
      if (this.interrupted.aborted) resolve('')
      else this.interrupted.addEventListener('abort', () => resolve(''), {once: true})
    })
    return Promise.race([checked, deadline, stopped])
  }
}
