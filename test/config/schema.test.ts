/**
 * The profile's one declared schema (src/config/config-schema.ts PROFILE_FIELDS) and what is derived from it: the keys of
 * the `config` commands, the masking, and the only function that writes or erases a cached token.
 */
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, relative} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {CONFIG_KEYS, configProblem, forgetCredentials, PROFILE_FIELDS, type Profile, setProfileToken} from '../../src/config/config-schema.js'
import {ConfigStore} from '../../src/config/config-store.js'
import {ConfigService} from '../../src/services/config.js'
import {ROOT} from '../helpers/cli.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {force: true, recursive: true})
})

function sources(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

describe('the profile schema', () => {
  it('gives the config commands their keys, in the order config list shows them', () => {
    expect(CONFIG_KEYS).toEqual(['base_url', 'api_version', 'key_id', 'key_secret', 'allow_insecure_http', 'storage', 'money_unit', 'history'])
  })

  it('checks every declared field when the file is read', () => {
    for (const [name, {type}] of Object.entries(PROFILE_FIELDS)) {
      const wrong = type === 'string' ? 5 : 'text'
      expect(configProblem({profiles: {p: {[name]: wrong}}}), name).toMatch(new RegExp(`^profiles\\.p\\.${name} must be`))
    }
  })

  it('writes and erases a token whole, and logout leaves the rest of the profile', () => {
    const p: Profile = {base_url: 'http://127.0.0.1:1', key_id: 'k', key_secret: 's', requested_scopes: ['a'], storage: 'file'}
    setProfileToken(p, {access_token: 't', base_url: 'http://127.0.0.1:1', expires_at: '2030-01-01T00:00:00Z', scopes: ['a']})
    expect(p).toMatchObject({access_token: 't', expires_at: '2030-01-01T00:00:00Z', scopes: ['a'], token_base_url: 'http://127.0.0.1:1'})
    setProfileToken(p, undefined)
    expect(Object.keys(p).sort()).toEqual(['base_url', 'key_id', 'key_secret', 'requested_scopes', 'storage'])
    forgetCredentials(p)
    expect(p).toEqual({base_url: 'http://127.0.0.1:1', storage: 'file'})
  })

  it('masks every secret field in what config shows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'commerce-schema-'))
    dirs.push(dir)
    const store = new ConfigStore(dir)
    await store.update((data) => {
      data.profiles = {default: {base_url: 'http://127.0.0.1:1', key_id: 'k', key_secret: 'sk_live_secret', webhook_secrets: {we_1: 'whsec_x'}}}
    })
    const config = new ConfigService({env: {}, store})
    const listing = await config.list()
    expect(JSON.stringify(listing)).not.toMatch(/sk_live_secret|whsec_x/)
    expect((await config.get('key_secret')).value).toBe('********')
    expect((await config.set('key_secret', 'another')).value).toBe('********')
  })

  it('no code but setProfileToken writes a profile token field', () => {
    const writes = sources(join(ROOT, 'src')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\.(access_token|expires_at|token_base_url|scopes) = /g)].map(
        (m) => `${relative(ROOT, file)}: ${m[0]}`,
      ),
    )
    expect(writes).toEqual([
      'src/config/config-schema.ts: .access_token = ',
      'src/config/config-schema.ts: .expires_at = ',
      'src/config/config-schema.ts: .scopes = ',
      'src/config/config-schema.ts: .token_base_url = ',
    ])
  })
})
