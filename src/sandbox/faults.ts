/**
 * Faults on purpose: rules that make the next matching API requests answer a status (with a JSON `{message}`
 * like the sandbox's own errors, and `Retry-After` when given), wait first, or lose their connection. A rule
 * applies `count` times, or to a `rate` share of matching requests drawn from its own seeded generator (so a
 * test run repeats with the same `random_seed`). Only `/api/...` requests: the control path stays reachable.
 */
import {checkPositiveInt} from '../domain/validate.js'
import type {FieldErrors} from '../domain/validate.js'
import type {FaultRule} from '../domain/sandbox-control.js'

export type {FaultRule}

export interface FaultInput {
  path?: unknown
  method?: unknown
  status?: unknown
  retry_after?: unknown
  delay_ms?: unknown
  drop?: unknown
  count?: unknown
  rate?: unknown
  random_seed?: unknown
}

/** The longest delay a rule may set (it holds a request open). */
export const MAX_FAULT_DELAY_MS = 120_000

export function validateFault(input: FaultInput): FieldErrors {
  const errors: FieldErrors = {}
  const add = (field: string, message: string) => (errors[field] ??= []).push(message)
  if (typeof input.path !== 'string' || input.path === '') add('path', 'is required: a path glob starting with /, e.g. /api/v2/customers*')
  else if (!input.path.startsWith('/'))
    add(
      'path',
      `must start with / (a path glob such as /api/v2/${input.path.replace(/^\**/, '') || 'customers'}*); got ${JSON.stringify(input.path)}`,
    )
  if (input.method !== undefined && (typeof input.method !== 'string' || !/^[A-Za-z]+$/.test(input.method))) add('method', 'must be an HTTP method')
  if (input.status !== undefined && (!Number.isInteger(input.status) || (input.status as number) < 400 || (input.status as number) > 599))
    add('status', 'must be an integer from 400 to 599')
  if (input.retry_after !== undefined) {
    const bad = Number.isInteger(input.retry_after) && (input.retry_after as number) >= 0 ? undefined : 'must be a whole number of seconds'
    if (bad) add('retry_after', bad)
    else if (input.status === undefined) add('retry_after', 'needs a status (e.g. 429 or 503)')
  }
  if (
    input.delay_ms !== undefined &&
    (!Number.isInteger(input.delay_ms) || (input.delay_ms as number) < 0 || (input.delay_ms as number) > MAX_FAULT_DELAY_MS)
  )
    add('delay_ms', `must be an integer from 0 to ${MAX_FAULT_DELAY_MS}`)
  if (input.drop !== undefined && typeof input.drop !== 'boolean') add('drop', 'must be true or false')
  if (input.drop === true && input.status !== undefined) add('drop', 'and status exclude each other (a dropped connection has no status)')
  if (input.status === undefined && input.drop !== true && input.delay_ms === undefined) add('status', 'give a status, a delay or a drop')
  if (input.count !== undefined) {
    const bad = checkPositiveInt(input.count)
    if (bad) add('count', bad)
  }
  if (input.rate !== undefined && (typeof input.rate !== 'number' || !(input.rate > 0 && input.rate <= 1)))
    add('rate', 'must be a number above 0 and at most 1')
  if (input.count !== undefined && input.rate !== undefined) add('rate', 'and count exclude each other')
  if (input.random_seed !== undefined && (!Number.isSafeInteger(input.random_seed) || (input.random_seed as number) < 0))
    add('random_seed', 'must be a non-negative integer')
  return errors
}

/** mulberry32: a small seeded generator, enough to pick a share of requests repeatably. */
function generator(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function globRegex(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  )
}

export class Faults {
  private rules: Array<FaultRule & {regex: RegExp; random?: () => number}> = []
  private nextId = 1

  add(input: FaultInput): FaultRule {
    const rate = (input.rate as number | undefined) ?? null
    const seed = (input.random_seed as number | undefined) ?? null
    const rule: FaultRule = {
      applied: 0,
      delay_ms: (input.delay_ms as number | undefined) ?? null,
      drop: input.drop === true,
      id: this.nextId++,
      method: typeof input.method === 'string' ? input.method.toUpperCase() : null,
      path: input.path as string,
      random_seed: rate === null ? null : (seed ?? Math.floor(Math.random() * 2 ** 31)),
      rate,
      remaining: (input.count as number | undefined) ?? (rate === null ? 1 : null),
      retry_after: (input.retry_after as number | undefined) ?? null,
      status: (input.status as number | undefined) ?? null,
    }
    this.rules.push({...rule, random: rule.random_seed === null ? undefined : generator(rule.random_seed), regex: globRegex(rule.path)})
    return rule
  }

  list(): FaultRule[] {
    return this.rules.map(({random: _r, regex: _x, ...rule}) => rule)
  }

  clear(): number {
    const n = this.rules.length
    this.rules = []
    return n
  }

  /** The rule that applies to this request (consuming one application), if any. */
  take(method: string, path: string): FaultRule | undefined {
    for (const rule of this.rules) {
      if (rule.method !== null && rule.method !== method) continue
      if (!rule.regex.test(path)) continue
      if (rule.random && rule.random() >= rule.rate!) continue
      rule.applied++
      if (rule.remaining !== null && --rule.remaining <= 0) this.rules = this.rules.filter((r) => r !== rule)
      return rule
    }
    return undefined
  }
}

export function describeFault(rule: FaultRule): string {
  const what = [
    rule.delay_ms === null ? '' : `delay ${rule.delay_ms} ms`,
    rule.drop ? 'drop' : '',
    rule.status === null ? '' : `status ${rule.status}`,
  ]
  return `#${rule.id} ${what.filter((w) => w !== '').join(', ')}`
}
