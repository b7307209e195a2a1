import {BaseCommand} from '../base/command.js'
import {sanitize} from '../io/sanitize.js'
import {describeCommands} from '../services/command-catalogue.js'

export default class Commands extends BaseCommand<typeof Commands> {
  static effect = 'reads' as const
  static readsAllCommands = true
  static summary = `List every command; with --json, described for programs.`
  static description = `The way a program (a script, an agent) learns this CLI at once. --json prints {commands, and the tables they share, said once: exit_codes, global_flags (and the global_flag_sets commands take), shared_flags, environment, value_types, operations, json}. Each command: id, summary, description, args, its own flags (typed: values, minimum, maximum, max_length, default, repeatable, negatable, required, required_without_terminal, env, exclusive, where so), global_flags (a set's name), examples, effect (reads, local, account) and changes_account, operations, json (what --json prints: a schema of the OpenAPI document), env (variables it reads beyond every command's), picks and exits. Read from the manifest: no command is loaded.`
  static examples = ['<%= config.bin %> commands', `<%= config.bin %> commands --json | jq -r '.commands[] | select(.effect == "reads") | .command'`]

  async run(): Promise<void> {
    const {io} = this
    const catalogue = await describeCommands(this.config.commands, this.config.bin, this.config.pjson.name)
    await this.output.result(catalogue, () => {
      const described = catalogue.commands.map((d) => ({...d, command: `${catalogue.bin} ${d.id.replaceAll(':', ' ')}`}))
      const width = Math.max(...described.map((d) => d.command.length))
      // A plugin's words reach the terminal through the sanitizer, as everything from outside.
      io.out(described.map((d) => sanitize(`${d.command.padEnd(width)}  ${d.summary ?? ''}`.trimEnd(), 'cell')).join('\n'))
    })
  }
}
