/**
 * Completion of ids from the account in real shells (tmux): bash and zsh, with the scripts `commerce autocomplete`
 * installs. `commerce customers get <Tab>` offers the account's customer ids (zsh with name and email beside them).
 */
import {chmodSync, mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {BIN, run, tempConfigDir} from '../helpers/cli.js'
import {startInTmux} from '../helpers/tmux.js'
import {newCustomer, useTtyFixture} from '../helpers/tty.js'

const fx = useTtyFixture()
const home = tempConfigDir()
const cache = join(home.dir, 'cache')
const scripts = join(cache, 'commerce', 'autocomplete', 'functions')
const bin = join(home.dir, 'bin')
let ids: number[] = []
let customers: Array<{id: number; name: string; email: string}> = []

beforeAll(async () => {
  mkdirSync(bin)
  writeFileSync(join(bin, 'commerce'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`)
  chmodSync(join(bin, 'commerce'), 0o755)
  expect((await run(['autocomplete', 'bash'], {env: {HOME: home.dir, XDG_CACHE_HOME: cache}})).code).toBe(0)
  ids = [await newCustomer(fx), await newCustomer(fx)]
  expect((await run(['alias', 'set', 'who', 'customers get --json'], {env: fx.env})).code).toBe(0)
  expect((await run(['alias', 'set', 'late', 'customers get $1 --include orders'], {env: fx.env})).code).toBe(0)
  customers = await Promise.all(ids.map(async (id) => (await fx.api('GET', `/api/v2/customers/${id}`)).body))
})
afterAll(() => home.cleanup())

const shellEnv = () => ({...fx.env, HOME: home.dir, PATH: `${bin}:${process.env.PATH}`, XDG_CACHE_HOME: cache})

describe('id completion', () => {
  it('bash: customers get <Tab><Tab> lists the ids of the account; the cache is private', async () => {
    const term = await startInTmux([], {env: shellEnv(), program: ['bash', '--norc', '--noprofile']})
    await term.reply(`source ${join(scripts, 'bash', 'commerce.bash')}`)
    await term.type('commerce customers get ')
    await term.sendKeys('Tab', 'Tab')
    // The candidates' line: both ids and nothing else (bash lists what completes, without descriptions).
    await term.waitFor(new RegExp(`^(?=.*\\b${ids[0]}\\b)(?=.*\\b${ids[1]}\\b)[\\d ]+$`, 'm'))
    expect(statSync(join(fx.configDir, 'completion-ids.json')).mode & 0o777).toBe(0o600)
    // An alias completes as its expansion: `who` is `customers get --json`.
    await term.sendKeys('C-u')
    await term.type('clear; commerce who ')
    await term.sendKeys('Tab', 'Tab')
    await term.waitFor(new RegExp(`commerce who *\\n(?=.*\\b${ids[0]}\\b)(?=.*\\b${ids[1]}\\b)[\\d ]+$`, 'm'))
    // An alias whose argument is a $1 completes that argument as its command's: ids, never the folder's files.
    await term.sendKeys('C-u')
    await term.type('clear; commerce late ')
    await term.sendKeys('Tab', 'Tab')
    await term.waitFor(new RegExp(`commerce late *\\n(?=.*\\b${ids[0]}\\b)(?=.*\\b${ids[1]}\\b)[\\d ]+$`, 'm'))
    expect(readFileSync(join(fx.configDir, 'completion-ids.json'), 'utf8')).toContain(customers[0].email)
  })

  it('zsh: customers get <Tab> offers the ids with name and email beside them', async () => {
    const term = await startInTmux([], {env: shellEnv(), program: ['zsh', '-f']})
    await term.reply(`fpath=(${join(scripts, 'zsh')} $fpath); autoload -U compinit; compinit -u`)
    await term.type('commerce customers get ')
    await term.sendKeys('Tab')
    const c = customers[0]
    await term.waitFor(new RegExp(`${c.id}\\s+-- ${c.name} <${c.email}>`))
    // An alias completes as its expansion.
    await term.sendKeys('C-c')
    await term.reply('clear')
    await term.type('commerce who ')
    await term.sendKeys('Tab')
    await term.waitFor(new RegExp(`commerce who[\\s\\S]*${c.id}\\s+-- ${c.name} <${c.email}>`))
  })
})

describe('completion never offers file names where a value is no file', () => {
  /** A config with two profiles and a base URL that refuses (so no ids come), in a folder holding a file. */
  async function setUp() {
    const dir = tempConfigDir()
    writeFileSync(join(dir.dir, 'zz-a-file-here'), '')
    const env = {COMMERCE_CONFIG_DIR: dir.dir, HOME: home.dir}
    for (const p of ['alpha', 'beta']) expect((await run(['config', 'set', 'base_url', 'http://127.0.0.1:9', '-p', p], {env})).code).toBe(0)
    return {dir, env: {...env, PATH: `${bin}:${process.env.PATH}`, XDG_CACHE_HOME: cache}}
  }

  /** A shell in the set-up folder with the CLI's completion loaded, its screen cleared. */
  async function shellIn(shell: 'bash' | 'zsh', dir: string, env: Record<string, string>) {
    const term = await startInTmux([], {env, program: shell === 'bash' ? ['bash', '--norc', '--noprofile'] : ['zsh', '-f']})
    const load =
      shell === 'bash'
        ? `source ${join(scripts, 'bash', 'commerce.bash')}`
        : `fpath=(${join(scripts, 'zsh')} $fpath); autoload -U compinit; compinit -u`
    await term.reply(`cd ${dir}; ${load}; clear`)
    return term
  }

  it('bash: no ids offers nothing (not the files of the folder); --profile <Tab><Tab> lists the profiles', async () => {
    const {dir, env} = await setUp()
    try {
      const term = await shellIn('bash', dir.dir, env)
      await term.type('commerce customers list --profile ')
      await term.sendKeys('Tab', 'Tab')
      await term.waitFor(/^alpha\s+beta\s*$/m)
      await term.sendKeys('C-u')
      await term.type('clear; commerce customers get ')
      await term.sendKeys('Tab', 'Tab')
      // Give the completion its second to answer nothing, then look: the file is not offered.
      await term.type('X')
      await term.waitFor(/commerce customers get X/)
      expect(await term.capture()).not.toContain('zz-a-file-here')
    } finally {
      dir.cleanup()
    }
  })

  it('zsh: `api` completes its path from the operations and its method', async () => {
    const {dir, env} = await setUp()
    try {
      const term = await shellIn('zsh', dir.dir, env)
      await term.type('commerce api /api/v2/or')
      await term.sendKeys('Tab')
      await term.waitFor(/commerce api \/api\/v2\/orders$/m)
      await term.sendKeys('C-c')
      await term.type('clear; commerce api -X ')
      await term.sendKeys('Tab')
      await term.waitFor(/DELETE\s+GET\s+PATCH\s+POST/)
      expect(await term.capture()).not.toContain('zz-a-file-here')
    } finally {
      dir.cleanup()
    }
  })

  it('zsh: --profile <Tab> offers the profiles', async () => {
    const {dir, env} = await setUp()
    try {
      const term = await shellIn('zsh', dir.dir, env)
      await term.type('commerce customers list --profile ')
      await term.sendKeys('Tab')
      await term.waitFor(/alpha\s+beta/)
      expect(await term.capture()).not.toContain('zz-a-file-here')
    } finally {
      dir.cleanup()
    }
  })
})
