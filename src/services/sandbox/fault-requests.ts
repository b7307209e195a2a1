/** `sandbox fault add|list|clear`: fault rules of the running sandbox, through its control path. */
import {control} from './control-client.js'
import type {FaultRule} from '../../domain/sandbox-control.js'

export type {FaultRule}

export interface FaultSpec {
  path: string
  method?: string
  status?: number
  retry_after?: number
  delay_ms?: number
  drop?: boolean
  count?: number
  rate?: number
  random_seed?: number
}

export const addFault = (env: NodeJS.ProcessEnv, spec: FaultSpec) => control<FaultRule>(env, 'POST', '/faults', {body: spec})
export const listFaults = async (env: NodeJS.ProcessEnv) => (await control<{data: FaultRule[]}>(env, 'GET', '/faults')).data
export const clearFaults = async (env: NodeJS.ProcessEnv) => (await control<{cleared: number}>(env, 'DELETE', '/faults')).cleared

/** One line for a person. */
export function describeRule(r: FaultRule): string {
  const effect = [
    r.delay_ms === null ? '' : `wait ${r.delay_ms} ms`,
    r.drop ? 'drop the connection' : '',
    r.status === null ? '' : `answer ${r.status}${r.retry_after === null ? '' : ` (Retry-After: ${r.retry_after})`}`,
  ]
    .filter((x) => x !== '')
    .join(', then ')
  const times =
    r.rate !== null
      ? `${r.rate * 100}% of requests (random seed ${r.random_seed})`
      : r.remaining === null
        ? 'every time'
        : `${r.remaining} more time${r.remaining === 1 ? '' : 's'}`
  const applied = r.applied === 0 ? 'not applied yet' : `applied ${r.applied} time${r.applied === 1 ? '' : 's'}`
  return `#${r.id}  ${r.method ?? 'any method'} ${r.path}: ${effect}; ${times}; ${applied}`
}
