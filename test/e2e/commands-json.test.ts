/**
 * `commerce commands --json`: the CLI described to a program at once (issue 51), compared with the manifest oclif
 * loads commands from: every command of ours with its arguments, flags and examples, whether it changes the account,
 * and the exit code of each error code.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {ERROR_CODES} from '../../src/errors.js'
import {ROOT, run} from '../helpers/cli.js'

interface Described {
  id: string
  command: string
  summary: string | null
  args: Array<{name: string; required: boolean}>
  flags: Array<{name: string; type: string; options: string[] | null; required: boolean; multiple: boolean; global: boolean}>
  examples: string[]
  changes_account: boolean
  exit_codes: Record<string, number>
}

describe('commands --json', () => {
  it('describes every command of the manifest: arguments, flags, examples, whether it changes the account, exit codes', async () => {
    const r = await run(['commands', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const all = r.json<Described[]>()
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, {hidden?: boolean; flags: Record<string, unknown>; args: Record<string, unknown>}>
    }
    const ours = Object.entries(manifest.commands).filter(([, c]) => !c.hidden)
    for (const [id, c] of ours) {
      const d = all.find((x) => x.id === id)
      expect(d, id).toBeDefined()
      expect(d!.command).toBe(`commerce ${id.replaceAll(':', ' ')}`)
      expect(d!.flags.map((f) => f.name).sort(), id).toEqual(Object.keys(c.flags).sort())
      expect(
        d!.args.map((a) => a.name),
        id,
      ).toEqual(Object.keys(c.args))
      expect(d!.exit_codes).toEqual(Object.fromEntries(Object.entries(ERROR_CODES).map(([code, e]) => [code, e.exit])))
      // Each example runs the CLI (some in a pipe, after a variable), its template filled in.
      for (const example of d!.examples) {
        expect(example, id).toContain('commerce ')
        expect(example, id).not.toContain('<%=')
      }
    }
    const byId = (id: string) => all.find((x) => x.id === id)!
    expect(byId('customers:list').changes_account).toBe(false)
    expect(byId('orders:stats').changes_account).toBe(false)
    expect(byId('orders:refund').changes_account).toBe(true)
    expect(byId('orders:refund').flags.find((f) => f.name === 'dry-run')).toMatchObject({global: false, type: 'boolean'})
    expect(byId('orders:stats').flags.find((f) => f.name === 'by')).toMatchObject({options: ['hour', 'day', 'week', 'month'], type: 'option'})
    expect(byId('customers:list').flags.find((f) => f.name === 'json')).toMatchObject({global: true})
    // What each class declares: the operations it makes, the kind its id is picked from, its own exit statuses.
    const described = byId('orders:refund') as unknown as {operations: Array<{id: string; method: string}>; picks: string | null}
    expect(described.operations.map((o) => `${o.method} ${o.id}`)).toEqual(['GET getOrder', 'POST refundOrder'])
    expect(described.picks).toBe('refundable-order')
    expect((byId('auth:status') as unknown as {exits: Record<string, string>}).exits).toHaveProperty('3')
    expect(byId('webhooks:create').changes_account).toBe(true)
    expect(byId('config:set').changes_account).toBe(false)
    // One declaration of what each changes: the account, local state (config, the local sandbox, the inbox), or nothing.
    const effect = (id: string) => (byId(id) as unknown as {effect: string}).effect
    expect(effect('config:set')).toBe('local')
    expect(effect('sandbox:reset')).toBe('local')
    expect(effect('customers:list')).toBe('reads')
    // A DELETE of the token on the service: it changes the account; oclif's help changes nothing.
    expect(effect('auth:logout')).toBe('account')
    expect(byId('auth:logout').changes_account).toBe(true)
    expect(effect('help')).toBe('reads')
    expect(byId('help').changes_account).toBe(false)
    for (const id of ['plugins:install', 'plugins:link', 'plugins:uninstall']) expect(effect(id), id).toBe('local')
    // The README's filter of the commands that only read lists none that changes anything.
    const reads = all.filter((c) => (c as unknown as {effect: string}).effect === 'reads').map((c) => c.id)
    for (const id of ['auth:logout', 'config:remove', 'alias:delete', 'sandbox:stop', 'sandbox:snapshot:delete', 'webhooks:replay'])
      expect(reads, id).not.toContain(id)
  })

  it('without --json: one line a command, its summary beside it', async () => {
    const r = await run(['commands'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^commerce orders stats +Orders, gross, refunded and net per period/m)
  })
})
