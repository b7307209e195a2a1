/**
 * oclif's help with one more section at the root: the user's aliases (`commerce alias set`), after the commands,
 * so that `commerce --help` shows every word that can follow `commerce`. Configured as the package's helpClass;
 * it lives beside the hooks because, like them, oclif loads it by path and it sits above the services.
 */
import {type Command, Help} from '@oclif/core'

import {wrapWords} from '../io/wrap.js'

/** What bin/help-cache.js reads: the help shown may be kept. */
const HELP_CACHEABLE = Symbol.for('commerce-cli.help-cacheable')

/** The alias parts, loaded when needed: a command's help then loads none of the CLI's shared code (start-up). */
const aliases = () => import('./help-aliases.js')

export default class CommerceHelp extends Help {
  /**
   * `commerce ALIAS --help`, `-h` and `commerce help ALIAS`: what the alias runs, then that command's help (oclif
   * alone says "Command ALIAS not found", exit 1).
   */
  async showHelp(argv: string[]): Promise<void> {
    const name = argv.find((a) => !a.startsWith('-'))
    if (name !== undefined && !this.config.findCommand(name) && !this.config.findTopic(name)) {
      const alias = await (await aliases()).aliasHelp(name, this.config.bin)
      if (alias) {
        this.log(alias.said)
        if (alias.words.length > 0) return super.showHelp(alias.words)
        return
      }
    }
    // A command's or a topic's help depends on nothing but the build, the plugins and the output: bin/run.js may keep it
    // (bin/help-cache.js), to print it again without loading oclif. The root's lists the user's aliases: never kept.
    if (name !== undefined && (this.config.findCommand(name) || this.config.findTopic(name))) Object.assign(globalThis, {[HELP_CACHEABLE]: true})
    return super.showHelp(argv)
  }

  /**
   * What oclif leaves long (the root description, examples) wrapped at spaces to the help's width, as the terminal
   * would otherwise cut it inside a word or a flag; oclif's own wrapped sections are left as they are.
   */
  protected log(...args: string[]): void {
    super.log(...args.map((text) => wrapWords(text, this.opts.maxWidth || 80)))
  }

  /**
   * The root's COMMANDS without a command that is also a topic (`plugins`): the TOPICS section names it already,
   * and once is enough. Topic help lists commands below a topic, which this leaves as they are.
   */
  protected get sortedCommands(): Command.Loadable[] {
    const all = super.sortedCommands
    return all.filter((c) => c.id.includes(':') || !all.some((other) => other.id.startsWith(`${c.id}:`)))
  }

  protected async showRootHelp(): Promise<void> {
    await super.showRootHelp()
    const rows = await (await aliases()).aliasRows(this.config.bin)
    if (rows.length === 0) return
    this.log(this.section('ALIASES', this.renderList(rows, {indentation: 2, spacer: '\n', stripAnsi: this.opts.stripAnsi})))
    this.log('')
  }
}
