/**
 * `commerce config ...` run as a process against a private config directory: settings, masking, profiles,
 * profile selection order, file modes, usage errors and the --json shapes. No server is involved.
 */
import {mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {run, tempConfigDir, unwritableConfigDir} from '../helpers/cli.js'
import {runInProcess} from '../helpers/in-process.js'

const SECRET = 'sk_live_do_not_show_3f9a1c'
const MASK = '********'

let tmp: {dir: string; cleanup: () => void}
let dir: string
// In this process, through the commands' seam: config commands need no child process.
const cfg = (args: string[], env: Record<string, string | undefined> = {}, input?: string) =>
  runInProcess(args, {env: {COMMERCE_CONFIG_DIR: dir, ...env}, input})
const file = () => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))

beforeEach(() => {
  tmp = tempConfigDir()
  // A directory that does not exist yet: the CLI creates it (and must create it 0700).
  dir = join(tmp.dir, 'conf')
})
afterEach(() => tmp.cleanup())

describe('config set / get / unset', () => {
  it('round-trips each key, creates the file 0600 in a 0700 directory, and unsets', async () => {
    let r = await cfg(['config', 'set', 'base_url', 'https://commerce.example.com/'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('')
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600)

    expect((await cfg(['config', 'set', 'api_version', 'v1'])).code).toBe(0)
    expect((await cfg(['config', 'set', 'key_id', 'key_123'])).code).toBe(0)

    // Trailing slash removed: the stored URL is the one requests are built from.
    r = await cfg(['config', 'get', 'base_url'])
    expect(r.stdout).toBe('https://commerce.example.com\n')
    expect((await cfg(['config', 'get', 'api_version'])).stdout).toBe('v1\n')
    expect((await cfg(['config', 'get', 'key_id', '--json'])).json()).toEqual({key: 'key_id', value: 'key_123'})
    expect(file().profiles.default).toMatchObject({api_version: 'v1', base_url: 'https://commerce.example.com', key_id: 'key_123'})

    r = await cfg(['config', 'unset', 'key_id', '--json'])
    expect(r.json()).toEqual({key: 'key_id', profile: 'default', removed: true})
    r = await cfg(['config', 'get', 'key_id', '--json'])
    expect(r.code).toBe(0)
    expect(r.json()).toEqual({key: 'key_id', value: null})
    r = await cfg(['config', 'get', 'key_id'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('key_id is not set in profile "default"')

    // Unsetting api_version brings back the default; unsetting what is not set is not an error.
    await cfg(['config', 'unset', 'api_version'])
    expect((await cfg(['config', 'get', 'api_version'])).stdout).toBe('v2\n')
    r = await cfg(['config', 'unset', 'key_id'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('was not set')
  })

  it('stores key_secret but never prints it, and recommends auth login', async () => {
    const r = await cfg(['config', 'set', 'key_secret', SECRET])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('auth login')
    expect(r.stdout + r.stderr).not.toContain(SECRET)
    expect(file().profiles.default.key_secret).toBe(SECRET)

    const outputs = await Promise.all([
      cfg(['config', 'get', 'key_secret']),
      cfg(['config', 'get', 'key_secret', '--json']),
      cfg(['config', 'list']),
      cfg(['config', 'list', '--json']),
      cfg(['config', 'set', 'key_secret', SECRET, '--json']),
      cfg(['config', 'profiles', '--json']),
    ])
    for (const o of outputs) {
      expect(o.code, o.stderr).toBe(0)
      expect(o.stdout + o.stderr).not.toContain(SECRET)
    }
    expect(outputs[0].stdout).toBe(`${MASK}\n`)
    expect(outputs[1].json()).toEqual({key: 'key_secret', value: MASK})
    expect(outputs[4].json()).toEqual({key: 'key_secret', profile: 'default', value: MASK})
  })

  it('refuses invalid values and unknown keys with exit 2, before writing anything', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['config', 'set', 'base_url', 'not a url'], /not a valid URL/],
      [['config', 'set', 'base_url', 'ftp://files.example.com'], /https:\/\/ or http:\/\//],
      // v1 and v2 are equally near: the current one is the guess.
      [['config', 'set', 'api_version', 'v3'], /api_version must be one of v1, v2 \(got "v3"; did you mean v2\?\)/],
      [['config', 'set', 'key_id', '  '], /key_id cannot be empty/],
      [['config', 'set', 'money_unit', 'cents'], /money_unit must be one of minor, major .*minor when amounts count cents/],
      [
        ['config', 'set', 'colour', 'blue'],
        /Unknown key "colour"\. Keys: base_url, api_version, key_id, key_secret, allow_insecure_http, storage, money_unit, history\./,
      ],
      [
        ['config', 'get', 'token'],
        /Unknown key "token"\. Keys: base_url, api_version, key_id, key_secret, allow_insecure_http, storage, money_unit, history\./,
      ],
      [['config', 'unset', 'access_token'], /Unknown key "access_token"/],
      [['config', 'set', 'base_url'], /value/i],
    ]
    for (const [args, message] of cases) {
      const r = await cfg(args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(message)
    }
    expect(() => statSync(join(dir, 'config.json'))).toThrow()

    const r = await cfg(['config', 'set', 'api_version', 'v3', '--json'])
    expect(r.code).toBe(2)
    expect(r.json()).toMatchObject({error: {message: expect.stringContaining('api_version'), status: null}})
  })

  it('config set in a directory that cannot be written: exit 1, nothing saved', async () => {
    dir = unwritableConfigDir(tmp.dir)
    const r = await cfg(['config', 'set', 'base_url', 'https://a.example.com'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Nothing was saved')
  })
})

describe('a hand-edited config file that is not what the CLI writes', () => {
  for (const [what, content, key] of [
    ['a base_url that is a number', {profiles: {default: {base_url: 5}}}, 'profiles.default.base_url'],
    ['a profile that is a string', {profiles: {default: 'oops'}}, 'profiles.default'],
    ['profiles that is an array', {profiles: []}, 'profiles'],
    ['scopes that are not strings', {profiles: {work: {scopes: [1]}}}, 'profiles.work.scopes'],
    ['a current_profile that is an object', {current_profile: {}}, 'current_profile'],
    ['a top level that is an array', [], 'JSON object'],
  ] as const) {
    it(`${what}: exit 2 naming the file and the key, for config and API commands alike`, async () => {
      mkdirSync(dir, {mode: 0o700, recursive: true})
      writeFileSync(join(dir, 'config.json'), JSON.stringify(content))
      for (const args of [
        ['config', 'get', 'base_url'],
        ['config', 'set', 'api_version', 'v1'],
        ['customers', 'list'],
      ]) {
        const r = await cfg(args)
        expect(r.code, r.stderr).toBe(2)
        expect(r.stderr).toContain(join(dir, 'config.json'))
        expect(r.stderr).toContain(key)
        expect(r.stderr).not.toMatch(/is not a function|TypeError/)
      }
      // Nothing was rewritten.
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(JSON.stringify(content))
    })
  }

  it('invalid JSON: exit 2 naming the file', async () => {
    mkdirSync(dir, {mode: 0o700, recursive: true})
    writeFileSync(join(dir, 'config.json'), '{"profiles": {')
    const r = await cfg(['config', 'list'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`${join(dir, 'config.json')} is not valid JSON`)
  })
})

describe('config list', () => {
  it('shows the profile, masked secrets, the cached token state and the webhook endpoints with stored secrets', async () => {
    mkdirSync(dir, {mode: 0o700, recursive: true})
    const expiresAt = new Date(Date.now() + 3_000_000).toISOString()
    const whsec = 'whsec_do_not_show_77'
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        current_profile: 'work',
        profiles: {
          work: {
            access_token: 'tok_do_not_show_1234',
            base_url: 'https://work.example.com',
            expires_at: expiresAt,
            key_id: 'key_work',
            key_secret: SECRET,
            scopes: ['orders:read'],
            token_base_url: 'https://work.example.com',
            webhook_secrets: {we_1: whsec, we_2: whsec},
          },
        },
      }),
      {mode: 0o600},
    )
    let r = await cfg(['config', 'list', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toEqual({
      api_version: 'v2',
      base_url: 'https://work.example.com',
      key_id: 'key_work',
      key_secret: MASK,
      profile: 'work',
      token_cached: true,
      token_expires_at: expiresAt,
      webhook_secrets: {we_1: MASK, we_2: MASK},
    })

    // On a pipe: field<TAB>value lines, nested values as compact JSON.
    r = await cfg(['config', 'list'])
    expect(r.stdout).toContain('profile\twork\n')
    expect(r.stdout).toContain(`key_secret\t${MASK}\n`)
    expect(r.stdout).toContain(`webhook_secrets\t{"we_1":"${MASK}","we_2":"${MASK}"}`)
    expect(r.stdout + r.stderr).not.toMatch(/do_not_show/)

    // Changing the key id drops the token cached for the old pair.
    await cfg(['config', 'set', 'key_id', 'key_other'])
    expect(file().profiles.work.access_token).toBeUndefined()
    expect(file().profiles.work.webhook_secrets).toEqual({we_1: whsec, we_2: whsec})
    r = await cfg(['config', 'list', '--json'])
    expect(r.json()).toMatchObject({key_id: 'key_other', token_cached: false, token_expires_at: null})
  })

  it('a profile named on purpose that does not exist is exit 2 naming it and the nearest one; unnamed, nulls and a note', async () => {
    await cfg(['config', 'set', 'base_url', 'https://staging.example.com', '--profile', 'staging'])
    for (const [args, env, how] of [
      [['--profile', 'stagign'], {}, '--profile stagign'],
      [[], {COMMERCE_PROFILE: 'stagign'}, 'COMMERCE_PROFILE=stagign'],
    ] as const) {
      const r = await cfg(['config', 'list', ...args], env)
      expect(r.code).toBe(2)
      expect(r.stderr).toContain(`No profile is named "stagign" (${how}).`)
      expect(r.stderr).toContain('Did you mean "staging"?')
      const api = await cfg(['customers', 'list', ...args], env)
      expect(api.code).toBe(2)
      expect(api.stderr).toContain('Did you mean "staging"?')
    }
    // The commands that create profiles take a new name as it is.
    expect((await cfg(['config', 'set', 'api_version', 'v2', '--profile', 'ghost'])).code).toBe(0)

    const empty = tempConfigDir()
    try {
      const r = await run(['config', 'list', '--json'], {env: {COMMERCE_CONFIG_DIR: empty.dir}})
      expect(r.code).toBe(0)
      expect(r.json()).toEqual({
        api_version: 'v2',
        base_url: null,
        key_id: null,
        key_secret: null,
        profile: 'default',
        token_cached: false,
        token_expires_at: null,
        webhook_secrets: {},
      })
      const human = await run(['config', 'list'], {env: {COMMERCE_CONFIG_DIR: empty.dir}})
      expect(human.stderr).toContain('Profile "default" does not exist yet')
    } finally {
      empty.cleanup()
    }
  })

  it('storage keyring on a profile with no key secret says there is nothing to move', async () => {
    await cfg(['config', 'set', 'base_url', 'https://a.example.com', '--profile', 'bare'])
    const r = await cfg(['config', 'set', 'storage', 'keyring', '--profile', 'bare'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('Profile "bare" holds no key secret, so there is nothing to move')
    expect(r.stderr).toContain('`commerce auth login --profile bare` keeps it in the OS keyring')
    const json = await cfg(['config', 'set', 'storage', 'file', '--profile', 'bare', '--json'])
    expect(json.json()).toEqual({key: 'storage', profile: 'bare', value: 'file'})
  })

  it('notes the environment variables that take precedence over the profile', async () => {
    await cfg(['config', 'set', 'base_url', 'https://a.example.com'])
    const r = await cfg(['config', 'list'], {COMMERCE_BASE_URL: 'https://env.example.com'})
    expect(r.stderr).toContain('COMMERCE_BASE_URL is set and takes precedence over base_url')
  })
})

describe('profiles', () => {
  it('the first profile created is chosen; use switches; remove of the chosen one falls back to "default"', async () => {
    expect((await cfg(['config', 'set', 'base_url', 'https://a.example.com', '--profile', 'alpha'])).code).toBe(0)
    expect(file().current_profile).toBe('alpha')
    await cfg(['config', 'set', 'base_url', 'https://b.example.com', '--profile', 'beta'])
    await cfg(['config', 'set', 'key_id', 'kb', '--profile', 'beta'])
    await cfg(['config', 'set', 'key_secret', SECRET, '--profile', 'beta'])
    expect(file().current_profile).toBe('alpha')

    let r = await cfg(['config', 'profiles', '--json'])
    expect(r.json()).toEqual([
      {base_url: 'https://a.example.com', current: true, key_id: null, logged_in: false, name: 'alpha'},
      {base_url: 'https://b.example.com', current: false, key_id: 'kb', logged_in: true, name: 'beta'},
    ])
    // On a pipe: a header line and tab-separated rows.
    r = await cfg(['config', 'profiles'])
    expect(r.stdout.split('\n')).toEqual([
      'name\tcurrent\tbase_url\tkey_id\tlogged_in',
      'alpha\ttrue\thttps://a.example.com\t\tfalse',
      'beta\tfalse\thttps://b.example.com\tkb\ttrue',
      '',
    ])

    r = await cfg(['config', 'use', 'beta', '--json'])
    expect(r.code).toBe(0)
    expect(r.json()).toEqual({profile: 'beta'})
    expect((await cfg(['config', 'get', 'base_url'])).stdout).toBe('https://b.example.com\n')

    r = await cfg(['config', 'remove', 'beta'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('It was the chosen profile')
    expect(r.stderr).toContain('not revoked')
    expect(file().current_profile).toBeUndefined()
    expect(file().profiles).toEqual({alpha: {base_url: 'https://a.example.com'}})
    r = await cfg(['config', 'list', '--json'])
    expect(r.json().profile).toBe('default')
  })

  it('use and remove of an unknown profile: exit 2 naming the profiles, nothing changed', async () => {
    await cfg(['config', 'set', 'base_url', 'https://a.example.com', '--profile', 'alpha'])
    const before = readFileSync(join(dir, 'config.json'), 'utf8')
    for (const args of [
      ['config', 'use', 'alhpa'],
      ['config', 'remove', 'alhpa'],
    ]) {
      const r = await cfg(args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr).toContain('No profile named "alhpa". Did you mean "alpha"? Profiles: alpha.')
      expect(r.stderr).toContain('--profile alhpa')
    }
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before)
    const r = await cfg(['config', 'use', 'nobody', '--json'])
    expect(r.code).toBe(2)
    expect(r.json().error.message).toContain('No profile named "nobody"')
  })

  it('no profiles: an empty array, and a hint on stderr', async () => {
    const r = await cfg(['config', 'profiles', '--json'])
    expect(r.code).toBe(0)
    expect(r.json()).toEqual([])
    const human = await cfg(['config', 'profiles'])
    expect(human.stderr).toContain('No profiles yet')
    // The line alone: no empty table, no "No records." before it.
    expect(human.stdout).toBe('')
  })

  it('selection order: --profile > COMMERCE_PROFILE > the chosen profile > "default"', async () => {
    for (const name of ['chosen', 'env', 'flag', 'default'])
      await cfg(['config', 'set', 'base_url', `https://${name}.example.com`, '--profile', name])
    expect(file().current_profile).toBe('chosen')
    const get = async (args: string[], env: Record<string, string> = {}) => (await cfg(['config', 'get', 'base_url', ...args], env)).stdout.trim()

    expect(await get(['--profile', 'flag'], {COMMERCE_PROFILE: 'env'})).toBe('https://flag.example.com')
    expect(await get([], {COMMERCE_PROFILE: 'env'})).toBe('https://env.example.com')
    expect(await get([])).toBe('https://chosen.example.com')
    const profiles = (await cfg(['config', 'profiles', '--json'], {COMMERCE_PROFILE: 'env'})).json<Array<{name: string; current: boolean}>>()
    expect(profiles.filter((p) => p.current).map((p) => p.name)).toEqual(['env'])

    // `use` while COMMERCE_PROFILE names another: saved, with a warning that the variable wins.
    const r = await cfg(['config', 'use', 'flag'], {COMMERCE_PROFILE: 'env'})
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('COMMERCE_PROFILE=env is set in this shell and takes precedence')
    expect(file().current_profile).toBe('flag')

    await cfg(['config', 'remove', 'flag'])
    expect(await get([])).toBe('https://default.example.com')
    // Set without --profile writes to the selected profile (here COMMERCE_PROFILE's).
    await cfg(['config', 'set', 'key_id', 'k_env'], {COMMERCE_PROFILE: 'env'})
    expect(file().profiles.env.key_id).toBe('k_env')
    expect(file().profiles.default.key_id).toBeUndefined()
  })
})
