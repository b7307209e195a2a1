/**
 * After a command has run: the update notice (services/update-check.ts), on stderr, on a terminal only. It reads one
 * small file; the day's check of the registry runs in a detached process the command does not wait for.
 */
import type {Hook} from '@oclif/core'

import {processDeps} from '../base/deps.js'
import {jsonRequested} from '../io/output.js'
import {spawnUpdateCheck, updateNotice, updateNoticeWanted} from '../services/update-check.js'

const hook: Hook<'postrun'> = async function ({argv, Command}) {
  if (Command.id === 'update-check') return
  const {env, stderr} = processDeps()
  if (!updateNoticeWanted(env, {json: jsonRequested(argv), stderrTTY: Boolean(stderr.isTTY)})) return
  const notice = await updateNotice({
    env,
    execPath: process.execPath,
    now: Date.now,
    root: this.config.root,
    startCheck: () => spawnUpdateCheck(this.config.root, env),
    version: this.config.version,
  })
  if (notice) stderr.write(`\n${notice}\n`)
}

export default hook
