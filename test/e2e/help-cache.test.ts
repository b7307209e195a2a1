/**
 * A command's help printed again from what oclif rendered the first time (bin/help-cache.js), without loading oclif:
 * byte for byte the same text, for every command at 80 and 120 columns and for a linked plugin's command; never the
 * root's (it lists the user's aliases); a plugin linked or unlinked, or another width, is another text.
 */
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, run} from '../helpers/cli.js'

// Whether the process loaded oclif (core.js): help served from the cache does not.
const PRELOAD = `process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADED_FILE + '.' + process.pid,
  String(Object.keys(require.cache).some((f) => f.endsWith('core.js')))))\n`

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {hidden?: boolean; aliases?: string[]}>
}
const ids = Object.entries(manifest.commands)
  .filter(([id, c]) => !c.hidden && !c.aliases?.includes(id))
  .map(([id]) => id)

function scratch(): {env: Record<string, string>; loadedOclif: () => boolean[]} {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-help-cache-'))
  writeFileSync(join(dir, 'preload.cjs'), PRELOAD)
  mkdirSync(join(dir, 'loaded'))
  const env = {
    COMMERCE_CONFIG_DIR: join(dir, 'config'),
    COMMERCE_DATA_DIR: join(dir, 'data'),
    HOME: dir,
    LOADED_FILE: join(dir, 'loaded', 'core'),
    NODE_OPTIONS: `--require ${join(dir, 'preload.cjs')}`,
    XDG_CACHE_HOME: join(dir, 'cache'),
  }
  const loadedOclif = () => readdirSync(join(dir, 'loaded')).map((f) => readFileSync(join(dir, 'loaded', f), 'utf8') === 'true')
  return {env, loadedOclif}
}

async function help(words: string[], env: Record<string, string>, columns: number) {
  const r = await run([...words, '--help'], {env: {...env, OCLIF_COLUMNS: String(columns)}})
  expect(r.code, r.stderr).toBe(0)
  return r.stdout
}

describe('help kept and printed again', () => {
  it.each([80, 120])(
    'every command at %i columns: the kept text is byte for byte what oclif printed, printed without oclif',
    async (columns) => {
      const {env} = scratch()
      const differ: string[] = []
      for (let i = 0; i < ids.length; i += 8)
        await Promise.all(
          ids.slice(i, i + 8).map(async (id) => {
            const words = id.split(':')
            const rendered = await help(words, {...env, COMMERCE_NO_HELP_CACHE: '1'}, columns)
            const first = await help(words, env, columns)
            const kept = await help(words, env, columns)
            if (first !== rendered || kept !== rendered) differ.push(id)
          }),
        )
      expect(differ).toEqual([])
      // One text a command was kept, at this width.
      const kept = readdirSync(join(env.XDG_CACHE_HOME, 'commerce')).filter((d) => d.startsWith('help-'))
      expect(readdirSync(join(env.XDG_CACHE_HOME, 'commerce', kept[0]))).toHaveLength(ids.length)
    },
    240_000,
  )

  it('a kept help is printed without loading oclif; the root help is never kept', async () => {
    const {env, loadedOclif} = scratch()
    await help(['orders', 'refund'], env, 80)
    await help(['orders', 'refund'], env, 80)
    expect(loadedOclif().sort()).toEqual([false, true])
    const root = await run(['--help'], {env})
    expect(root.code).toBe(0)
    expect(
      readdirSync(join(env.XDG_CACHE_HOME, 'commerce'))
        .filter((d) => d.startsWith('help-'))
        .flatMap((d) => readdirSync(join(env.XDG_CACHE_HOME, 'commerce', d))),
    ).toHaveLength(1)
  })

  it("a linked plugin's command: its help kept too; linking or unlinking, or another width, is another text", async () => {
    const {env} = scratch()
    const before = await help(['orders'], env, 80)
    expect(before).not.toContain('hello')
    mkdirSync(env.COMMERCE_DATA_DIR, {recursive: true})
    const plugin = {name: 'commerce-plugin-hello', root: join(ROOT, 'examples', 'plugin-hello'), type: 'link'}
    writeFileSync(
      join(env.COMMERCE_DATA_DIR, 'package.json'),
      JSON.stringify({dependencies: {}, name: 'commerce', oclif: {plugins: [plugin], schema: 1}, private: true}),
    )
    const rendered = await help(['hello'], {...env, COMMERCE_NO_HELP_CACHE: '1'}, 80)
    expect(rendered).toContain('hello')
    expect(await help(['hello'], env, 80)).toBe(rendered)
    expect(await help(['hello'], env, 80)).toBe(rendered)
    expect(await help(['hello'], env, 120)).toBe(await help(['hello'], {...env, COMMERCE_NO_HELP_CACHE: '1'}, 120))
    // Unlinked: the kept text is not printed; oclif says the command is gone.
    writeFileSync(
      join(env.COMMERCE_DATA_DIR, 'package.json'),
      JSON.stringify({dependencies: {}, name: 'commerce', oclif: {plugins: [], schema: 1}, private: true}),
    )
    const gone = await run(['hello', '--help'], {env: {...env, OCLIF_COLUMNS: '80'}})
    expect(gone.stdout).not.toBe(rendered)
  }, 60_000)
})
