/**
 * A config file written by the release before versioned migrations (test/fixtures/config/previous-release.json,
 * today's format) is read and migrated by conf through the store: the first command that reads it records
 * version 1.0.0 and drops the one thing 1.0.0 changes (a cached profile token with no token_base_url, which no
 * release would use again); everything else, unknown keys included, is kept byte for byte in value. A file
 * already at this version is read without being written.
 */
import {chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {CONFIG_VERSION} from '../../src/config/migrations.js'
import {ConfigStore} from '../../src/config/config-store.js'
import {ROOT, run} from '../helpers/cli.js'

const FIXTURE = join(ROOT, 'test', 'fixtures', 'config', 'previous-release.json')
const previous = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, any>

let dir: string
let file: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'commerce-migrate-'))
  file = join(dir, 'config.json')
  copyFileSync(FIXTURE, file)
  chmodSync(file, 0o600)
})
afterEach(() => rmSync(dir, {force: true, recursive: true}))

const onDisk = () => JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>

/** The fixture as 1.0.0 leaves it: the staging profile's token (issued where, nobody knows) dropped. */
function migratedFixture(): Record<string, any> {
  const expected = structuredClone(previous)
  for (const key of ['access_token', 'expires_at', 'scopes']) delete expected.profiles.staging[key]
  return expected
}

describe('a config file of the previous release', () => {
  it('is migrated on first read: the version recorded, the unusable token dropped, the rest kept', async () => {
    const data = await new ConfigStore(dir).read()
    expect(data).toEqual(migratedFixture())
    expect(data).not.toHaveProperty('__internal__')
    const {__internal__: internal, ...rest} = onDisk()
    expect(internal).toEqual({migrations: {version: CONFIG_VERSION}})
    expect(rest).toEqual(migratedFixture())
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it('a migrated file is read again without being rewritten', async () => {
    await new ConfigStore(dir).read()
    const before = readFileSync(file, 'utf8')
    const mtime = statSync(file).mtimeMs
    expect(await new ConfigStore(dir).read()).toEqual(migratedFixture())
    expect(readFileSync(file, 'utf8')).toBe(before)
    expect(statSync(file).mtimeMs).toBe(mtime)
  })

  it('a change through the store keeps everything else and the recorded version', async () => {
    await new ConfigStore(dir).update((data) => {
      data.profiles!.default.money_unit = 'major'
    })
    const {__internal__: internal, ...rest} = onDisk()
    const expected = migratedFixture()
    expected.profiles.default.money_unit = 'major'
    expect(rest).toEqual(expected)
    expect(internal).toEqual({migrations: {version: CONFIG_VERSION}})
  })

  it('the built CLI reads it as before: the chosen profile and its settings, secrets masked', async () => {
    const r = await run(['config', 'list', '--json'], {env: {COMMERCE_CONFIG_DIR: dir}})
    expect(r.code, r.stderr).toBe(0)
    // token_cached false: the staging token of unknown origin was dropped by the migration.
    expect(r.json()).toMatchObject({
      api_version: 'v1',
      base_url: 'https://staging.example.test',
      key_id: 'key_staging',
      profile: 'staging',
      token_cached: false,
    })
    expect(r.stdout + r.stderr).not.toContain('whsec_fixture')
    expect(onDisk().__internal__).toEqual({migrations: {version: CONFIG_VERSION}})
  })
})
