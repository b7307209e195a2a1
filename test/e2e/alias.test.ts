/**
 * `commerce alias set|list|delete` and the expansion, run as processes (the expansion happens in the
 * command_not_found hook, before oclif parses the expanded command) against the sandbox.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {run} from '../helpers/cli.js'
import {useSandboxFixture} from '../helpers/sandbox-fixture.js'
import {keyPairEnv} from '../helpers/login.js'

const fx = useSandboxFixture()
const env = () => keyPairEnv(fx.dir, fx.sb.baseUrl, fx.sb.keys[0])
const cli = (args: string[]) => run(args, {env: env()})

describe('aliases', () => {
  it('expand before parsing: flags typed after the alias reach the expanded command, $N take arguments, the rest is appended', async () => {
    for (const email of ['a1@alias.example', 'a2@alias.example'])
      expect((await cli(['customers', 'create', '--email', email, '--name', 'Alias Person', '--no-send-invite'])).code).toBe(0)
    expect((await cli(['alias', 'set', 'recent', 'customers list --per-page 1'])).code).toBe(0)
    expect((await cli(['alias', 'set', 'who', "customers get $1 --fields 'id,email'"])).code).toBe(0)

    const listed = await cli(['alias', 'list', '--json'])
    expect(listed.json()).toEqual({recent: 'customers list --per-page 1', who: "customers get $1 --fields 'id,email'"})

    const viaAlias = await cli(['recent', '--json'])
    expect(viaAlias.code, viaAlias.stderr).toBe(0)
    expect(viaAlias.stdout).toBe((await cli(['customers', 'list', '--per-page', '1', '--json'])).stdout)
    expect(viaAlias.json()).toHaveLength(1)

    const id = String(viaAlias.json()[0].id)
    const who = await cli(['who', id, '--json'])
    expect(who.code, who.stderr).toBe(0)
    expect(who.json()).toEqual({email: 'a2@alias.example', id: Number(id)})

    // The expanded command's own parser judges what follows the alias.
    const bad = await cli(['recent', '--per-page', '0'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('per-page')
    const missing = await cli(['who'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('needs 1 more argument')
  })

  it('a flag typed after an alias overrides the same flag of its expansion, however it is spelled', async () => {
    for (const email of ['o1@alias.example', 'o2@alias.example', 'o3@alias.example'])
      expect((await cli(['customers', 'create', '--email', email, '--name', 'Override', '--no-send-invite'])).code).toBe(0)
    expect((await cli(['alias', 'set', 'two', 'customers list --per-page 2 --fields id,email'])).code).toBe(0)
    const typed = await cli(['two', '--per-page', '3', '--json'])
    expect(typed.code, typed.stderr).toBe(0)
    expect(typed.json()).toHaveLength(3)
    const equals = await cli(['two', '--per-page=1', '--fields=id', '--json'])
    expect(equals.code, equals.stderr).toBe(0)
    expect(equals.json()).toEqual([{id: expect.any(Number)}])
    // Untouched flags of the expansion still apply.
    const kept = await cli(['two', '--json'])
    expect(Object.keys(kept.json()[0]).sort()).toEqual(['email', 'id'])
  })

  it('never shadows a command or a topic, and an expansion must start with a command: exit 2 naming the clash', async () => {
    const topic = await cli(['alias', 'set', 'orders', 'orders list'])
    expect(topic.code).toBe(2)
    expect(topic.stderr).toContain('"orders" is a commerce topic')
    const command = await cli(['alias', 'set', 'version', 'customers list'])
    expect(command.code).toBe(2)
    expect(command.stderr).toContain('"version" is a commerce command')
    const nowhere = await cli(['alias', 'set', 'x', 'custmers list'])
    expect(nowhere.code).toBe(2)
    expect(nowhere.stderr).toContain('must start with a commerce command')
    expect((await cli(['alias', 'list', '--json'])).json()).not.toHaveProperty('orders')
  })

  it('help lists aliases in their own section; delete removes one, and an unknown name is exit 2', async () => {
    expect((await cli(['alias', 'set', 'gone', 'products list'])).code).toBe(0)
    const help = await cli(['--help'])
    expect(help.stdout).toMatch(/ALIASES\n(.*\n)*\s+gone\s+commerce products list/)
    const removed = await cli(['alias', 'delete', 'gone', '--json'])
    expect(removed.json()).toEqual({expansion: 'products list', name: 'gone'})
    expect((await cli(['gone'])).code).toBe(2)
    const again = await cli(['alias', 'delete', 'gone'])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('No alias named "gone"')
  })

  it('control characters in an expansion reach no terminal raw: the success line and help show them escaped', async () => {
    const set = await cli(['alias', 'set', 'odd', 'products list --search "\u001b]0;PWNED\u0007x"'])
    expect(set.code, set.stderr).toBe(0)
    expect(set.stderr).not.toMatch(/[\u0007\u001b]/)
    expect(set.stderr).toContain('\\e]0;PWNED\\ax')
    const help = await cli(['--help'])
    expect(help.stdout).not.toMatch(/[\u0007\u001b]/)
    expect(help.stdout).toMatch(/odd\s+commerce products list --search "\\e\]0;PWNED\\ax"/)
    expect((await cli(['alias', 'delete', 'odd'])).code).toBe(0)
  })

  it('one hand-edited alias that is no string is named in a warning; the others keep working', async () => {
    expect((await cli(['alias', 'set', 'prods', 'products list --per-page 1'])).code).toBe(0)
    const path = join(fx.dir, 'config.json')
    const data = JSON.parse(readFileSync(path, 'utf8'))
    data.aliases.broken = 5
    writeFileSync(path, JSON.stringify(data))
    const r = await cli(['prods', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toHaveLength(1)
    expect(r.stderr).toContain('the alias "broken"')
    expect(r.stderr).toContain('a number, not a string: it is ignored')
    const list = await cli(['alias', 'list', '--json'])
    expect(list.code).toBe(0)
    expect(list.json()).toMatchObject({prods: 'products list --per-page 1'})
    expect(list.stderr).toContain('the alias "broken"')
    expect((await cli(['alias', 'delete', 'broken'])).code).toBe(0)
    expect((await cli(['prods', '--json'])).stderr).toBe('')
  })

  it("--help, -h and help NAME on an alias: what it runs, then that command's help, exit 0", async () => {
    expect((await cli(['alias', 'set', 'act', 'customers list --status active'])).code).toBe(0)
    for (const args of [
      ['act', '--help'],
      ['act', '-h'],
      ['help', 'act'],
    ]) {
      const r = await cli(args)
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      expect(r.stdout).toContain('act is an alias: `commerce act` runs `commerce customers list --status active`.')
      expect(r.stdout).toContain('$ commerce customers list')
    }
    expect((await cli(['alias', 'delete', 'act'])).code).toBe(0)
  })

  it('did you mean: an expansion that misspells its command, a config key, a profile', async () => {
    const alias = await cli(['alias', 'set', 'x', 'customers lsit'])
    expect(alias.code).toBe(2)
    expect(alias.stderr).toContain("did you mean 'customers list'?")
    const key = await cli(['config', 'get', 'api_versoin'])
    expect(key.code).toBe(2)
    expect(key.stderr).toContain('Did you mean api_version?')
    expect((await cli(['config', 'set', 'base_url', fx.sb.baseUrl, '--profile', 'staging'])).code).toBe(0)
    const use = await cli(['config', 'use', 'stagin'])
    expect(use.code).toBe(2)
    expect(use.stderr).toContain('Did you mean "staging"?')
  })
})
