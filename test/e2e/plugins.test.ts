/**
 * `commerce plugins` (@oclif/plugin-plugins) with the example plugin of the repository: linked (its dependency on
 * commerce-cli installed by the link), run against the sandbox through the plugin API's client and output channel,
 * and unlinked. Processes, in a private data directory (COMMERCE_DATA_DIR) so that no user plugin is touched.
 */
import {mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {ROOT, run} from '../helpers/cli.js'
import {useSandboxFixture} from '../helpers/sandbox-fixture.js'
import {keyPairEnv} from '../helpers/login.js'

const fx = useSandboxFixture()
const EXAMPLE = join(ROOT, 'examples', 'plugin-hello')
const env = () => ({...keyPairEnv(fx.dir, fx.sb.baseUrl, fx.sb.keys[0]), COMMERCE_DATA_DIR: join(fx.dir, 'data'), HOME: fx.dir})
const cli = (args: string[], timeoutMs?: number) => run(args, {env: env(), timeoutMs})

afterAll(() => rmSync(join(EXAMPLE, 'node_modules'), {force: true, recursive: true}))

describe('plugins: the example plugin', () => {
  it('links, counts the customers through the plugin API, shows in help and the list, and unlinks', async () => {
    for (const email of ['p1@plugins.example', 'p2@plugins.example', 'p3@plugins.example'])
      expect((await cli(['customers', 'create', '--email', email, '--name', 'Plugin Person', '--no-send-invite'])).code).toBe(0)
    const before = await cli(['hello'])
    expect(before.code).toBe(2)

    const linked = await cli(['plugins', 'link', EXAMPLE], 60_000)
    expect(linked.code, linked.stderr).toBe(0)
    expect(linked.stderr).not.toMatch(/ModuleLoadError|MODULE_NOT_FOUND/)
    const list = await cli(['plugins', '--json'])
    expect(list.json().filter((p: {type: string}) => p.type !== 'core')).toEqual([
      expect.objectContaining({name: 'commerce-plugin-hello', type: 'link'}),
    ])

    const json = await cli(['hello', '--json'])
    expect(json.code, json.stderr).toBe(0)
    expect(json.json()).toEqual({customers: fx.sb.counts().customers})
    const human = await cli(['hello'])
    expect(human.stdout).toBe(`Hello! This account has ${fx.sb.counts().customers} customers.\n`)
    // The client's exit codes: no credentials is exit 3, as for any built-in command.
    const unauthenticated = await run(['hello'], {
      env: {COMMERCE_BASE_URL: fx.sb.baseUrl, COMMERCE_CONFIG_DIR: join(fx.dir, 'none'), COMMERCE_DATA_DIR: join(fx.dir, 'data')},
    })
    expect(unauthenticated.code).toBe(3)
    expect((await cli(['--help'])).stdout).toMatch(/hello\s+Say hello with the number of customers/)

    const unlinked = await cli(['plugins', 'unlink', 'commerce-plugin-hello'])
    expect(unlinked.code, unlinked.stderr).toBe(0)
    expect((await cli(['hello'])).code).toBe(2)
  }, 90_000)

  it('a linked plugin whose folder is gone: one line on stderr naming plugins unlink, stdout untouched; its command says the same', async () => {
    const data = join(fx.dir, 'data-gone')
    const root = join(fx.dir, 'moved-away')
    mkdirSync(data, {recursive: true})
    writeFileSync(
      join(data, 'package.json'),
      JSON.stringify({name: 'commerce-cli', oclif: {plugins: [{name: 'commerce-plugin-gone', root, type: 'link'}], schema: 1}, private: true}),
    )
    const goneEnv = {...env(), COMMERCE_DATA_DIR: data}
    const r = await run(['products', 'list', '--per-page', '1', '--json'], {env: goneEnv})
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toHaveLength(1)
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      `Warning: a linked plugin is missing: ${root} holds no package.json. Link it again from where it is now, or remove it with \`commerce plugins unlink ${root}\`.`,
    ])
    const command = await run(['hello'], {env: goneEnv})
    expect(command.code).toBe(2)
    expect(command.stderr).toContain(`A linked plugin is missing (commerce-plugin-gone at ${root})`)
    expect(command.stderr).toContain(`commerce plugins unlink ${root}`)
    const unlinked = await run(['plugins', 'unlink', root], {env: goneEnv})
    expect(unlinked.code, unlinked.stderr).toBe(0)
    expect((await run(['products', 'list', '--per-page', '1', '--json'], {env: goneEnv})).stderr).toBe('')
  })

  it('plugins link of a folder that is no plugin is exit 2 naming why, and links nothing (not the CLI above it)', async () => {
    const data = join(fx.dir, 'data-none')
    const notPlugin = join(fx.dir, 'not-a-plugin')
    mkdirSync(notPlugin, {recursive: true})
    const noOclif = join(fx.dir, 'no-oclif')
    mkdirSync(noOclif, {recursive: true})
    writeFileSync(join(noOclif, 'package.json'), JSON.stringify({name: 'just-a-package', version: '1.0.0'}))
    const linkEnv = {...env(), COMMERCE_DATA_DIR: data}
    for (const [dir, why] of [
      [notPlugin, 'holds no package.json'],
      [noOclif, 'has no "oclif" section'],
      [ROOT, 'is commerce itself'],
    ]) {
      const r = await run(['plugins', 'link', dir], {env: linkEnv})
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toContain(
        `${dir} ${why.startsWith('is') ? why : `is not a plugin: its package.json ${why}`}`.replace('its package.json holds', 'it holds'),
      )
      expect(r.stderr).toContain('Nothing was linked')
    }
    const list = await run(['plugins', '--json'], {env: linkEnv})
    expect(list.json().filter((p: {type: string}) => p.type !== 'core')).toEqual([])
  })
})
