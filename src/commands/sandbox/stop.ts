import {BaseCommand} from '../../base/command.js'
import {stopSandbox} from '../../services/sandbox/process.js'

export default class SandboxStop extends BaseCommand<typeof SandboxStop> {
  static effect = 'local' as const
  static summary = `Stop the local sandbox recorded in the config directory (exit 0 also when none runs).`
  static description = `It gets SIGTERM, writes its data file and exits; after 10 s it is killed. With --json: {"stopped": true, "base_url", "pid"} or {"stopped": false}.`
  static examples = ['<%= config.bin %> sandbox stop']

  async run(): Promise<void> {
    const {io} = this
    const state = await stopSandbox(this.deps.env)
    await this.output.result(state ? {base_url: state.base_url, pid: state.pid, stopped: true} : {stopped: false}, () =>
      io.out(state ? `Stopped the sandbox at ${state.base_url} (pid ${state.pid}).` : 'No local sandbox is running; nothing to stop.'),
    )
  }
}
