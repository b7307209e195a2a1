/**
 * What the built CLI loads to run a command (issue 24): help loads neither the HTTP stack (undici) nor the config
 * store (conf), a command reading a config file at this release's version does not load conf, an API command goes
 * through node:http without undici, TLS, node:crypto or node:v8, and one through a proxy through undici without
 * HTTP/2 or TLS (undici's HTTP/2 client is required on first use: scripts/patches.mjs). A preload writes, at exit, the Node modules the process
 * loaded and the bundle's files it required.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {startSandbox, type Sandbox} from '../../src/sandbox/index.js'
import {run, tempConfigDir} from '../helpers/cli.js'
import {startFaultyServer} from '../helpers/faulty-server.js'

// Also whether the process read process.stdin (Node makes the stream on that first read): its getter is wrapped.
const PRELOAD = `const stdin = Object.getOwnPropertyDescriptor(process, 'stdin')
let stdinRead = false
Object.defineProperty(process, 'stdin', {configurable: true, enumerable: stdin.enumerable, get() { stdinRead = true; return stdin.get.call(process) }})
process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADED_FILE, JSON.stringify({
  builtins: process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length)),
  files: Object.keys(require.cache),
  stdinRead,
})))\n`

describe('what a command loads', () => {
  const tmp = tempConfigDir()
  let sandbox: Sandbox
  beforeAll(async () => {
    writeFileSync(join(tmp.dir, 'preload.cjs'), PRELOAD)
    sandbox = await startSandbox({host: '127.0.0.1', port: 0})
  })
  afterAll(async () => {
    await sandbox.close()
    tmp.cleanup()
  })

  async function loaded(
    args: string[],
    configDir = join(tmp.dir, 'config'),
    more: NodeJS.ProcessEnv = {},
  ): Promise<{builtins: string[]; bundle: string[]; stdinRead: boolean}> {
    const file = join(tmp.dir, 'loaded.json')
    const env = {
      ...more,
      COMMERCE_CONFIG_DIR: configDir,
      HOME: tmp.dir,
      LOADED_FILE: file,
      NODE_OPTIONS: `--require ${join(tmp.dir, 'preload.cjs')}`,
    }
    const result = await run(args, {env})
    expect(result.code, result.stderr).toBe(0)
    const {builtins, files, stdinRead} = JSON.parse(readFileSync(file, 'utf8')) as {builtins: string[]; files: string[]; stdinRead: boolean}
    const bundle = files.filter((f) => f.includes(`${join('dist', 'bundle')}`)).map((f) => f.slice(f.indexOf('bundle') + 'bundle/'.length))
    return {builtins, bundle, stdinRead}
  }

  it('help: no HTTP stack, no config store', async () => {
    const {builtins, bundle} = await loaded(['customers', 'list', '--help'])
    expect(bundle).toContain('core.js') // the measurement works
    expect(bundle).not.toContain('vendor/undici.js')
    expect(bundle).not.toContain('vendor/conf.js')
    expect(builtins).not.toContain('http2')
    expect(builtins).not.toContain('tls')
    // Nor what oclif and the keyring need only at times (scripts/patches.mjs LAZY_REQUIRES, PLATFORM_VIA_IS_WSL).
    for (const lazy of ['child_process', 'readline', 'perf_hooks']) expect(builtins).not.toContain(lazy)
  })

  it('a command reading a config file at this version reads it without conf; one of an older version goes through conf', async () => {
    // Written by conf (config set), so at this release's version.
    const configDir = join(tmp.dir, 'saved-config')
    const set = await run(['config', 'set', 'base_url', sandbox.baseUrl], {env: {COMMERCE_CONFIG_DIR: configDir, HOME: tmp.dir}})
    expect(set.code, set.stderr).toBe(0)
    const current = await loaded(['products', 'list', '--json'], configDir)
    expect(current.builtins).toContain('http') // the base URL came from the file: a request was made
    expect(current.bundle).not.toContain('vendor/conf.js')
    const path = join(configDir, 'config.json')
    const older = JSON.parse(readFileSync(path, 'utf8')) as {__internal__?: unknown}
    delete older.__internal__ // as every release before versioning wrote it
    writeFileSync(path, JSON.stringify(older))
    const migrated = await loaded(['products', 'list', '--json'], configDir)
    expect(migrated.bundle).toContain('vendor/conf.js')
    expect(JSON.parse(readFileSync(path, 'utf8'))).toHaveProperty(['__internal__', 'migrations', 'version'])
  })

  it("an API command without a proxy: Node's HTTP client, neither undici nor TLS, crypto or node:v8", async () => {
    const {builtins, bundle, stdinRead} = await loaded(['products', 'list', '--json', '--base-url', sandbox.baseUrl])
    expect(bundle).toContain('core.js') // the measurement works
    expect(builtins).toContain('http') // src/api/node-transport.ts
    expect(bundle, 'undici (src/api/undici.ts: through a proxy only)').not.toContain('vendor/undici.js')
    expect(builtins).not.toContain('http2')
    // node:https, with TLS and crypto, only for an https:// base URL.
    expect(builtins).not.toContain('https')
    expect(builtins).not.toContain('tls')
    // The token cache hashes a key secret from the environment only: node:crypto is loaded then.
    expect(builtins).not.toContain('crypto')
    // node:v8 sets undici's compiler flag, in a process that loads undici only.
    expect(builtins).not.toContain('v8')
    // Nor Node's ES module loader: the bundle's files require each other by relative path (a `#name` of package.json's
    // imports goes through its resolver) and node:module, which brings it, is not required (scripts/bundle.mjs).
    expect(builtins).not.toContain('module')
    expect(builtins).not.toContain('internal/modules/esm/resolve')
    // perf_hooks: durations come from process.hrtime (src/domain/clock.ts), not the performance global.
    for (const lazy of ['child_process', 'readline', 'perf_hooks']) expect(builtins).not.toContain(lazy)
    // Nor a stream over standard input, which a command that reads none never makes (src/base/deps.ts).
    expect(stdinRead, 'process.stdin was read').toBe(false)
  })

  it('an API command through a proxy: undici, but not its HTTP/2 client or TLS', async () => {
    const proxy = await startFaultyServer(() => ({forward: true}), {upstream: sandbox.baseUrl})
    try {
      const {builtins, bundle} = await loaded(['products', 'list', '--json', '--base-url', sandbox.baseUrl], undefined, {HTTP_PROXY: proxy.url})
      expect(proxy.requests.map((r) => r.url)).toEqual(['/api/v2/products?page=1&per_page=30']) // through the proxy
      expect(bundle).toContain('vendor/undici.js')
      expect(builtins).toContain('v8') // --liftoff-only set before undici's parser compiles (src/api/undici.ts)
      expect(builtins).not.toContain('http2')
      expect(builtins).not.toContain('tls')
    } finally {
      await proxy.close()
    }
  })
})
