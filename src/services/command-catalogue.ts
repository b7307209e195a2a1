/**
 * The CLI described to a program (`commerce commands --json`), and the lists generated from the same declarations
 * (scripts/generated-docs.ts): what each command says of itself on its class (`static operations`, `pick`,
 * `readOnly`, `changesAccount`, `exitCodes`), read from oclif's manifest without loading a command.
 */
import type {Command} from '@oclif/core'

import {OPERATIONS, type OperationId} from '../domain/schema.js'
import {ERROR_CODES} from '../errors.js'

/** What a command's class declares, as the manifest carries it (BaseCommand's statics). */
export interface Declared {
  operations?: readonly OperationId[]
  pick?: string
  readOnly?: boolean
  changesAccount?: boolean
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

/** Operations that only read, or only handle the caller's token: they change no record of the account. */
const NO_CHANGE = new Set<string>(['issueToken', 'revokeToken'])

/**
 * Whether a command changes the account: as declared, else as its operations say (any but a read or a token's);
 * a command of ours with no operation changes only local things; a plugin's command is counted as changing it unless
 * it says it only reads.
 */
export function changesAccount(c: Command.Loadable & Declared, ourPlugin: string): boolean {
  if (typeof c.changesAccount === 'boolean') return c.changesAccount
  const ops = (c.operations ?? []).filter((op) => Object.hasOwn(OPERATIONS, op))
  if (ops.length > 0) return ops.some((op) => OPERATIONS[op].method !== 'GET' && !NO_CHANGE.has(op))
  if (c.readOnly === true) return false
  return c.pluginName !== ourPlugin
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
        changes_account: changesAccount(c, ourPlugin),
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
