/**
 * The shipped CLI is the bundle (scripts/bundle.mjs -> dist/bundle, run by bin/run.js with its code cache,
 * bin/compile-cache.js): it must behave as the code in src/ does, plugins included. Timings are the benchmarks'
 * business (test/bench/); these tests check only that nothing was lost on the way.
 */
import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, relative} from 'node:path'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {ROOT, type RunOptions, run} from '../helpers/cli.js'
import {type TestSandbox, startTestSandbox} from '../helpers/sandbox.js'
import {startFaultyServer} from '../helpers/faulty-server.js'
import {keyPairEnv, startRecorder, storeProfile} from '../helpers/login.js'
import {killAllSessions, startInTmux} from '../helpers/tmux.js'

let sb: TestSandbox
let home: string
/** A private cache directory per test, so that each one starts with a cold code cache. */
let cacheHome: string

beforeAll(async () => {
  sb = await startTestSandbox()
  home = mkdtempSync(join(tmpdir(), 'commerce-startup-'))
})
afterAll(async () => {
  await sb.close()
  rmSync(home, {force: true, recursive: true})
})
beforeEach(() => {
  cacheHome = mkdtempSync(join(home, 'cache-'))
})
afterEach(async () => {
  await killAllSessions()
})

const codeCache = () => join(cacheHome, 'commerce', 'v8-code')
/** The code cache of this checkout's app.js. */
const appCacheFile = () =>
  join(
    codeCache(),
    readdirSync(codeCache()).find((name) => name.includes('_app.js-'))!,
  )
/** A config directory of its own, under this file's temporary home (removed with it). */
const tmpConfig = () => mkdtempSync(join(home, 'config-'))
const cli = (args: string[], options: RunOptions = {}) =>
  run(args, {...options, env: {COMMERCE_CONFIG_DIR: join(home, 'config'), HOME: home, XDG_CACHE_HOME: cacheHome, ...options.env}})

/** bin/dev.js: the same CLI from src/, compiled by tsx on the fly. */
function runDev(args: string[]): Promise<{code: number | null; stdout: string}> {
  return new Promise((resolve, reject) => {
    const env = {COMMERCE_CONFIG_DIR: join(home, 'config'), HOME: home, LANG: 'C.UTF-8', PATH: process.env.PATH ?? ''}
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bin', 'dev.js'), ...args], {cwd: ROOT, env})
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.resume()
    child.on('error', reject)
    child.on('close', (code) => resolve({code, stdout}))
  })
}

