/**
 * The deprecation warnings speak in the right tense: before a retirement date "retires on DATE" / "will be
 * removed on DATE", after it "was due to retire on DATE: it may stop answering at any time" (an injected clock).
 */
import {afterEach, describe, expect, it} from 'vitest'

import {ApiClient} from '../../src/api/client.js'
import {type FaultyServer, startFaultyServer} from '../helpers/faulty-server.js'

let server: FaultyServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function warningAt(date: string, path: string, headers: Record<string, string> = {}): Promise<string[]> {
  server = await startFaultyServer(() => ({body: {data: []}, headers, status: 200}))
  const warnings: string[] = []
  const client = new ApiClient({
    apiVersion: 'v2',
    baseUrl: server.url,
    now: () => Date.parse(date),
    userAgent: 'test',
    warnOnce: (_key, text) => warnings.push(text),
  })
  try {
    await client.request({auth: false, method: 'GET', path})
  } finally {
    await client.close()
  }
  return warnings
}

describe('deprecation warnings', () => {
  it('API v1 before and after its retirement date (2026-09-01)', async () => {
    expect(await warningAt('2026-06-01T00:00:00Z', '/api/v1/customers')).toEqual([expect.stringContaining('deprecated and retires on 2026-09-01.')])
    expect(await warningAt('2026-10-01T00:00:00Z', '/api/v1/customers')).toEqual([
      expect.stringContaining('deprecated and was due to retire on 2026-09-01: it may stop answering at any time.'),
    ])
  })

  it("a service's Sunset header, before and after its date", async () => {
    const sunset = 'Wed, 01 Sep 2027 00:00:00 GMT'
    expect(await warningAt('2027-01-01T00:00:00Z', '/api/v2/customers', {deprecation: 'true', sunset})).toEqual([
      expect.stringContaining(`deprecated and will be removed on ${sunset}.`),
    ])
    expect(await warningAt('2027-10-01T00:00:00Z', '/api/v2/customers', {deprecation: 'true', sunset})).toEqual([
      expect.stringContaining(`deprecated and was due to be removed on ${sunset}: it may stop answering at any time.`),
    ])
  })
})
