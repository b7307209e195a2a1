/**
 * The `config` commands' base: no request is ever sent, so no Context; each command works through one
 * ConfigService on the config directory (COMMERCE_CONFIG_DIR, else the platform's), for the profile of its
 * `--profile` flag when it has one.
 */
import type {Command} from '@oclif/core'

import {configDir} from '../config/paths.js'
import {ConfigStore} from '../config/config-store.js'
import {ConfigService} from '../services/config.js'
import {BaseCommand} from './command.js'

export abstract class ConfigCommand<T extends typeof Command> extends BaseCommand<T> {
  // commandNames(): what an alias may never shadow is every command, plugins' included.
  static readsAllCommands = true
  private service?: ConfigService
  private configStore?: ConfigStore

  /** The config file of this user (COMMERCE_CONFIG_DIR, else the platform's). */
  protected get store(): ConfigStore {
    this.configStore ??= new ConfigStore(configDir(this.deps.env))
    return this.configStore
  }

  /** Command ids (words joined by spaces) and topics: what an alias may start with and never shadow. */
  protected commandNames(): {commands: string[]; topics: string[]} {
    return {
      commands: this.config.commands.flatMap((c) => [c.id, ...c.aliases]).map((id) => id.replaceAll(':', ' ')),
      topics: this.config.topics.map((t) => t.name.replaceAll(':', ' ')),
    }
  }

  protected get settings(): ConfigService {
    this.service ??= new ConfigService({
      env: this.deps.env,
      profile: (this.flags as {profile?: string}).profile,
      store: this.store,
    })
    return this.service
  }
}
