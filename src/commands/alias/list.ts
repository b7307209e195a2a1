import {ConfigCommand} from '../../base/config-command.js'
import {renderListHuman} from '../../io/render.js'
import {sanitize} from '../../io/sanitize.js'
import {readAliases} from '../../services/aliases.js'

export default class AliasList extends ConfigCommand<typeof AliasList> {
  static effect = 'reads' as const
  static summary = `List your aliases.`
  static description = `With --json, an object: name -> expansion.`
  static examples = ['<%= config.bin %> alias list', '<%= config.bin %> alias list --json']

  async run(): Promise<void> {
    const {aliases, warnings} = await readAliases(this.store)
    for (const warning of warnings) this.io.warn(sanitize(warning, 'cell'))
    await this.output.result(aliases, async () => {
      const rows = Object.entries(aliases).map(([name, expansion]) => ({expansion, name}))
      if (rows.length === 0) return this.io.info('No aliases. Add one with `commerce alias set NAME EXPANSION`.')
      await renderListHuman(this.io, rows, {columns: ['name', 'expansion']})
    })
  }
}
