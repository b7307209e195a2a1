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

type Flag = {type: string; values?: string[]; minimum?: number; maximum?: number; repeatable?: true; env?: string} & {
  required_without_terminal?: true
  $ref?: string
}

interface Described {
  id: string
  summary: string | null
  description?: string
  args?: Array<{name: string; required?: true; required_without_terminal?: true}>
  flags: Record<string, Flag>
  global_flags: string
  examples?: string[]
  effect: 'reads' | 'local' | 'account'
  changes_account?: true
  operations?: string[]
  json?: unknown
  env?: string[]
  picks?: string
  exits?: Record<string, string>
}

interface Catalogue {
  bin: string
  exit_codes: Record<string, number>
  global_flags: Record<string, Flag>
  global_flag_sets: Record<string, string[]>
  shared_flags: Record<string, Flag>
  environment: {every_command: string[]; every_command_with_operations: string[]; meanings: Record<string, string>}
  value_types: Record<string, string>
  operations: Record<string, {method: string; path: string}>
  commands: Described[]
}

describe('commands --json', () => {
  it('describes every command of the manifest in at most 100 KB: arguments, flags (shared ones said once), examples, effect, exit codes', async () => {
    const r = await run(['commands', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(Buffer.byteLength(r.stdout), 'commands --json is handed to a model whole: at most 100 KB').toBeLessThanOrEqual(100 * 1024)
    const doc = r.json<Catalogue>()
    const all = doc.commands
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, {hidden?: boolean; aliases?: string[]; flags: Record<string, unknown>; args: Record<string, unknown>}>
    }
    expect(doc.exit_codes).toEqual(Object.fromEntries(Object.entries(ERROR_CODES).map(([code, e]) => [code, e.exit])))
    const ours = Object.entries(manifest.commands).filter(([id, c]) => !c.hidden && !c.aliases?.includes(id))
    for (const [id, c] of ours) {
      const d = all.find((x) => x.id === id)
      expect(d, id).toBeDefined()
      // Its own flags, and the global ones of its set: every flag oclif takes for it.
      const names = [...Object.keys(d!.flags), ...doc.global_flag_sets[d!.global_flags]]
      expect(names.sort(), id).toEqual(Object.keys(c.flags).sort())
      for (const name of doc.global_flag_sets[d!.global_flags]) expect(doc.global_flags[name], name).toBeDefined()
      for (const flag of Object.values(d!.flags))
        if (flag.$ref) expect(doc.shared_flags[flag.$ref.replace('#/shared_flags/', '')], `${id} ${flag.$ref}`).toBeDefined()
      expect(
        (d!.args ?? []).map((a) => a.name),
        id,
      ).toEqual(Object.keys(c.args))
      for (const op of d!.operations ?? []) expect(doc.operations[op], op).toBeDefined()
      // Each example runs the CLI (some in a pipe, after a variable), its template filled in; nothing unrendered.
      for (const example of d!.examples ?? []) expect(example, id).toContain('commerce ')
      expect(JSON.stringify(d), id).not.toContain('<%=')
    }
    const byId = (id: string) => all.find((x) => x.id === id)!
    const flag = (id: string, name: string): Flag => {
      const f = byId(id).flags[name]
      return f.$ref ? doc.shared_flags[f.$ref.replace('#/shared_flags/', '')] : f
    }
    // Typed flags: an integer with its bounds, an enum with its values, a window's and a repeatable's grammar.
    expect(flag('orders:list', 'per-page')).toMatchObject({maximum: 100, minimum: 1, type: 'integer'})
    expect(flag('orders:stats', 'by')).toMatchObject({type: 'enum', values: ['hour', 'day', 'week', 'month']})
    expect(flag('orders:stats', 'since')).toMatchObject({default: '30d', type: 'window'})
    expect(doc.value_types.window).toMatch(/7d/)
    expect(flag('orders:create', 'item')).toMatchObject({repeatable: true, required_without_terminal: true})
    expect(flag('customers:create', 'email')).toMatchObject({required_without_terminal: true, type: 'string'})
    expect(byId('customers:update').flags.email).not.toHaveProperty('required_without_terminal')
    expect(byId('customers:get').args?.[0]).toMatchObject({name: 'id', required_without_terminal: true})
    // The environment: what a flag reads when not given, what a command reads.
    expect(doc.global_flags.profile).toMatchObject({env: 'COMMERCE_PROFILE'})
    expect(doc.global_flags['base-url']).toMatchObject({env: 'COMMERCE_BASE_URL'})
    expect(doc.environment.every_command_with_operations).toEqual(expect.arrayContaining(['COMMERCE_KEY_ID', 'COMMERCE_ACCESS_TOKEN']))
    expect(byId('webhooks:verify').env).toContain('COMMERCE_WEBHOOK_SECRET')
    // What --json prints: the OpenAPI schema it is.
    expect(byId('orders:list').json).toEqual({items: {$ref: '#/components/schemas/OrderSummary'}, type: 'array'})
    expect(byId('customers:create').json).toEqual({$ref: '#/components/schemas/Customer'})
    expect(byId('sandbox:logs').json).toMatch(/^JSON Lines/)
    expect(byId('mcp')).not.toHaveProperty('json')
    // Templates rendered: help's own description is oclif's template.
    expect(byId('help').description ?? byId('help').summary).toContain('commerce')
    // What each changes, and what each class declares.
    expect(byId('customers:list').changes_account).toBeUndefined()
    expect(byId('orders:refund').changes_account).toBe(true)
    expect(byId('orders:refund').flags['dry-run']).toBeDefined()
    expect(byId('orders:refund').operations).toEqual(['getOrder', 'refundOrder'])
    expect(byId('orders:refund').picks).toBe('refundable-order')
    expect(byId('auth:status').exits).toHaveProperty('3')
    expect(byId('webhooks:create').changes_account).toBe(true)
    expect(byId('config:set').effect).toBe('local')
    expect(byId('sandbox:reset').effect).toBe('local')
    expect(byId('customers:list').effect).toBe('reads')
    // A DELETE of the token on the service: it changes the account; oclif's help changes nothing.
    expect(byId('auth:logout').effect).toBe('account')
    expect(byId('help').effect).toBe('reads')
    for (const id of ['plugins:install', 'plugins:link', 'plugins:uninstall']) expect(byId(id).effect, id).toBe('local')
    // An alias is said by the command it runs, not as a command of its own.
    expect(all.map((c) => c.id)).not.toContain('plugins:add')
    // The README's filter of the commands that only read lists none that changes anything.
    const reads = all.filter((c) => c.effect === 'reads').map((c) => c.id)
    for (const id of ['auth:logout', 'config:remove', 'alias:delete', 'sandbox:stop', 'sandbox:snapshot:delete', 'webhooks:replay'])
      expect(reads, id).not.toContain(id)
  })

  it('without --json: one line a command, its summary beside it', async () => {
    const r = await run(['commands'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^commerce orders stats +Orders, gross, refunded and net per period/m)
  })
})
