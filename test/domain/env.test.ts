/** Durations from the environment (src/domain/env.ts): refused (exit 2) past what a timer can hold, never overflowing it. */
import {describe, expect, it} from 'vitest'

import {MAX_TIMER_SECONDS, secondsFromEnv} from '../../src/domain/env.js'
import {UsageError} from '../../src/errors.js'
import {run} from '../helpers/cli.js'

describe('secondsFromEnv', () => {
  it('takes up to the longest a timer holds, and refuses more naming the variable and the limit', () => {
    expect(secondsFromEnv({X: String(MAX_TIMER_SECONDS)}, 'X')).toBe(MAX_TIMER_SECONDS * 1000)
    expect(MAX_TIMER_SECONDS * 1000).toBeLessThanOrEqual(2 ** 31 - 1)
    for (const raw of ['3000000', '1e9', String(MAX_TIMER_SECONDS + 1)]) {
      expect(() => secondsFromEnv({X: raw}, 'X')).toThrow(UsageError)
      expect(() => secondsFromEnv({X: raw}, 'X')).toThrow(`X must be at most ${MAX_TIMER_SECONDS} seconds`)
    }
  })

  it('COMMERCE_HTTP_TIMEOUT=1e9, COMMERCE_JQ_TIMEOUT=3000000 and --max-wait past the limit are exit 2, not every call failing at once', async () => {
    const env = {COMMERCE_BASE_URL: 'http://127.0.0.1:9', COMMERCE_CONFIG_DIR: '/nonexistent-commerce-config'}
    const http = await run(['products', 'list'], {env: {...env, COMMERCE_HTTP_TIMEOUT: '1e9'}})
    expect([http.code, http.stderr]).toEqual([2, expect.stringContaining('COMMERCE_HTTP_TIMEOUT must be at most')])
    const jq = await run(['products', 'list', '--jq', '.'], {env: {...env, COMMERCE_JQ_TIMEOUT: '3000000'}})
    expect(jq.code).toBe(2)
    expect(jq.json().error.message).toContain('COMMERCE_JQ_TIMEOUT must be at most')
    const wait = await run(['products', 'list', '--max-wait', '99999999'], {env})
    expect(wait.code).toBe(2)
    expect(wait.stderr).toContain('--max-wait')
  })
})
