/**
 * Id completion against a hostile server in front of the sandbox (docs/trust.md): ids that are shell code, ids with
 * newlines, names with terminal escapes. In bash, TAB must run nothing the server sent and offer only ids of the
 * documented shape; in zsh, descriptions reach the screen without control characters.
 */
import {chmodSync, existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, run, tempConfigDir} from '../helpers/cli.js'
import {type FaultyServer, startFaultyServer} from '../helpers/faulty-server.js'
import {startIndependentService} from '../helpers/independent-service.js'
import {startInTmux} from '../helpers/tmux.js'
import {newCustomer, useTtyFixture} from '../helpers/tty.js'

const fx = useTtyFixture()
const home = tempConfigDir()
const cache = join(home.dir, 'cache')
const scripts = join(cache, 'commerce', 'autocomplete', 'functions')
const bin = join(home.dir, 'bin')
const pwned = join(home.dir, 'pwned')
let hostile: FaultyServer
let genuine = 0

/** What the hostile server adds to every customer list: shell code as ids, and names that retitle a terminal. */
const hostileCustomers = () => [
  {email: 'a@evil.example', id: `1$(touch ${pwned}-dollar)`, name: 'Dollar'},
  {email: 'b@evil.example', id: `2\`touch ${pwned}-tick\``, name: 'Tick'},
  {email: 'c@evil.example', id: '3\n4', name: 'Newline'},
  {email: 'd@evil.example', id: 77, name: 'Eve\u001b]0;PWNED\u0007 \u001b[31mred'},
  {email: 'e@evil.example', id: 51, name: 'Mallory\u009b2J\u202e'},
]

beforeAll(async () => {
  mkdirSync(bin)
  writeFileSync(join(bin, 'commerce'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`)
  chmodSync(join(bin, 'commerce'), 0o755)
  expect((await run(['autocomplete', 'bash'], {env: {HOME: home.dir, XDG_CACHE_HOME: cache}})).code).toBe(0)
  genuine = await newCustomer(fx)
  hostile = await startFaultyServer(
    (req) => {
      if (req.method !== 'GET' || !req.url.startsWith('/api/v2/customers')) return {forward: true}
      return {body: {data: hostileCustomers(), meta: {page: 1, per_page: 30, total: 4}}, status: 200}
    },
    {upstream: fx.sb.baseUrl},
  )
})
afterAll(async () => {
  await hostile?.close()
  home.cleanup()
})

const shellEnv = () => ({...fx.env, COMMERCE_BASE_URL: hostile.url, HOME: home.dir, PATH: `${bin}:${process.env.PATH}`, XDG_CACHE_HOME: cache})

describe('id completion from a hostile server', () => {
  it('completion-ids prints only ids of the documented shape, descriptions without control characters', async () => {
    const r = await run(['completion-ids', 'customer'], {env: {...shellEnv(), COMMERCE_CONFIG_DIR: join(home.dir, 'cfg-direct')}})
    expect(r.code).toBe(0)
    expect(r.stdout.trimEnd().split('\n')).toEqual(['77:Eve]0;PWNED [31mred <d@evil.example>', '51:Mallory2J <e@evil.example>'])
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/)
    expect(genuine).toBeGreaterThan(0)
  })

  it('the same in front of the independent fake of the service (its own tokens and answers around the hostile list)', async () => {
    const service = await startIndependentService()
    const front = await startFaultyServer(
      (req) =>
        req.method === 'GET' && req.url.startsWith('/api/v2/customers')
          ? {body: {data: hostileCustomers(), meta: {page: 1, per_page: 30, total: 4}}, status: 200}
          : {forward: true},
      {upstream: service.url},
    )
    try {
      const r = await run(['completion-ids', 'customer'], {
        env: {
          COMMERCE_BASE_URL: front.url,
          COMMERCE_CONFIG_DIR: join(home.dir, 'cfg-independent'),
          COMMERCE_KEY_ID: service.key.key_id,
          COMMERCE_KEY_SECRET: service.key.key_secret,
        },
      })
      expect(r.code).toBe(0)
      expect(r.stdout.trimEnd().split('\n')).toEqual(['77:Eve]0;PWNED [31mred <d@evil.example>', '51:Mallory2J <e@evil.example>'])
      expect(front.requests.some((q) => q.url.startsWith('/api/v2/customers'))).toBe(true)
    } finally {
      await front.close()
      await service.close()
    }
  })

  it('bash: TAB runs nothing the server sent and offers only integer ids', async () => {
    const term = await startInTmux([], {env: shellEnv(), program: ['bash', '--norc', '--noprofile']})
    await term.reply(`source ${join(scripts, 'bash', 'commerce.bash')}`)
    await term.type('commerce customers get ')
    await term.sendKeys('Tab', 'Tab')
    // The candidates' line: 51 and 77, nothing else.
    await term.waitFor(/^51 +77 *$/m)
    expect(existsSync(`${pwned}-dollar`)).toBe(false)
    expect(existsSync(`${pwned}-tick`)).toBe(false)
    // A prefix the hostile ids share with shell code: still nothing run, nothing offered.
    await term.sendKeys('C-u')
    await term.type('commerce customers get 1')
    await term.sendKeys('Tab', 'Tab')
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(existsSync(`${pwned}-dollar`)).toBe(false)
    expect(existsSync(`${pwned}-tick`)).toBe(false)
  })

  it('zsh: descriptions are shown without escapes; shell code is neither offered nor run', async () => {
    const term = await startInTmux([], {env: {...shellEnv(), COMMERCE_CONFIG_DIR: join(home.dir, 'cfg-zsh')}, program: ['zsh', '-f']})
    await term.reply(`fpath=(${join(scripts, 'zsh')} $fpath); autoload -U compinit; compinit -u`)
    await term.type('commerce customers get ')
    await term.sendKeys('Tab')
    await term.waitFor(/77\s+-- Eve\]0;PWNED \[31mred <d@evil\.example>/)
    await term.waitFor(/51\s+-- Mallory2J <e@evil\.example>/)
    // An OSC that reached the terminal would have retitled the pane.
    expect(await term.paneFormat('#{pane_title}')).not.toContain('PWNED')
    expect(existsSync(`${pwned}-dollar`)).toBe(false)
    expect(existsSync(`${pwned}-tick`)).toBe(false)
  })
})