describe('the bundle', () => {
  it.each(['--version', '--help', 'customers list --help'])(
    '`commerce %s` prints what the CLI run from src/ prints',
    async (line) => {
      const args = line.split(' ')
      const [bundled, dev] = await Promise.all([cli(args), runDev(args)])
      expect(bundled.code).toBe(0)
      expect(dev.code).toBe(0)
      expect(bundled.stdout).toBe(dev.stdout)
      expect(bundled.stdout.length).toBeGreaterThan(0)
    },
    60_000,
  )

  it('--version and command help have their usual content', async () => {
    const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    const version = await cli(['--version'])
    expect(version.stdout.trim()).toBe(`${pjson.name}/${pjson.version} ${process.platform}-${process.arch} node-${process.version}`)
    const help = await cli(['customers', 'list', '--help'])
    expect(help.stdout).toContain('List customers, newest first.')
    expect(help.stdout).toMatch(/USAGE\n\s+\$ commerce customers list/)
    expect(help.stdout).toContain('--status=<option>')
    // Examples keep their template (<%= config.bin %>) rendered.
    expect(help.stdout).toContain('$ commerce customers list --status invited')
    expect(help.stdout).not.toContain('<%')
  })

  it('the manifest lists every command of src/commands, each from the bundle', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8'))
    const commandsDir = join(ROOT, 'src', 'commands')
    const ids = (dir: string): string[] =>
      readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
        e.isDirectory() ? ids(join(dir, e.name)) : [relative(commandsDir, join(dir, e.name)).replace(/\.ts$/, '').split('/').join(':')],
      )
    expect(Object.keys(manifest.commands).sort()).toEqual(ids(commandsDir).sort())
    for (const command of Object.values<{relativePath: string[]}>(manifest.commands)) {
      expect(command.relativePath.slice(0, 3)).toEqual(['dist', 'bundle', 'commands'])
      expect(statSync(join(ROOT, ...command.relativePath)).isFile()).toBe(true)
    }
  })

  it('makes one request to the sandbox with a cold and with a warm code cache', async () => {
    const expected = (await (await fetch(`${sb.baseUrl}/api/v2/products?page=2&per_page=5`)).json()) as {data: unknown[]}
    expect(expected.data).toHaveLength(5)
    for (const pass of ['cold', 'warm']) {
      const result = await cli(['products', 'list', '--page', '2', '--per-page', '5', '--json'], {env: {COMMERCE_BASE_URL: sb.baseUrl}})
      expect(result.code, `${pass}: ${result.stderr}`).toBe(0)
      // The service's records, each saying the unit of its price (the profile says none here).
      expect(result.json()).toEqual(expected.data.map((r) => ({...(r as object), money_unit: 'unknown'})))
      // The first run leaves the compiled code of what it loaded (core, the command, undici) for the next.
      expect(readdirSync(codeCache()).length, pass).toBeGreaterThanOrEqual(3)
    }
  })

  it('logs in with a key pair through the lazily loaded config writer, then lists with the stored token', async () => {
    const [key] = sb.keys
    const config = mkdtempSync(join(home, 'config-'))
    const env = {COMMERCE_BASE_URL: sb.baseUrl, COMMERCE_CONFIG_DIR: config}
    const login = await cli(['auth', 'login', '--key-id', key.key_id, '--key-secret-stdin', '--json'], {env, input: key.key_secret})
    expect(login.code, login.stderr).toBe(0)
    expect(JSON.parse(readFileSync(join(config, 'config.json'), 'utf8')).profiles.default.key_id).toBe(key.key_id)
    const list = await cli(['customers', 'list', '--json'], {env})
    expect(list.code, list.stderr).toBe(0)
    expect(Array.isArray(list.json())).toBe(true)
  })

  it("a command's --help reads no app.js: its run caches the code of core.js and the help class, none of app.js", async () => {
    expect((await cli(['customers', 'list', '--help'])).code).toBe(0)
    const cached = readdirSync(codeCache())
    expect(cached.some((name) => name.includes('_core.js-'))).toBe(true)
    expect(cached.some((name) => name.includes('help-class.js-'))).toBe(true)
    expect(cached.filter((name) => name.includes('_app.js-'))).toEqual([])
  })

  it('the first run of another command adds the code it compiled to the cache, once', async () => {
    const appCache = () => statSync(appCacheFile())
    // `version` runs through oclif and app.js (a command's --help no longer reads app.js).
    expect((await cli(['version'])).code).toBe(0)
    const afterHelp = appCache()
    const env = {env: {COMMERCE_BASE_URL: sb.baseUrl}}
    expect((await cli(['products', 'list', '--json'], env)).code).toBe(0)
    const grown = appCache()
    expect(grown.size).toBeGreaterThan(afterHelp.size)
    expect((await cli(['products', 'list', '--json'], env)).code).toBe(0)
    expect(appCache().mtimeMs, 'written again by a command that already added its code').toBe(grown.mtimeMs)
  })

  it('a run through a proxy (undici, which sets a V8 flag) saves its caches before the flag: the next run without one takes them', async () => {
    const proxy = await startFaultyServer(() => ({forward: true}), {upstream: sb.baseUrl})
    try {
      const appCache = () => readFileSync(appCacheFile())
      expect((await cli(['version'])).code).toBe(0)
      // A kind not seen before: its run saves the caches of what it loaded, with its functions added.
      const proxied = await cli(['products', 'list', '--json'], {env: {COMMERCE_BASE_URL: sb.baseUrl, HTTP_PROXY: proxy.url}})
      expect(proxied.code, proxied.stderr).toBe(0)
      expect(proxy.requests).toHaveLength(1)
      const saved = appCache()
      // Seen now, so a run that takes the cache leaves it as it is; one that rejected it (made under other flags) would write it again.
      const direct = await cli(['products', 'list', '--json'], {env: {COMMERCE_BASE_URL: sb.baseUrl}})
      expect(direct.code, direct.stderr).toBe(0)
      expect(appCache().equals(saved), 'the cache saved by the proxied run was rejected and written again').toBe(true)
    } finally {
      await proxy.close()
    }
  })

  it("two installs sharing the cache directory (an npm and a standalone build) leave each other's caches and lists alone", async () => {
    // A second install of the same version: the bundle, its entry and package.json copied, node_modules linked.
    const other = mkdtempSync(join(home, 'install-'))
    mkdirSync(join(other, 'dist'))
    for (const entry of ['bin', join('dist', 'bundle'), 'package.json']) execFileSync('cp', ['-r', join(ROOT, entry), join(other, entry)])
    symlinkSync(join(ROOT, 'node_modules'), join(other, 'node_modules'))
    const ours = () =>
      Object.fromEntries(
        readdirSync(codeCache())
          .filter((name) => !name.includes(other.replaceAll(/[^\w.-]+/g, '_')))
          .map((name) => [name, readFileSync(join(codeCache(), name))]),
      )
    expect((await cli(['version'])).code).toBe(0)
    const before = ours()
    // The other install's first run of a kind saves its caches and its list of kinds.
    const env = {COMMERCE_CONFIG_DIR: join(home, 'config'), HOME: home, PATH: process.env.PATH, XDG_CACHE_HOME: cacheHome}
    const theirs = spawnSync(process.execPath, [join(other, 'bin', 'run.js'), 'version'], {encoding: 'utf8', env})
    expect(theirs.status, theirs.stderr).toBe(0)
    expect(readdirSync(codeCache()).some((name) => name.includes('install-'))).toBe(true)
    // Ours, run again, finds its list and its caches as it left them: nothing is saved again.
    expect((await cli(['version'])).code).toBe(0)
    expect(ours()).toEqual(before)
  })

  it("names a run's kind in the cache directory by its command words only, never by an argument's value", async () => {
    const env = {env: {COMMERCE_BASE_URL: sb.baseUrl}}
    const result = await cli(['api', 'products?q=whsec_planted', '--no-auth', '-H', 'x-probe: sbx_at_planted'], env)
    expect(result.code, result.stderr).toBe(0)
    const seen = readdirSync(codeCache()).find((name) => name.startsWith('seen~'))!
    expect(readFileSync(join(codeCache(), seen), 'utf8').split('\n')).toContain('api')
    const written = readdirSync(codeCache()).map((name) => `${name}\n${readFileSync(join(codeCache(), name), 'latin1')}`)
    expect(written.join('\n')).not.toMatch(/planted|x-probe/)
  })

  it('ignores a corrupt code cache and replaces it', async () => {
    // `version`, not `--version`: bin/run.js prints --version itself, without the bundle (nor its cache).
    expect((await cli(['version'])).code).toBe(0)
    const file = readdirSync(codeCache()).find((name) => name.includes('_core.js-'))!
    writeFileSync(join(codeCache(), file), 'not a code cache')
    const result = await cli(['customers', 'list', '--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('List customers, newest first.')
    expect(readFileSync(join(codeCache(), file), 'utf8')).not.toBe('not a code cache')
  })

  it('NODE_DISABLE_COMPILE_CACHE=1 writes no cache', async () => {
    const result = await cli(['version'], {env: {NODE_DISABLE_COMPILE_CACHE: '1'}})
    expect(result.code).toBe(0)
    expect(() => readdirSync(codeCache())).toThrow(/ENOENT/)
  })
})

