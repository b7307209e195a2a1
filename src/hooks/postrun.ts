/**
 * After a command has run: the update notice (services/update-check.ts), on stderr, on a terminal only, wrapped at
 * its width. It reads one small file; the day's check of the registry runs in a detached process the command does
 * not wait for. Once per process: a command that runs another (autocomplete) fires this hook twice.
 */
import type {Hook} from '@oclif/core'

import {processDeps} from '../base/deps.js'
import {jsonRequested} from '../io/output.js'
import {terminalWidth} from '../io/streams.js'
import {wrapWords} from '../io/wrap.js'
import {spawnUpdateCheck, updateNotice, updateNoticeWanted} from '../services/update-check.js'

let done = false

const hook: Hook<'postrun'> = async function ({argv, Command}) {
  if (Command.id === 'update-check' || done) return
  done = true
  const {env, stderr} = processDeps()
  if (!updateNoticeWanted(env, {json: jsonRequested(argv), stderrTTY: Boolean(stderr.isTTY)})) return
  const notice = await updateNotice({
    env,
    execPath: process.execPath,
    name: this.config.pjson.name,
    now: Date.now,
    repository: this.config.pjson.repository,
    root: this.config.root,
    startCheck: () => spawnUpdateCheck(this.config.root, env),
    version: this.config.version,
  })
  if (notice) stderr.write(`\n${wrapWords(notice, terminalWidth(stderr))}\n`)
}

export default hook
