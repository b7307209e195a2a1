/**
 * The CLI described to a program (`commerce commands --json`), and the lists generated from the same declarations
 * (scripts/generated-docs.ts): what each command says of itself on its class (`static operations`, `pick`,
 * `effect`, `exitCodes`), read from oclif's manifest without loading a command. What a command changes is decided here
 * (`effectOf`), once, for `commands --json`, the generated docs and the did-you-mean guard.
 */
import type {Command} from '@oclif/core'

import {OPERATIONS, type OperationId} from '../domain/schema.js'
import {ERROR_CODES} from '../errors.js'

/** What a command changes: nothing; only local state (config, aliases, the local sandbox, the inbox, caches); the account. */
export type Effect = 'reads' | 'local' | 'account'

/** What a command's class declares, as the manifest carries it (BaseCommand's statics). */
export interface Declared {
  operations?: readonly OperationId[]
  pick?: string
  effect?: Effect
  exitCodes?: Record<string, string>
}

export interface FlagOut {
  name: string
  char: string | null
  type: 'boolean' | 'option'
  description: string | null
  options: string[] | null
  default: unknown
  required: boolean
  multiple: boolean
  env: string | null
  global: boolean
}

/** An operation that is no read but changes no record of the account: a token is issued to the caller. */
const NO_CHANGE = new Set<string>(['issueToken'])

/** The commands of oclif's own plugins that we ship (they declare nothing of ours). */
const OCLIF_EFFECTS: Readonly<Record<string, Effect>> = {
  help: 'reads',
  plugins: 'reads',
  'plugins:inspect': 'reads',
  'plugins:install': 'local',
  'plugins:link': 'local',
  'plugins:reset': 'local',
  'plugins:uninstall': 'local',
  'plugins:unlink': 'local',
  'plugins:update': 'local',
}

const EFFECTS: readonly Effect[] = ['reads', 'local', 'account']

/**
 * What a command changes: as it declares (`static effect`), else as its operations say (any but a read or a token's
 * issue changes the account; revoking a token does), else as oclif's own plugins are known to; anything else (a
 * plugin's command that says nothing) is counted as changing the account. Undefined for a command of ours that
 * neither declares nor makes an operation: test/build/registries.test.ts refuses one.
 */
export function effectOf(c: Command.Loadable & Declared, ourPlugin: string): Effect | undefined {
  if (c.effect !== undefined && EFFECTS.includes(c.effect)) return c.effect
  const ops = (c.operations ?? []).filter((op) => Object.hasOwn(OPERATIONS, op))
  if (ops.length > 0) return ops.some((op) => OPERATIONS[op].method !== 'GET' && !NO_CHANGE.has(op)) ? 'account' : 'reads'
  if (Object.hasOwn(OCLIF_EFFECTS, c.id)) return OCLIF_EFFECTS[c.id]
  return c.pluginName === ourPlugin ? undefined : 'account'
}

function flagsOf(c: Command.Loadable): FlagOut[] {
  return Object.entries(c.flags ?? {}).map(([name, f]) => {
    const flag = f as {
      char?: string
      type: 'boolean' | 'option'
      description?: string
      summary?: string
      options?: string[]
      default?: unknown
      required?: boolean
      multiple?: boolean
      env?: string
      helpGroup?: string
    }
    return {
      char: flag.char ?? null,
      default: typeof flag.default === 'function' ? null : (flag.default ?? null),
      description: flag.summary ?? flag.description ?? null,
      env: flag.env ?? null,
      global: flag.helpGroup === 'GLOBAL',
      multiple: flag.multiple === true,
      name,
      options: flag.options ?? null,
      required: flag.required === true,
      type: flag.type,
    }
  })
}

/** Every visible command, described for a program, sorted by id. */
export function describeCommands(commands: readonly Command.Loadable[], bin: string, ourPlugin: string) {
  const exitCodes = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, e]) => [code, e.exit]))
  return commands
    .filter((c) => !c.hidden)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((command) => {
      const c = command as Command.Loadable & Declared
      return {
        id: c.id,
        command: `${bin} ${c.id.replaceAll(':', ' ')}`,
        summary: c.summary ?? null,
        description: c.description ?? null,
        args: Object.entries(c.args ?? {}).map(([name, a]) => ({
          description: (a as {description?: string}).description ?? null,
          name,
          required: (a as {required?: boolean}).required === true,
        })),
        flags: flagsOf(c),
        examples: (c.examples ?? []).map((e) => (typeof e === 'string' ? e : e.command).replaceAll('<%= config.bin %>', bin)),
        aliases: c.aliases ?? [],
        effect: effectOf(c, ourPlugin) ?? 'account',
        changes_account: (effectOf(c, ourPlugin) ?? 'account') === 'account',
        operations: (c.operations ?? [])
          .filter((op) => Object.hasOwn(OPERATIONS, op))
          .map((op) => ({id: op, method: OPERATIONS[op].method, path: OPERATIONS[op].path, versions: [...OPERATIONS[op].versions]})),
        picks: c.pick ?? null,
        exit_codes: exitCodes,
        exits: c.exitCodes ?? {},
        plugin: c.pluginName ?? null,
      }
    })
}
