import {BaseCommand} from '../base/command.js'
import {sanitize} from '../io/sanitize.js'
import {describeCommands} from '../services/command-catalogue.js'

export default class Commands extends BaseCommand<typeof Commands> {
  static effect = 'reads' as const
  static summary = `List every command; with --json, described for programs.`
  static description = `The way a program (a script, an agent) learns this CLI at once, instead of reading each command's help. --json prints an array: for each command its id (\`customers:list\`), the words that run it, summary, description, arguments, flags (type, options, default, required, repeatable, environment variable, global), examples, what it changes (effect: reads; local for local state only, such as config, aliases, the local sandbox or the inbox; account; and changes_account, whether it is account), the service operations it makes (operations: id, method, path, versions), the kind of record its id argument is picked from (picks), exit_codes (each error code with the exit code it ends any command with, as docs/errors.md lists them) and exits (the exit statuses of its own, and what each means). Read from the manifest: no command is loaded.`
  static examples = ['<%= config.bin %> commands', `<%= config.bin %> commands --json | jq -r '.[] | select(.effect == "reads") | .command'`]

  async run(): Promise<void> {
    const {io} = this
    const described = describeCommands(this.config.commands, this.config.bin, this.config.pjson.name)
    await this.output.result(described, () => {
      const width = Math.max(...described.map((d) => d.command.length))
      // A plugin's words reach the terminal through the sanitizer, as everything from outside.
      io.out(described.map((d) => sanitize(`${d.command.padEnd(width)}  ${d.summary ?? ''}`.trimEnd(), 'cell')).join('\n'))
    })
  }
}
