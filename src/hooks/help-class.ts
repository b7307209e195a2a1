/**
 * oclif's help with one more section at the root: the user's aliases (`commerce alias set`), after the commands,
 * so that `commerce --help` shows every word that can follow `commerce`. Configured as the package's helpClass;
 * it lives beside the hooks because, like them, oclif loads it by path and it sits above the services.
 */
import {Help} from '@oclif/core'

import {processDeps} from '../base/deps.js'
import {sanitize} from '../io/sanitize.js'
import {aliasesOf} from '../services/aliases.js'

export default class CommerceHelp extends Help {
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
