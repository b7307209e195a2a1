/**
 * V8's code cache for the bundle's CommonJS files, as Node 22's `module.enableCompileCache()` does, done by hand
 * for Node 20: a file's first run compiles it and, at exit, saves the compiled code (with the functions that run
 * compiled); later runs load that instead of parsing and compiling again. It halves the time spent loading
 * the bundle: `commerce products list --json` 647 ms with it, 956 ms without, `--version` 503 and 571 ms (medians
 * of 15 interleaved runs on the shared 2-core machine under heavy load, `node -e 0` at 301 ms).
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 *
 * One cache file per bundle file in the user's cache directory (created 0700), named after the file's path,
 * the CLI's version and the file's size and modification time: V8 rejects a cache made by another V8 or with
 * other flags, but of the source it checks only the length. Failing to read or write the cache is ignored.
 *
 * A cache holds the functions compiled when it was made; a function first run later is compiled again on every
 * run (7 ms of `products list --json` after a cache made by `customers list --help`). So the first run of each
 * command (`kind`, from bin/run.js) saves the caches of the files it loaded again, with its own functions added
 * to those it found; the kinds that did are listed in `seen~<bundle folder>~<version>-<build>` beside them (up to
 * MAX_KINDS), named by the install so that two installs sharing the directory keep their own.
 */
'use strict'
const {appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync} = require('node:fs')
// Node's CommonJS loader, as `require('node:module')` exports it, without loading that module's ES module loader parts.
const Module = module.constructor
const {homedir} = require('node:os')
const {dirname, join, relative} = require('node:path')
const vm = require('node:vm')

/** The platform's cache directory for the CLI. */
function cacheDir(env) {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'commerce')
  if (process.platform === 'win32') return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'commerce', 'Cache')
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'commerce')
}

/**
 * Caches made when the build was packed, beside dist/bundle (`dist/code-cache`): the standalone builds carry their
 * own Node, whose V8 takes them, so a command's first run is as fast as the next (scripts/ship-code-cache.mjs).
 * Read when this user's cache has no file for a bundle file; anything this user's runs save goes to their own.
 */
const SHIPPED = 'code-cache'

/** A shipped cache's name: the bundle file's path inside the bundle, and its size (V8 checks the source's length). */
const shippedName = (relativePath, size) => `${relativePath.replaceAll(/[^\w.-]+/g, '_')}-${size}`

/** The start of the names of a file's caches in the user's cache directory: its path. */
const cachePrefix = (filename) => filename.replaceAll(/[^\w.-]+/g, '_')

/** A file's cache in the user's cache directory: its path, the CLI's version, and the file's size and time. */
const cacheName = (filename, version, {mtimeMs, size}) => `${cachePrefix(filename)}-${version}-${size}-${Math.trunc(mtimeMs)}`

/**
 * The list of kinds a build's caches hold, named by the install's bundle folder (`~` is never in cachePrefix's
 * output), its version and its build: an install replaces only its own earlier lists. With one name for every
 * install, an npm build and a standalone one sharing the directory deleted each other's list on every save, and
 * each then saved all its caches again on its next run.
 */
const SEEN = 'seen~'
const seenPrefix = (bundleDir) => `${SEEN}${cachePrefix(bundleDir)}~`

/** Where a run that is about to change V8's flags finds the function that saves the caches made so far (src/api/undici.ts names it too). */
const SAVE_BEFORE_FLAGS = Symbol.for('commerce-cli.code-cache.save-before-flags')

/** Commands whose functions are added to the caches; past this, a cache stays as it is. */
const MAX_KINDS = 50

/**
 * Compiles the CommonJS files under `bundleDir` through node:vm, with a code cache. `kind` names what this run
 * does (a command, or its help), to add its functions to the caches on its first run.
 */
