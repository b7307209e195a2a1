/** Scenarios, reset and snapshots of the running sandbox, through its control path. */
import {readFileSync} from 'node:fs'

import {CliError, EXIT, UsageError} from '../../errors.js'
import {fileProblem} from '../../domain/files.js'
import {nestsDeeper} from '../../domain/json.js'
import {applySets, MAX_SCENARIO_DEPTH} from '../../domain/scenario.js'
import {option, phrase} from '../../domain/phrase.js'
import {counted} from '../../domain/text.js'
import {control} from './control-client.js'
import type {SnapshotInfo} from '../../domain/sandbox-control.js'

export type {SnapshotInfo}

/** Reads a scenario file as JSON; exit 2 naming the file when it cannot be read or parsed. */
export function readScenario(path: string): unknown {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new UsageError(`Scenario file: ${fileProblem(error, path)}.`)
  }
  let scenario: unknown
  try {
    scenario = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`The scenario file ${path} is not valid JSON: ${(error as Error).message}.`)
  }
  checkScenarioDepth(path, scenario)
  return scenario
}

/** Exit 2 naming the limit when a scenario (as read, or with `--set` applied) nests deeper than the format allows. */
export function checkScenarioDepth(path: string, scenario: unknown): void {
  if (nestsDeeper(scenario, MAX_SCENARIO_DEPTH))
    throw new UsageError(
      `The scenario file ${path} nests deeper than ${MAX_SCENARIO_DEPTH} levels (an entry's body at most ${MAX_SCENARIO_DEPTH - 2}, as the service takes); nothing was sent.`,
    )
}

/** A scenario file with `--set name.field=value` applied: exit 2 naming a set that does not fit, or a file too deep. */
export function readScenarioWith(path: string, sets: readonly string[]): unknown {
  const {problems, scenario} = applySets(readScenario(path), sets)
  if (problems.length > 0) throw new UsageError(phrase`${option('set')} ${problems.join('; ')}.`)
  checkScenarioDepth(path, scenario)
  return scenario
}

export type ScenarioIds = Record<string, number | string>

export async function seed(env: NodeJS.ProcessEnv, scenario: unknown): Promise<ScenarioIds> {
  return (await control<{ids: ScenarioIds}>(env, 'POST', '/seed', {body: scenario})).ids
}

export interface Counts {
  customers: number
  orders: number
  refunds: number
  webhooks: number
}

/** "12 customers, 30 orders, 3 refunds and 2 webhooks". */
export function describeCounts(c: Counts): string {
  return `${counted(c.customers, 'customer')}, ${counted(c.orders, 'order')}, ${counted(c.refunds, 'refund')} and ${counted(c.webhooks, 'webhook')}`
}

/** What the running sandbox holds now (what a reset would remove, or a restore replace). */
export async function currentCounts(env: NodeJS.ProcessEnv): Promise<Counts> {
  const {counts} = await control<{counts: Counts}>(env, 'GET', '')
  return {customers: counts.customers, orders: counts.orders, refunds: counts.refunds, webhooks: counts.webhooks}
}

export async function reset(env: NodeJS.ProcessEnv): Promise<Counts> {
  return (await control<{removed: Counts}>(env, 'POST', '/reset', {body: {}})).removed
}

export const saveSnapshot = (env: NodeJS.ProcessEnv, name: string) => control<SnapshotInfo>(env, 'POST', '/snapshots', {body: {name}})
export const listSnapshots = async (env: NodeJS.ProcessEnv) => (await control<{data: SnapshotInfo[]}>(env, 'GET', '/snapshots')).data
/** The saved snapshot of that name; exit 4 (checked before asking anything) when there is none. */
export async function snapshotNamed(env: NodeJS.ProcessEnv, name: string): Promise<SnapshotInfo> {
  const found = (await listSnapshots(env)).find((s) => s.name === name)
  if (!found) throw new CliError(`No snapshot is named "${name}".`, {exitCode: EXIT.notFound, hint: 'See `commerce sandbox snapshot list`.'})
  return found
}
export const deleteSnapshot = (env: NodeJS.ProcessEnv, name: string) =>
  control<{deleted: string}>(env, 'DELETE', `/snapshots/${encodeURIComponent(name)}`)
export const restoreSnapshot = (env: NodeJS.ProcessEnv, name: string) =>
  control<{restored: string; counts: Counts}>(env, 'POST', `/snapshots/${encodeURIComponent(name)}/restore`, {body: {}})
