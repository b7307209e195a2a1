import {Flags} from '@oclif/core'

import {splitArgv} from '../../domain/argv.js'
import {BaseCommand} from '../../base/command.js'
import {UsageError} from '../../errors.js'
import {sanitize} from '../../io/sanitize.js'
import {execWithSandbox} from '../../services/sandbox/exec.js'
import {readScenarioWith} from '../../services/sandbox/scenarios.js'

export default class SandboxExec extends BaseCommand<typeof SandboxExec> {
  static effect = 'local' as const
  static exitCodes = {
    '0-255': "COMMAND's exit status (128+N when signal N ended it)",
    '2': 'a bad flag, seed file or --export-on-exit directory: COMMAND never ran',
    '126': 'COMMAND was found but could not be started',
    '127': 'COMMAND was not found',
  }
  // Its signals are COMMAND's to act on (passed on to it); exec ends when COMMAND does.
  static interruptible = true
  static strict = false
  static summary = `Run a command against a fresh sandbox that lives exactly as long as the command.`
  static description = `Starts a sandbox in memory on a free loopback port, waits until it answers, seeds it (--seed, --set, --history), runs COMMAND with the environment an app needs, stops the sandbox whatever happens, and exits with COMMAND's status (128+N when signal N ended it; 127 when COMMAND is not found, 126 when it cannot be started, as a shell says). SIGINT, SIGTERM and SIGHUP are passed on to COMMAND. The sandbox never outlives exec, even when exec is killed with SIGKILL: it runs inside exec, and without a terminal COMMAND runs in a process group of its own that a watchdog ends when exec ends. A process that COMMAND starts in a session of its own (setsid, a daemon) leaves that group: it is not ended with exec, and finds the sandbox gone.

COMMAND gets COMMERCE_BASE_URL, COMMERCE_KEY_ID and COMMERCE_KEY_SECRET: the sandbox and its key pair with every scope, the variables commerce itself reads, so that \`commerce …\` inside COMMAND uses the sandbox. COMMERCE_CONFIG_DIR is a config directory of its own holding the sandbox's state (\`commerce webhooks trigger\` finds it), removed afterwards. COMMERCE_SANDBOX_IDS holds the seed's names and ids as JSON, COMMERCE_ID_<NAME> each seeded entry's id (NAME upper-cased, other characters as _), COMMERCE_WEBHOOK_SECRET_<NAME> each seeded webhook's signing secret (with exactly one, COMMERCE_WEBHOOK_SECRET too). COMMERCE_ACCESS_TOKEN and COMMERCE_PROFILE are not passed on: they would take precedence over the key pair; nor is the caller's COMMERCE_WEBHOOK_SECRET. The sandbox's address is added to NO_PROXY and no_proxy, so that its traffic never goes through a proxy.

Everything after -- is COMMAND and its arguments, taken as they are.`
  static examples = [
    '<%= config.bin %> sandbox exec -- npm test',
    '<%= config.bin %> sandbox exec --seed scenario.json --set hook.url=http://127.0.0.1:9000/hooks -- node app.mjs',
    '<%= config.bin %> sandbox exec --history 30 --export-on-exit artifacts/sandbox -- ./integration-tests.sh',
  ]
  static flags = {
    seed: Flags.string({
      description: 'Load this scenario file (see `sandbox seed`) before COMMAND starts; a bad one is exit 2 and COMMAND never runs.',
      helpValue: 'FILE',
    }),
    set: Flags.string({
      description: 'Change a field of a scenario entry: NAME.FIELD=VALUE (VALUE as JSON when it parses, else text); repeatable.',
      multiple: true,
      dependsOn: ['seed'],
    }),
    history: Flags.integer({description: 'Seed DAYS days of past customers and orders first.', helpValue: 'DAYS', max: 366, min: 1}),
    port: Flags.integer({default: 0, description: 'Port to listen on (0: any free port).', max: 65_535, min: 0}),
    'export-on-exit': Flags.string({
      description:
        "When COMMAND ends, write the request log (requests.jsonl, one JSON object a request), the webhook deliveries (deliveries.json) and the final records (state.json, secrets masked) to DIR, made if missing and checked before COMMAND runs; a failure to write is a warning, and the status stays COMMAND's.",
      helpValue: 'DIR',
    }),
  }

  async run(): Promise<void> {
    const {flags, io} = this
    const command = splitArgv(this.argv).after ?? this.positionals
    if (command.length === 0) throw new UsageError('Name the command to run after --, e.g. `commerce sandbox exec -- npm test`.')
    const seed = flags.seed === undefined ? undefined : readScenarioWith(flags.seed, flags.set ?? [])
    const status = await execWithSandbox({
      command,
      env: this.deps.env,
      exportDir: flags['export-on-exit'],
      historyDays: flags.history,
      onReady: (sandbox, ids) =>
        io.info(
          sanitize(
            `Sandbox at ${sandbox.baseUrl}${Object.keys(ids).length > 0 ? ` (seeded: ${Object.keys(ids).join(', ')})` : ''}; running ${command.join(' ')}`,
            'terminal',
          ),
        ),
      onWarning: (message) => io.warn(sanitize(message, 'terminal')),
      ownGroup: !this.deps.stdin.isTTY,
      port: flags.port,
      seed,
    })
    if (status !== 0) this.exit(status)
  }
}
