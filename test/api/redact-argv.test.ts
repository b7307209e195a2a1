/** The command line the history keeps: secret flags' values and words carrying a secret replaced (api/redact.ts). */
import {expect, it} from 'vitest'

import {redactArgv} from '../../src/api/redact.js'

it('replaces the values of secret flags and words that carry a secret, and leaves the rest', () => {
  expect(redactArgv(['auth', 'login', '--key-id', 'k1', '--key-secret', 'sk_live_abc', '--key-secret-stdin'])).toEqual([
    'auth',
    'login',
    '--key-id',
    'k1',
    '--key-secret',
    '[redacted]',
    '--key-secret-stdin',
  ])
  expect(redactArgv(['webhooks', 'verify', '--secret=whsec_123', '--payload-file', 'p.json'])).toEqual([
    'webhooks',
    'verify',
    '--secret=[redacted]',
    '--payload-file',
    'p.json',
  ])
  expect(redactArgv(['api', '/api/v2/customers', '-H', 'Authorization: Bearer tok_123', '-f', 'name=Ada'])).toEqual([
    'api',
    '/api/v2/customers',
    '-H',
    '[redacted]',
    '-f',
    'name=Ada',
  ])
  expect(redactArgv(['customers', 'update', '42', '--name', 'Ada King'])).toEqual(['customers', 'update', '42', '--name', 'Ada King'])
})
