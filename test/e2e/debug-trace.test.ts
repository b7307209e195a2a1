/**
 * --debug shows the HTTP exchange, and what a server sends reaches the terminal (and a CI log, which renders escapes
 * too) only through the sanitizer (issue 49): a body with OSC and SGR sequences, a header carrying C1 CSI.
 */
import {afterAll, describe, expect, it} from 'vitest'

import {run, tempConfigDir} from '../helpers/cli.js'
import {type FaultyServer, startFaultyServer} from '../helpers/faulty-server.js'

let server: FaultyServer
const cfg = tempConfigDir()
afterAll(async () => {
  await server?.close()
  cfg.cleanup()
})

describe('--debug', () => {
  it('escapes control characters of response bodies and header values: nothing retitles or colours the terminal', async () => {
    server = await startFaultyServer((req) =>
      req.url.endsWith('/auth/tokens')
        ? {body: {access_token: 'tok', expires_in: 3600, scopes: [], token_type: 'Bearer'}, status: 201}
        : // Latin-1 header text: the bytes C2 9B, UTF-8 for U+009B (CSI), as the server sent them.
          {body: '\u001B]0;PWNED\u0007 \u001B[41m red', headers: {'content-type': 'text/plain', 'x-evil': '\u00C2\u009B31m'}, status: 500},
    )
    const r = await run(['customers', 'get', '1', '--debug'], {
      env: {COMMERCE_BASE_URL: server.url, COMMERCE_CONFIG_DIR: cfg.dir, COMMERCE_KEY_ID: 'k', COMMERCE_KEY_SECRET: 's'},
    })
    expect(r.code).toBe(1)
    // The trace is there, with the body and the header shown escaped.
    expect(r.stderr).toMatch(/< 500/)
    expect(r.stderr).toContain('PWNED')
    expect(r.stderr).toMatch(/x-evil/)
    for (const raw of ['\u001B]', '\u001B[41m', '\u0007', '\u009B']) expect(r.stderr.includes(raw), JSON.stringify(raw)).toBe(false)
  })
})