function enableCompileCache(bundleDir, version, kind = '', env = process.env) {
  if (env.NODE_DISABLE_COMPILE_CACHE) return
  // On Node 20 a script from the code cache cannot import(), even with `importModuleDynamically`: @oclif/core's
  // import() calls go through this instead (scripts/bundle.mjs).
  globalThis[Symbol.for('commerce-cli.import')] = (url) => import(url)
  const dir = join(cacheDir(env), 'v8-code')
  const shipped = join(bundleDir, '..', SHIPPED)
  const toSave = []
  const loaded = []
  // Per build: a build replaces the bundle's directory (scripts/bundle.mjs), so its inode names the build.
  let seenFile
  let seen = []
  // Until this user's caches list kinds of their own, the kinds of the caches shipped with the build count as seen.
  let seenShipped = false
  try {
    seenFile = join(dir, `${seenPrefix(bundleDir)}${version}-${statSync(bundleDir).ino}`)
    seen = readFileSync(seenFile, 'utf8').split('\n')
  } catch {
    try {
      seen = readFileSync(join(shipped, 'seen'), 'utf8').split('\n')
      seenShipped = true
    } catch {}
  }
  const adds = seenFile !== undefined && kind !== '' && !seen.includes(kind) && seen.length < MAX_KINDS
  const compile = Module.prototype._compile
  Module.prototype._compile = function (content, filename) {
    if (!filename.startsWith(bundleDir)) return compile.call(this, content, filename)
    const prefix = cachePrefix(filename)
    let cacheFile
    let cachedData
    try {
      const {mtimeMs, size} = statSync(filename)
      cacheFile = join(dir, cacheName(filename, version, {mtimeMs, size}))
      try {
        cachedData = readFileSync(cacheFile)
      } catch {
        cachedData = readFileSync(join(shipped, shippedName(relative(bundleDir, filename), size)))
      }
    } catch {}
    const script = new vm.Script(Module.wrap(content), {cachedData, filename})
    if (cacheFile && (!cachedData || script.cachedDataRejected)) toSave.push({cacheFile, prefix, script})
    else if (cacheFile) loaded.push({cacheFile, prefix, script})
    const require = (id) => this.require(id)
    require.resolve = (request, options) => Module._resolveFilename(request, this, false, options)
    require.cache = Module._cache
    require.main = process.mainModule
    return script.runInThisContext().call(this.exports, this.exports, require, this, filename, dirname(filename))
  }
  let kindAdded = false
  const save = () => {
    if (adds && !kindAdded) toSave.push(...loaded.splice(0))
    const saving = toSave.splice(0)
    if (saving.length === 0) return
    try {
      mkdirSync(dir, {mode: 0o700, recursive: true})
      const existing = readdirSync(dir)
      // Caches of this install's earlier builds are of no further use, nor the lists of kinds that added to them
      // (`seen-`: the lists of the releases before lists were named by their install).
      for (const file of existing)
        if ((file.startsWith(seenPrefix(bundleDir)) || file.startsWith('seen-')) && join(dir, file) !== seenFile)
          rmSync(join(dir, file), {force: true})
      for (const {cacheFile, prefix, script} of saving) {
        for (const file of existing) if (file.startsWith(`${prefix}-`) && join(dir, file) !== cacheFile) rmSync(join(dir, file), {force: true})
        const temp = `${cacheFile}.${process.pid}`
        writeFileSync(temp, script.createCachedData())
        renameSync(temp, cacheFile)
      }
      if (adds && !kindAdded) appendFileSync(seenFile, `${[...(seenShipped ? seen.filter(Boolean) : []), kind].join('\n')}\n`, {mode: 0o600})
    } catch {}
    kindAdded = true
  }
  // V8 stamps a cache with its flags and rejects it under others: what changes a flag at run time (src/api/undici.ts)
  // has the caches of the files loaded so far saved first, so that later runs, without that flag, take them.
  globalThis[SAVE_BEFORE_FLAGS] = save
  process.once('exit', save)
}

module.exports = {cacheDir, cacheName, enableCompileCache, SEEN, SHIPPED, shippedName}
