import {resolve} from 'node:path'

import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base/command.js'
import {CliError, UsageError} from '../../errors.js'
import {readScenarioWith} from '../../services/sandbox/scenarios.js'
import {describeSandbox} from '../../services/sandbox/describe.js'
import {DEFAULT_HOST, DEFAULT_PORT, exposureWarning, infoOf, runForeground, seedNotApplied, startDetached} from '../../services/sandbox/process.js'

export default class SandboxStart extends BaseCommand<typeof SandboxStart> {
  static effect = 'local' as const
  static interruptible = true
  static summary = `Run a local emulator of the whole service (every v1 and v2 operation, webhooks included).`
  static description = `Prints its base URL and two test key pairs (one with every scope, one with customers:read only) and records them in the config directory, where \`auth login --sandbox\` and \`webhooks trigger\` find them. Data (customers, orders, refunds, webhooks) persists in --data (default: sandbox-data.json in the config directory). In the foreground it runs until Ctrl-C or SIGTERM (exit 0); --detach runs it in the background and returns. Its control path (GET <base URL>/_sandbox) moves orders to paid or shipped and shows webhook deliveries.`
  static examples = [
    '<%= config.bin %> sandbox start',
    '<%= config.bin %> sandbox start --detach --port 0 --json',
    '<%= config.bin %> sandbox start --in-memory --demo-data --order-limit 10 --order-window 2',
    '<%= config.bin %> sandbox start --detach --in-memory --history 90',
    '<%= config.bin %> sandbox start --detach --seed scenario.json --set hook.url=http://127.0.0.1:9000/hooks --json',
    '<%= config.bin %> sandbox start --detach --in-memory --port 0 --exit-with $$',
  ]
  static flags = {
    'demo-data': Flags.boolean({description: 'Seed demo customers and orders into a new data file.'}),
    history: Flags.integer({
      description: 'Seed DAYS days of past customers and orders into a new data file (for `orders stats`, `customers stats`).',
      helpValue: 'DAYS',
      max: 366,
      min: 1,
    }),
    data: Flags.string({description: 'Data file (default: sandbox-data.json in the config directory).', exclusive: ['in-memory']}),
    detach: Flags.boolean({
      description:
        'Run in the background and return once it is ready. With one running already, and no seed or data asked for, its details (already_running: true) and exit 0, so a set-up can run again.',
    }),
    host: Flags.string({default: DEFAULT_HOST, description: 'Address to listen on.'}),
    'in-memory': Flags.boolean({description: 'Keep no data file: everything is lost on stop.', exclusive: ['data']}),
    'order-limit': Flags.integer({description: 'Order creations allowed per window and key pair (default 10).', min: 1}),
    'order-window': Flags.integer({description: 'Order-limit window in seconds (default 60).', min: 1}),
    seed: Flags.string({
      description:
        'Load this scenario file once started (see `sandbox seed`); a bad one stops the start (exit 2). --json then carries the names and ids (ids).',
    }),
    set: Flags.string({
      description: 'Change a field of a --seed entry: NAME.FIELD=VALUE (repeatable), as `sandbox seed --set`.',
      multiple: true,
      dependsOn: ['seed'],
    }),
    'exit-with': Flags.integer({
      description: "Stop when the process with this pid ends (a CI job's shell: --exit-with $$), so that a detached sandbox never outlives its job.",
      helpValue: 'PID',
      min: 1,
    }),
    port: Flags.integer({default: DEFAULT_PORT, description: 'Port to listen on (0: any free port).', max: 65_535, min: 0}),
    'token-ttl': Flags.integer({default: 3600, description: 'Access token lifetime in seconds.', min: 1}),
  }

  async run(): Promise<void> {
    const {flags, io} = this
    // Read (and parsed) here, so that a missing or malformed file is exit 2 before anything starts.
    const scenario = flags.seed === undefined ? undefined : readScenarioWith(flags.seed, flags.set ?? [])
    const exposed = exposureWarning(flags.host)
    if (exposed) io.warn(this.say(exposed))
    const unseeded = seedNotApplied(
      {dataFile: flags['in-memory'] ? null : flags.data, seedDemoData: flags['demo-data'], seedHistoryDays: flags.history},
      this.deps.env,
    )
    if (unseeded) io.warn(this.say(unseeded))
    if (flags.detach) {
      // Nothing asked of a new sandbox: one already running is the one a re-run set-up wants (exit 0, its details).
      const reuse = [flags.seed, flags.history, flags.data, flags['demo-data'] || undefined].every((v) => v === undefined)
      const state = await startDetached({args: [process.argv[1], ...this.foregroundArgv()], env: this.deps.env, reuse}).catch(failed)
      const said = {...infoOf(state), ...(state.reused ? {already_running: true} : {}), ...(state.seeded ? {ids: state.seeded} : {})}
      return this.output.result(said, () => {
        io.out(describeSandbox(state).join('\n'))
        io.info(
          state.reused
            ? 'A sandbox was running already: these are its details (nothing was started); stop it with `commerce sandbox stop`.'
            : 'Running in the background; stop it with `commerce sandbox stop`.',
        )
      })
    }
    const orderLimit =
      flags['order-limit'] || flags['order-window'] ? {limit: flags['order-limit'] ?? 10, windowSeconds: flags['order-window'] ?? 60} : undefined
    const {ids, state, stopped} = await runForeground(
      {
        dataFile: flags['in-memory'] ? null : flags.data,
        exitWith: flags['exit-with'],
        host: flags.host,
        orderLimit,
        port: flags.port,
        seed: scenario,
        seedDemoData: flags['demo-data'],
        seedHistoryDays: flags.history,
        tokenTtlSeconds: flags['token-ttl'],
      },
      this.interrupted,
      this.deps.env,
    ).catch(failed)
    await this.output.result({...infoOf(state), ...(ids ? {ids} : {})}, () => io.out(describeSandbox(state).join('\n')))
    // Without a terminal (a CI job, a supervisor) nobody presses anything: the stop is a signal.
    io.info(io.canPrompt() ? 'Press Ctrl-C to stop.' : 'Running until SIGINT or SIGTERM.')
    await stopped
    io.info('Sandbox stopped.')
  }

  /** This command's flags for the background process: the same, without --detach and --json. */
  private foregroundArgv(): string[] {
    const {flags} = this
    const argv = ['sandbox', 'start', '--port', String(flags.port), '--host', flags.host, '--token-ttl', String(flags['token-ttl'])]
    if (flags['in-memory']) argv.push('--in-memory')
    if (flags.data) argv.push('--data', flags.data)
    if (flags['demo-data']) argv.push('--demo-data')
    if (flags.history) argv.push('--history', String(flags.history))
    if (flags.seed) argv.push('--seed', resolve(flags.seed))
    for (const set of flags.set ?? []) argv.push('--set', set)
    if (flags['exit-with']) argv.push('--exit-with', String(flags['exit-with']))
    if (flags['order-limit']) argv.push('--order-limit', String(flags['order-limit']))
    if (flags['order-window']) argv.push('--order-window', String(flags['order-window']))
    return argv
  }
}

/** Start failures (port in use, one already running, a bad data file) say what to do in their message. */
function failed(error: Error): never {
  // A CliError keeps its code, exit code and the options it names (spelled as flags by the command).
  if (error instanceof CliError) throw error
  // A detached child's own failure comes back as its words: a scenario it refused is the same failure as here.
  if (/^The sandbox did not start: The scenario was not applied/.test(error.message))
    throw new UsageError(error.message.replace(/^The sandbox did not start: /, ''), {code: 'validation_failed'})
  throw new CliError(error.message)
}
