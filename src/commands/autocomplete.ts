import {Args, Flags} from '@oclif/core'
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'

import {BaseCommand} from '../base/command.js'
import {ensureCompletionCache} from '../services/completion.js'
import type {PickKind} from '../services/pick-kinds.js'

/**
 * Takes the place of @oclif/plugin-autocomplete's `autocomplete` (the CLI's own command comes first): the same
 * arguments and scripts, but the cache is rebuilt only when the CLI, its plugins or its commands changed, and the
 * bash script also completes enum flag values. The plugin's `autocomplete script SHELL` is unchanged.
 */
export default class Autocomplete extends BaseCommand<typeof Autocomplete> {
  static effect = 'reads' as const
  static readsAllCommands = true
  static args = {
    shell: Args.string({description: 'Shell type (default: the current shell).', options: ['zsh', 'bash', 'powershell'], required: false}),
  }
  static summary = `Display autocomplete installation instructions.`
  static description = `Completes commands, flags and the values of flags that take one of a fixed set (--currency, --status, --include...). The completion cache is rebuilt only when the CLI changed.`
  static examples = [
    '<%= config.bin %> autocomplete',
    '<%= config.bin %> autocomplete bash',
    '<%= config.bin %> autocomplete zsh',
    '<%= config.bin %> autocomplete --refresh-cache',
  ]
  static flags = {
    'refresh-cache': Flags.boolean({char: 'r', description: 'Rebuild the cache even if nothing changed (no instructions shown).'}),
  }

  async run(): Promise<void> {
    const {config} = this
    const shell = this.args.shell ?? (config.shell === 'zsh' || config.shell === 'powershell' ? config.shell : 'bash')
    const manifest = await readFile(join(config.root, 'oclif.manifest.json'), 'utf8').catch(() => '')
    const commands = config.commands
      .filter((c) => !c.hidden)
      .map((c) => ({
        flags: Object.entries(c.flags ?? {})
          .filter(([, f]) => !f.hidden)
          .map(([name, f]) => ({char: f.char, name, options: 'options' in f ? f.options : undefined})),
        id: c.id,
        pick: (c as {pick?: PickKind}).pick,
      }))
      // Plugins load in parallel: their commands come in no fixed order, and the cache stamp must not depend on it.
      .sort((a, b) => a.id.localeCompare(b.id))
    await ensureCompletionCache({
      bin: config.bin,
      cacheDir: join(config.cacheDir, 'autocomplete'),
      commands,
      async create() {
        await config.runCommand('autocomplete:create')
      },
      refresh: this.flags['refresh-cache'],
      sources: [
        config.version,
        ...config
          .getPluginsList()
          .map((p) => `${p.name}@${p.version}`)
          .sort(),
        manifest,
        JSON.stringify(commands),
      ],
      topicSeparator: config.topicSeparator,
    })
    if (this.flags['refresh-cache']) return
    const rc = shell === 'zsh' ? '~/.zshrc' : shell === 'bash' ? '~/.bashrc' : '$PROFILE'
    const script = `${config.bin} autocomplete script ${shell}`
    // The script is appended as it is printed (it ends with a newline; a "$(...)" would strip it, and the next line
    // anyone appends would join our last one), and only when the file does not hold it yet: run twice, added once.
    const marker = `${config.bin} autocomplete setup`
    const setup =
      shell === 'powershell'
        ? `if (-not (Select-String -Quiet -SimpleMatch '${marker}' $PROFILE)) { ${script} | Add-Content -Path $PROFILE }; .$PROFILE`
        : `grep -qsF '${marker}' ${rc} || ${script} >> ${rc}; source ${rc}`
    this.log(`Set up ${config.bin} completion for ${shell}:

  1) Run this in your terminal:

     ${setup}

  2) Then:

     ${config.bin} <TAB>                      # commands
     ${config.bin} customers list --<TAB>     # flags
     ${config.bin} customers list --status <TAB>   # flag values

  Run \`${config.bin} autocomplete --refresh-cache\` if completion ever looks out of date.`)
  }
}
