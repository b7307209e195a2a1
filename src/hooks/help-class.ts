/**
 * oclif's help with one more section at the root: the user's aliases (`commerce alias set`), after the commands,
 * so that `commerce --help` shows every word that can follow `commerce`. Configured as the package's helpClass;
 * it lives beside the hooks because, like them, oclif loads it by path and it sits above the services.
 */
import {type Command, Help} from '@oclif/core'

import {processDeps} from '../base/deps.js'
import {commandWordsOf, shellWords} from '../domain/alias.js'
import {sanitize} from '../io/sanitize.js'
import {wrapWords} from '../io/wrap.js'
import {aliasesOf} from '../services/aliases.js'

export default class CommerceHelp extends Help {
  /**
   * `commerce ALIAS --help`, `-h` and `commerce help ALIAS`: what the alias runs, then that command's help (oclif
   * alone says "Command ALIAS not found", exit 1).
   */
  async showHelp(argv: string[]): Promise<void> {
    const name = argv.find((a) => !a.startsWith('-'))
    if (name !== undefined && !this.config.findCommand(name) && !this.config.findTopic(name)) {
      const aliases = await aliasesOf(processDeps().env)
      if (Object.hasOwn(aliases, name)) {
        let words: string[] = []
        try {
          words = commandWordsOf(shellWords(aliases[name]))
        } catch {}
        this.log(
          `${sanitize(name, 'cell')} is an alias: \`${this.config.bin} ${sanitize(name, 'cell')}\` runs \`${this.config.bin} ${sanitize(aliases[name], 'cell')}\`.\n`,
        )
        if (words.length > 0) return super.showHelp(words)
        return
      }
    }
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
    const aliases = Object.entries(await aliasesOf(processDeps().env))
    if (aliases.length === 0) return
    // An expansion is the user's text, perhaps hand-edited: shown with control characters escaped.
    const rows = aliases.map(([name, expansion]): [string, string] => [sanitize(name, 'cell'), `${this.config.bin} ${sanitize(expansion, 'cell')}`])
    this.log(this.section('ALIASES', this.renderList(rows, {indentation: 2, spacer: '\n', stripAnsi: this.opts.stripAnsi})))
    this.log('')
  }
}
