/**
 * The config file (`config.json` in the config directory, mode 0600 in a 0700 directory): named profiles, the
 * current profile, and a token cache for key pairs given through the environment.
 *
 * conf owns the file: where it is, reading it, writing it atomically (a temporary file renamed over it), and its
 * versioned migrations (migrations.ts). A file already at this release's version, which conf would only read, is
 * read directly (`current`). What this store adds around conf:
 * - a read-modify-write under a short cross-process lock (lock.ts) that never spans network I/O: a token is
 *   issued outside it (`withIssueLock`, a second lock that only serialises token issues) and merged in afterwards,
 *   so a `config set` run meanwhile is kept; conf's first open, which may migrate and so write, is under it too;
 * - a directory that cannot be read or written (EACCES, EPERM, EROFS, ENOTDIR, EISDIR...) is a warning
 *   (`onReadOnly`, once) and changes kept in memory for this process;
 * - a file that is not what the CLI writes (invalid JSON, a wrong type: schema.ts) is exit 2 naming the key;
 * - modes 0600 for the file and 0700 for the directory.
 * Nothing else writes config.json.
 */
import {lstatSync, mkdirSync} from 'node:fs'
import {join} from 'node:path'

import type Conf from 'conf'

import {NotOwnFileError, readOwnFileSync} from '../domain/own-file.js'
import {CliError} from '../errors.js'
import {withoutForeignSignalListeners} from './signals.js'
import {type HeldLock, LockTimeoutError, acquireLock} from './lock.js'
import {CONFIG_MIGRATIONS, CONFIG_VERSION, migrateInMemory} from './migrations.js'
import {CONFIG_FILE, configDir} from './paths.js'
import {type ConfigData, parseConfig} from './config-schema.js'

export type {CachedToken, ConfigData, Profile} from './config-schema.js'

/** conf's bookkeeping key in the file (the migrated version): kept in the file, never shown to commands. */
const CONF_INTERNAL = '__internal__'

/** The config lock is held for a read, a change in memory and a write: milliseconds. */
const LOCK_STALE_MS = 5000
const LOCK_WAIT_MS = 10_000
/** The token-issue lock is held across one token request (COMMERCE_HTTP_TIMEOUT, 30 s by default, plus retries). */
const ISSUE_STALE_MS = 10_000
const ISSUE_WAIT_MS = 90_000

/** Errors that mean "this directory cannot be used", whatever the reason: warn and keep changes in memory. */
const UNUSABLE_DIR_CODES = new Set([
  'ENOTREG',
  'EFBIG',
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOTDIR',
  'EISDIR',
  'ENOENT',
  'ELOOP',
  'ENOSPC',
  'EDQUOT',
  'ENAMETOOLONG',
])

function isUnusableDir(error: unknown): boolean {
  return UNUSABLE_DIR_CODES.has((error as NodeJS.ErrnoException)?.code ?? '')
}

/** A config file is a few profiles: one larger than this is not ours. */
const CONFIG_MAX_BYTES = 16 * 1024 * 1024

export class ConfigStore {
  readonly dir: string
  readonly path: string
  private memory?: ConfigData
  private conf?: Conf<ConfigData>
  private warned = false
  /** Why the file could not be read or written (changes then live in memory only); undefined while it can. */
  readOnlyReason?: string

  constructor(
    dir: string = configDir(),
    private readonly onReadOnly: (message: string) => void = () => {},
  ) {
    this.dir = dir
    this.path = join(dir, CONFIG_FILE)
  }

  /** The file as it is now (or this process's in-memory copy once the directory proved unwritable). */
  async read(): Promise<ConfigData> {
    return this.current() ?? this.readWith(() => this.openLocked())
  }

  /**
   * The file read directly when conf would only read it: it is already at this release's version (conf then
   * migrates nothing and writes nothing; its writes are atomic renames, so no lock is needed to read a whole
   * file). Loading and opening conf under the lock costs every command with a config file about 10 ms. Anything
   * else (no file, an older or newer version, an unreadable or invalid file) is undefined: conf's path decides.
   */
  private current(): ConfigData | undefined {
    if (this.memory || this.conf) return undefined
    let data: ConfigData & {[CONF_INTERNAL]?: {migrations?: {version?: unknown}}}
    try {
      data = parseConfig(readOwnFileSync(this.path, CONFIG_MAX_BYTES), this.path)
    } catch {
      return undefined
    }
    return data[CONF_INTERNAL]?.migrations?.version === CONFIG_VERSION ? this.visible(data) : undefined
  }

  /**
   * Read-modify-write under the config lock: `mutate` gets the file as it is now and changes only what the
   * command changes, so that concurrent changes to other keys are kept. It must not do network I/O (the lock is
   * meant to be held for milliseconds). The file is written only when `mutate` returns normally and changed something.
   */
  async update<T>(mutate: (data: ConfigData) => Promise<T> | T): Promise<T> {
    if (this.memory) return mutate(this.memory)
    let lock: HeldLock
    try {
      mkdirSync(this.dir, {mode: 0o700, recursive: true})
      lock = await acquireLock(`${this.path}.lock`, {staleMs: LOCK_STALE_MS, waitMs: LOCK_WAIT_MS})
    } catch (error) {
      if (error instanceof LockTimeoutError)
        throw new CliError(`The config file is locked by another commerce process (${error.lockPath}).`, {
          hint: `If no commerce process is running, remove ${error.lockPath}.`,
        })
      if (!isUnusableDir(error)) throw error
      return this.toMemory(mutate, error)
    }
    try {
      const data = await this.readWith(() => this.open())
      if (this.memory) return mutate(this.memory) // the file proved unreadable
      const before = JSON.stringify(data)
      const result = await mutate(data)
      if (JSON.stringify(data) !== before) {
        if (lock.compromised)
          throw new CliError(`Another commerce process took over the lock on ${this.path}; nothing was written. Run the command again.`)
        try {
          // conf writes atomically and keeps its own bookkeeping (the migrated version) from the file.
          ;(this.conf ?? (await this.open())).store = data
        } catch (error) {
          if (!isUnusableDir(error)) throw error
          this.memory = data
          this.warnMemory(error)
        }
      }
      return result
    } finally {
      lock.release()
    }
  }

