/**
 * An ApiClient against an in-process test sandbox, logged in with one of its key pairs (the token cached in a
 * config store of its own): what a command hands its service, without a process. For test/services/.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {envTokenSlot, KeyPairTokens} from '../../src/api/auth.js'
import {ApiClient, type ClientOptions} from '../../src/api/client.js'
import {ConfigStore} from '../../src/config/config-store.js'
import {startTestSandbox, type TestSandbox} from './sandbox.js'

export interface ServiceFixture {
  sb: TestSandbox
  client: ApiClient
  store: ConfigStore
  /** Every request the client sent, as `METHOD /path?query`. */
  sent: string[]
  close(): Promise<void>
}

export async function serviceFixture(options: {key?: number; client?: Partial<ClientOptions>} = {}): Promise<ServiceFixture> {
  const sb = await startTestSandbox()
  const dir = mkdtempSync(join(tmpdir(), 'commerce-service-'))
  const store = new ConfigStore(dir)
  const {key_id: keyId, key_secret: keySecret} = sb.keys[options.key ?? 0]
  const pair = {keyId, keySecret}
  const sent: string[] = []
  const client = new ApiClient({
    apiVersion: 'v2',
    baseUrl: sb.baseUrl,
    debug: (line) => {
      const m = /^> (GET|POST|PATCH|DELETE) (\S+)/.exec(line)
      if (m) sent.push(`${m[1]} ${new URL(m[2]).pathname}${new URL(m[2]).search}`)
    },
    tokens: new KeyPairTokens(pair, store, envTokenSlot(pair)),
    userAgent: 'commerce-cli-test',
    ...options.client,
  })
  return {
    client,
    async close() {
      await client.close()
      await sb.close()
      rmSync(dir, {force: true, recursive: true})
    },
    sb,
    sent,
    store,
  }
}
