/**
 * config.json's versions, as conf's `projectVersion` and `migrations`: conf records the version a file was last
 * migrated to (`__internal__.migrations.version`) and, when a newer release opens it, runs each migration above
 * that version in order, then records the new one. A file without the record (every release before versioning)
 * counts as 0.0.0. A migration changes only what it names and leaves unknown keys as they are.
 */
import {type ConfigData, setProfileToken} from './config-schema.js'

/** What a migration gets: the file's data to read and replace (conf's own store, with get/set of top-level keys). */
export interface MigrationStore {
  readonly store: ConfigData
  set(key: string, value: unknown): void
}

export const CONFIG_VERSION = '1.0.0'

export const CONFIG_MIGRATIONS: Record<string, (store: MigrationStore) => void> = {
  /**
   * 1.0.0, the first versioned format. Credentials go only to the origin a profile was logged in at, and a cached
   * profile token is used only where `token_base_url` says it was issued: one cached by an older release without
   * it would never be used again, so it is dropped (the next command issues a fresh one). Nothing else changes.
   */
  '1.0.0': (conf) => {
    const profiles = conf.store.profiles
    if (!profiles) return
    let changed = false
    for (const profile of Object.values(profiles)) {
      if (profile.access_token === undefined || profile.token_base_url !== undefined) continue
      setProfileToken(profile, undefined)
      changed = true
    }
    if (changed) conf.set('profiles', profiles)
  },
}

const versionParts = (v: string) => v.split('.').map((n) => Number.parseInt(n, 10) || 0)
const newer = (a: string, b: string) => {
  const [x, y] = [versionParts(a), versionParts(b)]
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0)
  return false
}

/**
 * The migrations conf would run, applied to a copy in memory: for a file this release can read but not write
 * (the store then keeps its changes in memory), so that it is used as this release would have written it.
 */
export function migrateInMemory(data: ConfigData): ConfigData {
  const copy = structuredClone(data) as ConfigData & {__internal__?: {migrations?: {version?: string}}}
  const recorded = copy.__internal__?.migrations?.version ?? '0.0.0'
  const store: MigrationStore = {store: copy, set: (key, value) => void ((copy as Record<string, unknown>)[key] = value)}
  for (const [version, migrate] of Object.entries(CONFIG_MIGRATIONS)) if (newer(version, recorded)) migrate(store)
  return copy
}