  /**
   * Runs `issue` (a token request) holding the token-issue lock, so that parallel processes renewing one token
   * wait for the first and reuse its token; the config lock is not held meanwhile. The lock is refreshed while
   * held; a holder that died is taken over after 10 s. When the lock cannot be had (unwritable directory, or a
   * wait past 90 s), `issue` runs all the same: a second token is better than a failed command.
   */
  async withIssueLock<T>(issue: () => Promise<T>): Promise<T> {
    let lock: HeldLock | undefined
    if (!this.memory) {
      try {
        mkdirSync(this.dir, {mode: 0o700, recursive: true})
        lock = await acquireLock(`${this.path}.issue.lock`, {staleMs: ISSUE_STALE_MS, waitMs: ISSUE_WAIT_MS})
      } catch (error) {
        if (!(error instanceof LockTimeoutError) && !isUnusableDir(error)) throw error
      }
    }
    try {
      return await issue()
    } finally {
      lock?.release()
    }
  }

  /** conf for this directory, created on first use: creating it may migrate the file, so a caller holds the lock. */
  private async open(): Promise<Conf<ConfigData>> {
    if (this.conf) return this.conf
    const {loaded: confModule} = await withoutForeignSignalListeners(() => import('conf'))
    const ConfClass = confModule.default
    mkdirSync(this.dir, {mode: 0o700, recursive: true})
    this.conf = new ConfClass<ConfigData>({
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
      configFileMode: 0o600,
      configName: CONFIG_FILE.replace(/\.json$/, ''),
      cwd: this.dir,
      deserialize: (text) => parseConfig(text, this.path),
      migrations: CONFIG_MIGRATIONS,
      projectSuffix: '',
      projectVersion: CONFIG_VERSION,
    })
    return this.conf
  }

  /** `open` under the config lock, for a read: a file an older release wrote is migrated once, by one process. */
  private async openLocked(): Promise<{readonly store: ConfigData}> {
    let lock: HeldLock | undefined
    try {
      lock = await acquireLock(`${this.path}.lock`, {staleMs: LOCK_STALE_MS, waitMs: LOCK_WAIT_MS})
    } catch (error) {
      // A directory we cannot lock in may still be read; a migration that must write then fails as a write would.
      if (!(error instanceof LockTimeoutError) && !isUnusableDir(error)) throw error
    }
    try {
      return await this.open()
    } catch (error) {
      if (!isUnusableDir(error)) throw error
      // Readable but not writable, and older than this release: migrated in memory, and changes kept there.
      this.memory = migrateInMemory(parseConfig(readOwnFileSync(this.path, CONFIG_MAX_BYTES), this.path))
      this.warnMemory(error)
      return {store: this.memory}
    } finally {
      lock?.release()
    }
  }

  /** The file's data through `open` (or {} when there is none); an unreadable directory is a warning and memory. */
  private async readWith(open: () => Promise<{readonly store: ConfigData}>): Promise<ConfigData> {
    if (this.memory) return structuredClone(this.memory)
    try {
      // conf reads the file by its name: a link, a FIFO or a device planted there is refused first (as the rest of our
      // files are, src/domain/files.ts), and the command goes on with no saved settings.
      const stat = lstatSync(this.path)
      if (!stat.isFile() && !stat.isDirectory()) throw new NotOwnFileError(this.path)
      return this.visible((this.conf ?? (await open())).store)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
      if (!isUnusableDir(error)) throw error
      const why = error instanceof NotOwnFileError ? error.message : `cannot read ${this.path} (${(error as NodeJS.ErrnoException).code})`
      this.warn(`${why}; using no saved settings and keeping changes in memory for this command only.`)
      this.memory = {}
      return {}
    }
  }

  /** What commands see of conf's store: a plain copy, without conf's bookkeeping. */
  private visible(store: ConfigData): ConfigData {
    const {[CONF_INTERNAL]: _internal, ...data} = store as ConfigData & {[CONF_INTERNAL]?: unknown}
    return structuredClone(data)
  }

  private async toMemory<T>(mutate: (data: ConfigData) => Promise<T> | T, error: unknown): Promise<T> {
    let data: ConfigData = {}
    try {
      data = await this.read()
    } catch {}
    this.memory ??= data
    this.warnMemory(error)
    return mutate(this.memory)
  }

  private warnMemory(error: unknown): void {
    this.warn(`cannot write ${this.path} (${(error as NodeJS.ErrnoException).code}); keeping changes in memory for this command only.`)
  }

  private warn(message: string): void {
    if (this.warned) return
    this.warned = true
    this.readOnlyReason = message
    this.onReadOnly(message)
  }
}

export {abbreviateToken, ensureProfile, maskSecret, selectProfileName} from './profiles.js'