describe('plugins, with a cold and with a warm code cache', () => {
  it('`commerce help products` (plugin-help) lists the topic', async () => {
    for (const pass of ['cold', 'warm']) {
      const result = await cli(['help', 'products'])
      expect(result.code, `${pass}: ${result.stderr}`).toBe(0)
      expect(result.stdout).toContain('Browse the product catalogue')
      expect(result.stdout).toContain('$ commerce products COMMAND')
      for (const id of ['get', 'list', 'search']) expect(result.stdout).toMatch(new RegExp(`^  products ${id} `, 'm'))
    }
  })

  it('`commerce autocomplete --help` (plugin-autocomplete) loads', async () => {
    for (const pass of ['cold', 'warm']) {
      const result = await cli(['autocomplete', '--help'])
      expect(result.code, `${pass}: ${result.stderr}`).toBe(0)
      expect(result.stdout).toContain('Display autocomplete installation instructions.')
    }
  })

  it('an unknown command names the nearest one and is exit 2 (JSON error with --json)', async () => {
    for (const pass of ['cold', 'warm']) {
      const result = await cli(['customers', 'lsit'])
      expect(result.code, `${pass}: ${result.stderr}`).toBe(2)
      expect(result.stderr).toContain('"customers lsit" is not a commerce command. Did you mean `commerce customers list`?')
      expect(result.stderr).toContain('Run `commerce help customers` for a list of available commands.')
    }
    const json = await cli(['nosuch', '--json'])
    expect(json.code).toBe(2)
    expect(json.json()).toMatchObject({error: {message: '"nosuch" is not a commerce command.', status: null}})
    // A word several topics use names their commands.
    const stats = await cli(['stats'])
    expect(stats.code).toBe(2)
    expect(stats.stderr).toContain('"stats" is not a commerce command. Commands named stats: `commerce customers stats`, `commerce orders stats`.')
  })

  it('on a terminal, an unknown command offers to run the nearest one: yes runs it, no is exit 2', async () => {
    const yes = await startInTmux(['products', 'lst', '--base-url', sb.baseUrl, '--per-page', '1'])
    await yes.waitFor(/Did you mean\s+`commerce products list --base-url/)
    await yes.reply('y')
    expect(await yes.waitForExit()).toBe(0)
    expect(await yes.capture()).toContain('Showing 1-1 of')
    const no = await startInTmux(['customers', 'lsit'])
    await no.waitFor(/Did you mean\s+`commerce customers list`\?/)
    await no.reply('n')
    expect(await no.waitForExit()).toBe(2)
    // The question answered, the error does not ask it again.
    const screen = await no.capture()
    expect(screen).toContain('Error: "customers lsit" is not a commerce command.')
    expect(screen.match(/Did you mean/g)).toHaveLength(1)
  })

  it('at 80 columns the question wraps at words: the suggested command is never split by the terminal', async () => {
    const term = await startInTmux(['orders', 'lsit', '--base-url', sb.baseUrl, '--status', 'paid', '-L', '1'], {width: 80})
    const screen = await term.waitFor(/Did you mean[\s\S]*\(Y\/n\)/)
    // capture() joins the lines the terminal wrapped: a line longer than the pane is one the terminal split.
    const lines = screen.split('\n')
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80)
    expect(lines.some((line) => line.includes('`commerce orders list --base-url') && line.includes('-L 1`?'))).toBe(true)
    await term.reply('n')
    expect(await term.waitForExit()).toBe(2)
  })

  it("the Stripe CLI's top-level words, a mistyped alias and a mistyped event name each get their did-you-mean", async () => {
    const dir = tmpConfig()
    const env = {COMMERCE_CONFIG_DIR: dir}
    for (const [word, command] of [
      ['login', 'auth login'],
      ['logout', 'auth logout'],
      ['listen', 'webhooks listen'],
      ['trigger', 'webhooks trigger order.paid'],
    ]) {
      const r = await cli(word === 'trigger' ? ['trigger', 'order.paid'] : [word], {env})
      expect(r.code, word).toBe(2)
      expect(r.stderr, word).toContain(`Did you mean \`commerce ${command}\`?`)
    }
    expect((await cli(['alias', 'set', 'refund-late', 'orders refund $1 --reason late'], {env})).code).toBe(0)
    const alias = await cli(['refund-lat', '12'], {env})
    expect(alias.code).toBe(2)
    expect(alias.stderr).toContain('Did you mean `commerce refund-late 12`?')
    // An event name is any name (a service may send more), so only the sandbox, which sends a known few, can say.
    const typo = await cli(['webhooks', 'create', '--url', 'https://hooks.example.com/x', '--event', 'order.shiped'], {
      env: keyPairEnv(dir, sb.baseUrl, sb.keys[0]),
    })
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain('not "order.shiped" (did you mean order.shipped?)')
  })

  it('a guess that changes anything runs only on a y typed for it: Enter says no, also with --yes on the mistyped line; a read runs on Enter', async () => {
    const recorder = await startRecorder()
    try {
      const refund = await startInTmux(['orders', 'refnd', '23', '--amount', '100', '--yes'], {
        env: keyPairEnv(tmpConfig(), recorder.url, sb.keys[0]),
      })
      await refund.waitFor(/Did you mean\s+`commerce orders refund 23 --amount 100 --yes`\? \(y\/N\)/)
      await refund.sendKeys('Enter')
      expect(await refund.waitForExit()).toBe(2)
      expect(recorder.requests).toHaveLength(0)
      const read = await startInTmux(['products', 'lst', '--base-url', sb.baseUrl, '--per-page', '1'])
      await read.waitFor(/Did you mean\s+`commerce products list --base-url[^`]+`\? \(Y\/n\)/)
      await read.sendKeys('Enter')
      expect(await read.waitForExit()).toBe(0)
      expect(await read.capture()).toContain('Showing 1-1 of')
    } finally {
      await recorder.close()
    }
  })

  it('the suggestion keeps every argument and flag: `customers gte 1` on a terminal, answered yes, runs `customers get 1`', async () => {
    const plain = await cli(['customers', 'gte', '5', '--base-url', sb.baseUrl])
    expect(plain.code).toBe(2)
    expect(plain.stderr).toContain('"customers gte 5" is not a commerce command. Did you mean `commerce customers get 5 --base-url')
    const term = await startInTmux(['customers', 'gte', '1', '--base-url', sb.baseUrl], {
      env: keyPairEnv(tmpConfig(), sb.baseUrl, sb.keys[0]),
    })
    await term.waitFor(/Did you mean\s+`commerce customers get 1 --base-url/)
    await term.reply('y')
    // It ran `customers get 1` against the (empty) sandbox: the argument arrived, and the service answered 404.
    const code = await term.waitForExit()
    expect(code, await term.capture()).toBe(4)
    expect(await term.capture()).toContain('No customer has id "1"')
  })

  it('a suggestion changes each word a little, never a whole word: `sandbox snapshot drop X` is not `snapshot list X`', async () => {
    const far = await cli(['sandbox', 'snapshot', 'drop', 'x'])
    expect(far.code).toBe(2)
    expect(far.stderr).toContain('"sandbox snapshot drop x" is not a commerce command.')
    expect(far.stderr).not.toContain('Did you mean')
    const near = await cli(['sandbox', 'snapshot', 'delte', 'x'])
    expect(near.stderr).toContain('Did you mean `commerce sandbox snapshot delete x`?')
  })

  it('a mistyped topic is suggested (`ordrs` -> `orders`), and yes shows its commands', async () => {
    const plain = await cli(['ordrs'])
    expect(plain.code).toBe(2)
    expect(plain.stderr).toContain('Did you mean `commerce orders`?')
    const term = await startInTmux(['ordrs'])
    await term.waitFor('Did you mean `commerce orders`?')
    await term.reply('y')
    expect(await term.waitForExit()).toBe(0)
    expect(await term.capture()).toContain('orders refund')
  })

  it('`commerce version`, `-v` and `--version` print the same line; `version --json` the parts', async () => {
    const [long, short, command, json] = await Promise.all([cli(['--version']), cli(['-v']), cli(['version']), cli(['version', '--json'])])
    for (const r of [long, short, command, json]) expect(r.code, r.stderr).toBe(0)
    expect(long.stdout).toMatch(/^commerce-service-cli\/\d+\.\d+\.\d+ \S+ node-v\d+/)
    expect(short.stdout).toBe(long.stdout)
    expect(command.stdout).toBe(long.stdout)
    expect(json.json()).toEqual({arch: process.arch, node: process.version, platform: process.platform, version: expect.any(String)})
  })

  it('extra arguments are "Unexpected argument", not "not a command" (exit 2)', async () => {
    const r = await cli(['customers', 'list', 'extra-arg'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('Unexpected argument: extra-arg')
    expect(r.stderr).not.toContain('is not a commerce command')
  })

  it('global flags written before the topic work: `commerce -p NAME products list`', async () => {
    const dir = tmpConfig()
    await storeProfile(dir, 'staging', {base_url: sb.baseUrl})
    const r = await cli(['-p', 'staging', 'products', 'list', '--per-page', '1', '--json'], {env: {COMMERCE_CONFIG_DIR: dir}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.json()).toHaveLength(1)
    const named = await cli(['--profile=nowhere', 'customers', 'list'], {env: {COMMERCE_CONFIG_DIR: dir}})
    expect(named.stderr).toContain('--profile nowhere')
  })

  it('on a terminal with CI set, an unknown command does not prompt: exit 2', async () => {
    const term = await startInTmux(['customers', 'lsit'], {env: {CI: '1'}})
    expect(await term.waitForExit()).toBe(2)
    expect(await term.capture()).toContain('Did you mean `commerce customers list`?')
  })
})

describe('--debug', () => {
  it('an internal error prints a stack trace naming the .ts sources', async () => {
    // A defect on purpose: stdout's write throws a TypeError (preloaded), which no layer of the CLI raises, so
    // BaseCommand reports it as internal and --debug shows its stack, mapped through the bundle's source maps.
    const preload = join(mkdtempSync(join(tmpdir(), 'commerce-defect-')), 'broken-stdout.cjs')
    writeFileSync(preload, "process.stdout.write = function brokenWrite() { throw new TypeError('stdout broke on purpose') }\n")
    try {
      const result = await cli(['products', 'get', '1', '--debug'], {env: {COMMERCE_BASE_URL: sb.baseUrl, NODE_OPTIONS: `--require ${preload}`}})
      expect(result.code, result.stderr).toBe(1)
      expect(result.stderr).toContain('stdout broke on purpose')
      expect(result.stderr).toMatch(/at .*src\/io\/streams\.ts:\d+:\d+/)
      expect(result.stderr).toMatch(/at .*src\/commands\/products\/get\.ts:\d+:\d+/)
      expect(result.stderr).not.toContain('dist/bundle')
    } finally {
      rmSync(join(preload, '..'), {force: true, recursive: true})
    }
  })

  it('an error the CLI raised on purpose (a 404) prints no stack, even with --debug', async () => {
    const result = await cli(['products', 'get', '999999', '--debug'], {env: {COMMERCE_BASE_URL: sb.baseUrl}})
    expect(result.code).toBe(4)
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })
})
