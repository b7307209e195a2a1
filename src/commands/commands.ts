import {BaseCommand} from '../base/command.js'
import {ERROR_CODES} from '../errors.js'
import {sanitize} from '../io/sanitize.js'

interface FlagOut {
  name: string
  char: string | null
  type: 'boolean' | 'option'
  description: string | null
  options: string[] | null
  default: unknown
  required: boolean
  multiple: boolean
  env: string | null
  global: boolean
}

export default class Commands extends BaseCommand<typeof Commands> {
  static readOnly = true
  static summary = `List every command; with --json, described for programs.`
  static description = `The way a program (a script, an agent) learns this CLI at once, instead of reading each command's help. --json prints an array: for each command its id (\`customers:list\`), the words that run it, summary, description, arguments, flags (type, options, default, required, repeatable, environment variable, global), examples, whether it changes the account (changes_account: false for the commands that only read), and exit_codes: each error code with the exit code it ends any command with, as docs/errors.md lists them.`
  static examples = ['<%= config.bin %> commands', "<%= config.bin %> commands --json | jq -r '.[] | select(.changes_account | not) | .command'"]

  async run(): Promise<void> {
    const {io} = this
    const exitCodes = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, c]) => [code, c.exit]))
    const described = await Promise.all(
      this.config.commands
        .filter((c) => !c.hidden)
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map(async (c) => {
          // The class itself says whether it only reads (the manifest does not carry it); plugins' commands are
          // counted as changing the account unless they say otherwise.
          const loaded = (await c.load().catch(() => undefined)) as {readOnly?: boolean} | undefined
          const globals = new Set(Object.keys((loaded as {baseFlags?: object} | undefined)?.baseFlags ?? {}))
          const flags: FlagOut[] = Object.entries(c.flags ?? {}).map(([name, f]) => {
            const flag = f as {
              char?: string
              type: 'boolean' | 'option'
              description?: string
              summary?: string
              options?: string[]
              default?: unknown
              required?: boolean
              multiple?: boolean
              env?: string
            }
            return {
              char: flag.char ?? null,
              default: typeof flag.default === 'function' ? null : (flag.default ?? null),
              description: flag.summary ?? flag.description ?? null,
              env: flag.env ?? null,
              global: globals.has(name),
              multiple: flag.multiple === true,
              name,
              options: flag.options ?? null,
              required: flag.required === true,
              type: flag.type,
            }
          })
          return {
            id: c.id,
            command: `${this.config.bin} ${c.id.replaceAll(':', ' ')}`,
            summary: c.summary ?? null,
            description: c.description ?? null,
            args: Object.entries(c.args ?? {}).map(([name, a]) => ({
              description: (a as {description?: string}).description ?? null,
              name,
              required: (a as {required?: boolean}).required === true,
            })),
            flags,
            examples: (c.examples ?? []).map((e) => (typeof e === 'string' ? e : e.command).replaceAll('<%= config.bin %>', this.config.bin)),
            aliases: c.aliases ?? [],
            changes_account: loaded?.readOnly !== true,
            exit_codes: exitCodes,
            plugin: c.pluginName ?? null,
          }
        }),
    )
    await this.output.result(described, () => {
      const width = Math.max(...described.map((d) => d.command.length))
      // A plugin's words reach the terminal through the sanitizer, as everything from outside.
      io.out(described.map((d) => sanitize(`${d.command.padEnd(width)}  ${d.summary ?? ''}`.trimEnd(), 'cell')).join('\n'))
    })
  }
}
