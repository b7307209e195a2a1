/** Id completion's answers: the pickers' candidates as `id:description`, cached per profile for 60 s (0600). */
import {statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {completionIds} from '../../src/services/completion-ids.js'
import {zshWithIds} from '../../src/services/completion.js'
import {tempConfigDir} from '../helpers/cli.js'
import {serviceFixture, type ServiceFixture} from '../helpers/service-client.js'

let fx: ServiceFixture
const tmp = tempConfigDir()
beforeAll(async () => {
  fx = await serviceFixture()
  await fx.client.request({
    auth: true,
    body: {email: 'ada@ids.example', name: 'Ada: the first', send_invite: false},
    method: 'POST',
    path: '/customers',
    version: 'v2',
  })
})
afterAll(async () => {
  await fx.close()
  tmp.cleanup()
})

describe('completionIds', () => {
  it('answers from the service, then from the cache for 60 s (an injected clock), then asks again', async () => {
    let clock = 1_000_000
    let clients = 0
    const options = {
      cacheKey: 'default http://sandbox',
      client: async () => {
        clients++
        return fx.client
      },
      env: {COMMERCE_CONFIG_DIR: tmp.dir},
      now: () => clock,
    }
    const first = await completionIds('customer', options)
    expect(first).toContainEqual(expect.stringMatching(/^\d+:Ada: the first <ada@ids\.example>$/))
    clock += 59_000
    expect(await completionIds('customer', options)).toEqual(first)
    expect(clients).toBe(1)
    clock += 2000
    await completionIds('customer', options)
    expect(clients).toBe(2)
    expect(statSync(join(tmp.dir, 'completion-ids.json')).mode & 0o777).toBe(0o600)
  })
})

describe('completionIds and a tampered cache', () => {
  it('offers only lines of the documented shape from the cache: shell code and control characters written there are dropped', async () => {
    const dir = tempConfigDir()
    try {
      const key = 'default http://sandbox customer'
      const lines = ['7:Ada <a@x.io>', '1$(touch pwned):x', '8:Eve \u001b]0;PWNED\u0007', '9', 'evt_1:order.paid', 42]
      writeFileSync(join(dir.dir, 'completion-ids.json'), JSON.stringify({[key]: {at: 1000, lines}}))
      const found = await completionIds('customer', {
        cacheKey: 'default http://sandbox',
        client: async () => {
          throw new Error('the cache answers')
        },
        env: {COMMERCE_CONFIG_DIR: dir.dir},
        now: () => 2000,
      })
      expect(found).toEqual(['7:Ada <a@x.io>', 'evt_1:order.paid'])
    } finally {
      dir.cleanup()
    }
  })
})

describe('zshWithIds', () => {
  it('fails with a plain message when the plugin-autocomplete script is not what it edits', () => {
    expect(() => zshWithIds('#compdef commerce\n_commerce\n', 'commerce')).toThrow(/zsh script of @oclif\/plugin-autocomplete changed/)
  })
})
