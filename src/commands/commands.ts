import {BaseCommand} from '../base/command.js'
import {sanitize} from '../io/sanitize.js'
import {describeCommands} from '../services/command-catalogue.js'

export default class Commands extends BaseCommand<typeof Commands> {
  static effect = 'reads' as const
  static summary = `List every command; with --json, described for programs.`
  static description = `The way a program (a script, an agent) learns this CLI at once, instead of reading each command's help. --json prints one object: \`commands\`, and the tables they share, said once: \`exit_codes\` (each error code with the exit code it ends any command with, as docs/errors.md lists them), \`global_flags\`, \`environment\` (the variables every command reads, and what each means), \`value_types\` (the grammar of each flag type beyond boolean, string, integer and enum) and \`json\` (the documents every command may print). For each command: its id (\`customers:list\`), the words that run it, summary, description, arguments, its own flags (type; values, minimum, maximum, max_length, default where they apply; repeatable, negatable, required, required_without_terminal (a terminal asks for it), env, exclusive where so), the global flags it takes (by name), examples, what it changes (effect: reads; local for local state only, such as config, aliases, the local sandbox or the inbox; account; and changes_account, whether it is account), the service operations it makes (operations: id, method, path, versions), what its --json prints (json: a schema of the OpenAPI document, \`commerce api --spec\`), the environment variables it reads beyond every command's (env), the kind of record its id argument is picked from (picks) and exits (the exit statuses of its own, and what each means). Read from the manifest: no command is loaded.`
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
