/**
 * `commerce autocomplete`: the bash script completes enum flag values (run in bash with COMP_WORDS set), the zsh
 * script lists them, and a repeat run reuses the cache instead of rebuilding it.
 */
import {spawnSync} from 'node:child_process'
import {appendFileSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, run, tempConfigDir} from '../helpers/cli.js'

const home = tempConfigDir()
const env = {HOME: home.dir, XDG_CACHE_HOME: join(home.dir, 'cache')}
const cache = join(home.dir, 'cache', 'commerce', 'autocomplete')
const bashFile = join(cache, 'functions', 'bash', 'commerce.bash')

/** Runs the generated completion for a command line whose last word is being completed. */
function complete(words: string[]): string[] {
  const script = `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _commerce_values_autocomplete; printf '%s\\n' "\${COMPREPLY[@]}"`
  const result = spawnSync('bash', ['-c', script, 'bash', bashFile, ...words], {encoding: 'utf8', timeout: 10_000})
  expect(result.status, result.stderr).toBe(0)
  return result.stdout.split('\n').filter(Boolean).sort()
}

beforeAll(async () => {
  const first = await run(['autocomplete', 'bash'], {env})
  expect(first.code, first.stderr).toBe(0)
  expect(first.stdout).toContain('commerce autocomplete script bash')
}, 30_000)
afterAll(() => home.cleanup())

describe('autocomplete', () => {
  it('bash completes the values of enum flags, long and short, by prefix', () => {
    expect(complete(['commerce', 'customers', 'list', '--status', ''])).toEqual(['active', 'archived', 'invited'])
    expect(complete(['commerce', 'customers', 'list', '-s', 'a'])).toEqual(['active', 'archived'])
    expect(complete(['commerce', 'orders', 'list', '--status', 'p'])).toEqual(['paid', 'pending'])
    expect(complete(['commerce', 'customers', 'get', '3', '--include', ''])).toEqual(['addresses', 'orders'])
    expect(complete(['commerce', 'customers', 'import', 'f.csv', '--on-conflict', '']).length).toBeGreaterThan(1)
    const currencyCommand = readFileSync(bashFile, 'utf8').match(/'([a-z ]+) --currency'/)
    expect(currencyCommand).not.toBeNull()
    expect(complete(['commerce', ...currencyCommand![1].split(' '), '--currency', ''])).toEqual(['EUR', 'GBP', 'USD'])
  })

  it("bash completes `api`'s path from the operations and its method (never file names)", () => {
    expect(complete(['commerce', 'api', '/api/v2/cu'])).toEqual(['/api/v2/customers', '/api/v2/customers/'])
    expect(complete(['commerce', 'api', '/api/v1/products/'])).toEqual(['/api/v1/products/search'])
    expect(complete(['commerce', 'api', ''])).toHaveLength(16)
    expect(complete(['commerce', 'api', '-X', ''])).toEqual(['DELETE', 'GET', 'PATCH', 'POST'])
    expect(complete(['commerce', 'api', '--method', 'P'])).toEqual(['PATCH', 'POST'])
  })

  it('zsh lists the values of enum flags', () => {
    const zsh = readFileSync(join(cache, 'functions', 'zsh', '_commerce'), 'utf8')
    expect(zsh).toContain('options:(USD EUR GBP)')
    expect(zsh).toContain('options:(active invited archived)')
  })

  it('a repeat run reuses the cache; --refresh-cache rebuilds it', async () => {
    appendFileSync(bashFile, '\n# marker\n')
    const again = await run(['autocomplete', 'bash'], {env})
    expect(again.code, again.stderr).toBe(0)
    expect(readFileSync(bashFile, 'utf8')).toContain('# marker')
    const refresh = await run(['autocomplete', '--refresh-cache'], {env})
    expect(refresh.code, refresh.stderr).toBe(0)
    expect(refresh.stdout).not.toContain('autocomplete script')
    expect(readFileSync(bashFile, 'utf8')).not.toContain('# marker')
    expect(complete(['commerce', 'customers', 'list', '--status', 'i'])).toEqual(['invited'])
  }, 30_000)

  for (const shell of ['bash', 'zsh'] as const)
    it(`the ${shell} set-up the command prints, run twice as a user would, adds the script once and leaves the file whole`, async () => {
      const r = await run(['autocomplete', shell], {env})
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout.endsWith('\n')).toBe(true)
      const rc = shell === 'bash' ? '.bashrc' : '.zshrc'
      const setup = /^ {5}(.+ >> ~\/\.\w+rc); source ~\/\.\w+rc$/m.exec(r.stdout)?.[1]
      expect(setup, r.stdout).toBeDefined()
      // A commerce on the PATH, as an install gives; an rc file whose last line has no newline, as editors leave it.
      const bin = join(home.dir, `bin-${shell}`)
      mkdirSync(bin, {recursive: true})
      writeFileSync(join(bin, 'commerce'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {mode: 0o755})
      writeFileSync(join(home.dir, rc), 'export BEFORE=1')
      for (let i = 0; i < 2; i++) {
        const ran = spawnSync('sh', ['-c', setup!], {encoding: 'utf8', env: {...env, PATH: `${bin}:${process.env.PATH}`}, timeout: 30_000})
        expect(ran.status, ran.stderr).toBe(0)
      }
      appendFileSync(join(home.dir, rc), 'export AFTER=1\n')
      const text = readFileSync(join(home.dir, rc), 'utf8')
      expect(text.match(/commerce autocomplete setup/g)).toHaveLength(1)
      expect(text).toMatch(/^export BEFORE=1$/m)
      expect(text).toMatch(/^export AFTER=1$/m)
      expect(text.endsWith('\n')).toBe(true)
    })
})
