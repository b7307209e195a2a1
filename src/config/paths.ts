/**
 * Where the CLI keeps its files. One function decides, and everything (conf's config.json, the sandbox state
 * file and data file, the webhook inbox, import journals) derives from it.
 */
import {homedir} from 'node:os'
import {join} from 'node:path'

const APP = 'commerce'

/** `COMMERCE_CONFIG_DIR`, else the platform config directory (as `conf`/`env-paths` would choose, without a suffix). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.COMMERCE_CONFIG_DIR) return env.COMMERCE_CONFIG_DIR
  const home = homedir()
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', APP)
  if (process.platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), APP, 'Config')
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), APP)
}

export const CONFIG_FILE = 'config.json'
export const SANDBOX_STATE_FILE = 'sandbox.json'
export const SANDBOX_DATA_FILE = 'sandbox-data.json'
export const WEBHOOK_INBOX_FILE = 'webhook-inbox.jsonl'
export const JOURNALS_DIR = 'journals'
export const COMPLETION_IDS_FILE = 'completion-ids.json'

export function configPath(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), name)
}
