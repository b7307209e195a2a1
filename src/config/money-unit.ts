/**
 * What unit the service's amounts are in, for every surface that says it (`--json`'s `money_unit`, the tables, MCP,
 * exports): not shown by the spec, so never guessed. The profile's, stored at `auth login` (the sandbox's `minor`, or
 * what `config set money_unit` says), else the one the local sandbox declares when the base URL in effect is its
 * address (`sandbox exec` hands COMMAND a config directory with its state and no profile), else unknown.
 */
import {MONEY_UNITS, type MoneyUnit} from '../domain/schema.js'
import {sandboxAt} from './sandbox-state.js'

const known = (unit: unknown): MoneyUnit | undefined =>
  typeof unit === 'string' && (MONEY_UNITS as readonly string[]).includes(unit) ? (unit as MoneyUnit) : undefined

export function moneyUnitOf(profileUnit: string | undefined, baseUrl: string | undefined, env: NodeJS.ProcessEnv): MoneyUnit | undefined {
  return known(profileUnit) ?? (baseUrl === undefined ? undefined : known(sandboxAt(baseUrl, env)?.money_unit))
}
