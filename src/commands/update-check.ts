import {BaseCommand} from '../base/command.js'
import {checkForUpdate} from '../services/update-check.js'

/** The day's check for a newer release, run detached by the update notice (src/hooks/postrun.ts); prints nothing. */
export default class UpdateCheck extends BaseCommand<typeof UpdateCheck> {
  static effect = 'local' as const
  static hidden = true
  static summary = `Ask the npm registry for the latest release (run in the background by the update notice).`

  async run(): Promise<void> {
    const {name, repository} = this.config.pjson as {name: string; repository?: unknown}
    await checkForUpdate(this.deps.env, this.deps.now, {name, repository})
  }
}
