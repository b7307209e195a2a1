#!/usr/bin/env node
/**
 * The code cache shipped in the standalone builds (issue 62): run by package.json's `pretarball`, which oclif's
 * packer runs in the folder it is about to archive, when scripts/pack-standalone.mjs names the Node the build
 * carries (COMMERCE_PACK_NODE). That Node runs the folder's own CLI through a few commands of each kind (help,
 * a command through oclif, an API call against the CLI's own sandbox) with an empty cache directory, and the caches
 * V8 wrote for the bundle's files are put in `dist/code-cache` (bin/compile-cache.js reads them there when a user's
 * cache has none yet), with the list of kinds they hold. The same V8 with the same flags takes them: a user's first
 * run of a command is then as fast as the next. Without COMMERCE_PACK_NODE (oclif pack run by hand) nothing is added.
 *
 *   node scripts/ship-code-cache.mjs DIR    (DIR: the CLI's folder; COMMERCE_PACK_NODE: the Node it will carry)
 */
import {execFileSync} from 'node:child_process'
import {copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {join, relative, resolve} from 'node:path'

const root = resolve(process.argv[2] ?? '.')
const node = process.env.COMMERCE_PACK_NODE
if (!node) {
  console.log('ship-code-cache: COMMERCE_PACK_NODE is not set (pack with npm run pack:standalone): no code cache shipped')
  process.exit(0)
}
const require = createRequire(import.meta.url)
const {cacheName, SEEN, SHIPPED, shippedName} = require(join(root, 'bin', 'compile-cache.js'))
const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const bundle = join(root, 'dist', 'bundle')
const home = mkdtempSync(join(tmpdir(), 'commerce-code-cache-'))
const env = {
  COMMERCE_CONFIG_DIR: join(home, 'config'),
  COMMERCE_DATA_DIR: join(home, 'data'),
  COMMERCE_NO_HELP_CACHE: '1',
  HOME: home,
  LANG: 'C.UTF-8',
  PATH: process.env.PATH,
  XDG_CACHE_HOME: join(home, 'cache'),
}
const cli = (args) =>
  execFileSync(node, [join(root, 'bin', 'run.js'), ...args], {cwd: home, encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe']})
try {
  // The kinds a user meets first: help, a command through oclif, the API path (read and written), errors.
  cli(['customers', 'list', '--help'])
  cli(['version'])
  const {base_url: baseUrl} = JSON.parse(cli(['sandbox', 'start', '--detach', '--port', '0', '--json']))
  try {
    cli(['auth', 'login', '--sandbox'])
    for (const args of [
      ['products', 'list', '--json', '--base-url', baseUrl],
      ['products', 'list', '--base-url', baseUrl],
      ['customers', 'list', '--json'],
      ['orders', 'list', '--json'],
      ['auth', 'status'],
      ['config', 'list'],
    ])
      cli(args)
  } finally {
    cli(['sandbox', 'stop'])
  }
  const made = join(home, 'cache', 'commerce', 'v8-code')
  const caches = readdirSync(made)
  const seen = caches.find((name) => name.startsWith(SEEN))
  const out = join(root, 'dist', SHIPPED)
  rmSync(out, {force: true, recursive: true})
  mkdirSync(out)
  let bytes = 0
  for (const entry of readdirSync(bundle, {recursive: true, withFileTypes: true})) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue
    const file = join(entry.parentPath, entry.name)
    const stat = statSync(file)
    const cache = cacheName(file, pjson.version, stat)
    if (!caches.includes(cache)) continue
    copyFileSync(join(made, cache), join(out, shippedName(relative(bundle, file), stat.size)))
    bytes += statSync(join(made, cache)).size
  }
  if (!seen || bytes === 0) throw new Error(`no code cache was made in ${made}`)
  writeFileSync(join(out, 'seen'), readFileSync(join(made, seen), 'utf8'))
  console.log(`ship-code-cache: ${readdirSync(out).length - 1} files, ${(bytes / 1e6).toFixed(1)} MB, in ${relative(root, out)}`)
} finally {
  rmSync(home, {force: true, recursive: true})
}
