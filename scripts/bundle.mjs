#!/usr/bin/env node
/**
 * Builds the shipped CLI into dist/bundle with esbuild (part of `npm run build`, after `tsc --noEmit` has checked
 * the types); bin/run.js runs it. Every file is CommonJS:
 *
 * - core.js: @oclif/core and its dependencies in one file, so that start-up does not walk hundreds of files.
 * - app.js: all of src/ (and what it imports statically: chalk...) in one shared file. Each module in it is
 *   evaluated only when first required, so running one command runs only that command's modules; and a class
 *   (CliError, the commands' base) is one object whichever command or hook reaches it.
 * - commands/**, hooks/*: one line each, `module.exports = require('../../app.js').load('commands/products/list')`,
 *   so that oclif (package.json `oclif.commands`, the manifest) finds one file per command.
 * - vendor/<package>.js: each package our code imports lazily (`await import('undici')`: undici, @inquirer/prompts,
 *   cli-progress, conf, @napi-rs/keyring), required only when that line runs; conf without ajv, which
 *   it loads for a JSON Schema the CLI does not give it. @napi-rs/keyring is a native
 *   binding (a .node file per platform): its vendor file only requires it from node_modules.
 * - package.json: CommonJS. The files require each other by relative path: Node resolves a `#name` of package.json's
 *   `imports` through its ES module resolver, whose modules cost the first such require 3 ms.
 * - *.map: source maps, used only under --debug (bin/run.js), so that stack traces name the .ts files.
 * - lean/: each of our commands' own manifest entry and the table of ids, for bin/lean.js (scripts/lean-start.mjs).
 * - ../metafile.json (outside what ships): esbuild's account of which module went into which file
 *   (test/build/bundle.test.ts checks that no module of src/ is in two files).
 *
 * Why CommonJS rather than ES modules with esbuild's `splitting`: Node 20 caches the compiled code of CommonJS
 * only (V8's code cache through node:vm, bin/compile-cache.js), and that halves the time spent loading the
 * bundle. A lazy `await import('pkg')` of our code is found by esbuild's resolver (kind 'dynamic-import', no
 * rewriting of the source) and becomes a small module re-exporting `./vendor/pkg.js`, required on first use.
 * Third-party code's own import() (oclif loading an ES module plugin) is left as it is: bin/compile-cache.js
 * compiles with Node's public `importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER`.
 *
 * Built beside dist/bundle and swapped in by rename, so that a CLI started meanwhile sees the old or the new one.
 * Plugins (@oclif/plugin-*) stay in node_modules and load their own @oclif/core when they run.
 *
 * What the build relies on in packages we do not own is checked by test/build/bundle.test.ts, and those packages
 * are pinned to exact versions in package.json.
 */
import {build} from 'esbuild'
import {mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join, relative, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

import {
  COMMAND_ID_SORT,
  CONF_WITHOUT_AJV,
  CORE_PLUGIN_MATCH,
  DEBUG_WHEN_ASKED,
  DYNAMIC_IMPORT_REWRITE,
  HELP_RENDER,
  LAZY_REQUIRES,
  PLATFORM_VIA_IS_WSL,
  PLUGIN_ROOT_FIRST_LOOK,
  UNDICI_LAZY_H2,
} from './patches.mjs'
import {asciiOnly} from './ascii-only.mjs'
import {writeLeanStart} from './lean-start.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
const out = join(dist, 'bundle')
const temp = join(dist, `.bundle-${process.pid}`)
const require = createRequire(import.meta.url)

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  keepNames: true,
  logLevel: 'warning',
  // Dynamic requires esbuild cannot follow, in code paths the shipped CLI does not take: left to Node.
  // import.meta in src/ only where `require` is absent (ES modules under test); the bundle takes Node's require.
  logOverride: {'empty-import-meta': 'silent', 'require-resolve-not-external': 'silent', 'unsupported-require-call': 'silent'},
  metafile: true,
  minifySyntax: true,
  minifyWhitespace: true,
  outdir: temp,
  platform: 'node',
  sourcemap: 'linked',
  sourcesContent: false,
  target: 'node20',
}

/**
 * oclif's help renders every flag description, example and heading through ejs, compiling a template function
 * for each, though only a few hold a template tag: render only those (the others come out unchanged anyway).
 * The patch (scripts/patches.mjs) fails the build if @oclif/core changes there, so that it is looked at again.
 */
const fastHelpRender = linePatch('fast-help-render', HELP_RENDER)
/** oclif's core plugins found by name where the name is not a glob (scripts/patches.mjs). */
const corePluginMatch = linePatch('core-plugin-match', CORE_PLUGIN_MATCH)
/** A plugin's commands sorted by id without loading ICU's collation data (scripts/patches.mjs). */
const commandIdSort = linePatch('command-id-sort', COMMAND_ID_SORT, ...LAZY_REQUIRES.filter((p) => p.file === COMMAND_ID_SORT.file))
/** What oclif requires at its top for some commands only, required when first used (scripts/patches.mjs). */
const lazyRequires = LAZY_REQUIRES.filter((p) => p.file !== COMMAND_ID_SORT.file && p.file !== PLATFORM_VIA_IS_WSL.file).map((p) =>
  linePatch(`lazy-${p.binding}`, p),
)
/** oclif's platform check through is-wsl itself, not wsl-utils (scripts/patches.mjs); with os.js's lazy child_process. */
const platformViaIsWsl = linePatch('platform-via-is-wsl', PLATFORM_VIA_IS_WSL, ...LAZY_REQUIRES.filter((p) => p.file === PLATFORM_VIA_IS_WSL.file))
/** oclif's loggers silent without loading `debug` where DEBUG is unset (scripts/patches.mjs). */
const debugWhenAsked = linePatch('debug-when-asked', DEBUG_WHEN_ASKED)
/** A plugin's root looked for first where module resolution looks first (scripts/patches.mjs). */
const pluginRootFirstLook = linePatch('plugin-root-first-look', PLUGIN_ROOT_FIRST_LOOK)
/** undici's HTTP/2 client (node:http2, node:tls) loaded when first used, not with its HTTP/1.1 client. */
const lazyUndiciClient = linePatch('lazy-undici-client', UNDICI_LAZY_H2)

/**
 * An esbuild plugin replacing lines of one module of a package (scripts/patches.mjs; every patch given names the
 * same file), failing the build if a line moved.
 */
function linePatch(name, ...patches) {
  return {
    name,
    setup(build) {
      build.onLoad({filter: patches[0].file}, (args) => {
        let source = readFileSync(args.path, 'utf8')
        for (const patch of patches) {
          if (!source.includes(patch.original)) throw new Error(`${args.path} changed: review the ${name} patch (scripts/patches.mjs)`)
          source = source.replace(patch.original, patch.patched)
        }
        return {contents: source, loader: 'js'}
      })
    },
  }
}

/**
 * bin/compile-cache.js runs the bundle's files from V8's code cache, and on Node 20 a script loaded from that
 * cache cannot import(), whatever `importModuleDynamically` says (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING; Node 22's
 * own compile cache has no such limit). So in core.js, the one built file with third-party import() calls
 * (@oclif/core's module loader, for ES module plugins and hooks; lilconfig's loader of .mjs config files),
 * import(x) goes through the importer that bin/compile-cache.js provides, or import() itself where there is none.
 * Our own code's lazy imports are requires (see `appPlugin`); test/build/bundle.test.ts fails if any other
 * import() is left in a shipped file. What this buys is the code cache: a third of `products list --json`
 * (figures in bin/compile-cache.js).
 */
const IMPORTER = "(globalThis[Symbol.for('commerce-cli.import')] ?? ((url) => import(url)))("
const dynamicImport = DYNAMIC_IMPORT_REWRITE.pattern
const viaImporter = {
  name: 'via-importer',
  setup(build) {
    build.onLoad({filter: /\.[cm]?js$/}, (args) => {
      const source = readFileSync(args.path, 'utf8')
      if (!source.includes('import(')) return undefined
      return {contents: source.replaceAll(dynamicImport, IMPORTER), loader: 'js'}
    })
  },
}

/** src/commands/**\/*.ts and src/hooks/*.ts, keyed by output name (commands/products/list). */
function entries(dir) {
  const found = {}
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) Object.assign(found, entries(path))
    else if (/(?<!\.d|\.test)\.ts$/.test(entry.name)) found[relative(join(root, 'src'), path).replace(/\.ts$/, '')] = path
  }
  return found
}

/** Where app.js requires a package our code imports lazily: `./vendor/<package>.js`. */
const VENDOR = './vendor/'

/** Packages our code imports lazily (`await import('x')`), found while bundling app.js. */
const vendors = new Set()

/**
 * app.js: a virtual entry that maps each command and hook to a function requiring its module (esbuild then
 * wraps each module of src/ to run on first require); `@oclif/core` is `./core.js`, and a lazy `import('x')` of
 * a package is `./vendor/x.js`.
 */
function appPlugin(modules) {
  return {
    name: 'app',
    setup(build) {
      build.onResolve({filter: /^app:entry$/}, () => ({namespace: 'app', path: 'entry'}))
      build.onLoad({filter: /.*/, namespace: 'app'}, () => ({
        contents: [
          'const modules = {',
          ...Object.entries(modules).map(([name, path]) => `  ${JSON.stringify(name)}: () => require(${JSON.stringify(path)}),`),
          '}',
          'exports.load = (name) => modules[name]()',
        ].join('\n'),
        loader: 'js',
        resolveDir: root,
      }))
      build.onResolve({filter: /^@oclif\/core$/}, () => ({external: true, path: './core.js'}))
      // `await import('conf')` of a package: a module of app.js re-exporting vendor/conf.js, required when that
      // line first runs (esbuild gives import() of a bundled module the module's namespace, lazily).
      build.onResolve({filter: /^[@a-z]/}, (args) => {
        if (args.kind !== 'dynamic-import') return undefined
        vendors.add(args.path)
        return {namespace: 'lazy', path: args.path}
      })
      build.onLoad({filter: /.*/, namespace: 'lazy'}, async (args) => {
        const name = JSON.stringify(`${VENDOR}${args.path}.js`)
        const hasDefault = 'default' in (await import(args.path))
        return {contents: `export * from ${name}\n${hasDefault ? `export {default} from ${name}\n` : ''}`, loader: 'js'}
      })
      // Only what those modules re-export (a package's own `./vendor/` files, chalk's, are bundled as they are).
      build.onResolve({filter: /.*/, namespace: 'lazy'}, (args) => ({external: true, path: args.path}))
    },
  }
}

/** vendor/<package>.js: the package as an import() namespace (undici: scripts/undici-lite.cjs, and the rest of it on first use). */
const vendor = {
  name: 'vendor',
  setup(build) {
    build.onResolve({filter: /^vendor:/}, (args) => ({namespace: 'vendor', path: args.path.slice('vendor:'.length)}))
    // A native binding (a .node file per platform): required from node_modules at run time, never bundled.
    build.onResolve({filter: /^@napi-rs\/keyring$/}, (args) => (args.namespace === 'vendor' ? {external: true, path: args.path} : undefined))
    build.onLoad({filter: /.*/, namespace: 'vendor'}, async (args) => {
      const name = JSON.stringify(args.path)
      const hasDefault = 'default' in (await import(args.path))
      return {contents: `export * from ${name}\n${hasDefault ? `export {default} from ${name}\n` : ''}`, resolveDir: root}
    })
    // conf's JSON Schema support (ajv), never used: stand-ins that throw if constructed (scripts/patches.mjs). Only
    // conf's own imports: the MCP SDK's server validates with the real ajv and ajv-formats.
    build.onResolve({filter: /^ajv(-formats)?(\/|$)/}, (args) =>
      args.path in CONF_WITHOUT_AJV.imports && /[\\/]node_modules[\\/]conf[\\/]/.test(args.importer)
        ? {namespace: 'no-ajv', path: args.path}
        : undefined,
    )
    build.onLoad({filter: /.*/, namespace: 'no-ajv'}, () => ({
      contents: [
        "const unused = () => { throw new Error('conf schema validation is not in the bundle: config fields are checked in src/config/config-schema.ts') }",
        'export class Ajv2020 { constructor() { unused() } }',
        'export default {default: unused}',
      ].join('\n'),
      loader: 'js',
    }))
    const full = require.resolve('undici')
    // The namespace's path is relative: it is written into the bundle as a comment, and a build must not depend on
    // the folder it was made in (the same commit built in two folders gives the same bytes).
    build.onResolve({filter: /^undici$/}, (args) =>
      args.namespace === 'vendor' ? {namespace: 'undici-lite', path: relative(root, full)} : undefined,
    )
    build.onLoad({filter: /.*/, namespace: 'undici-lite'}, () => ({
      contents: [
        "module.exports = require('./scripts/undici-lite.cjs')",
        'let full',
        `for (const name of ${JSON.stringify(Object.keys(require('undici')))})`,
        '  if (!(name in module.exports))',
        // 'undici' by name, resolved from resolveDir as usual (this plugin only maps it from the vendor namespace):
        // a path here would be written into the source map.
        "    Object.defineProperty(module.exports, name, {enumerable: true, get: () => (full ??= require('undici'))[name]})",
      ].join('\n'),
      resolveDir: root,
    }))
  },
}

/**
 * @hyperjump/json-schema-formats (the email format of src/domain/validate.ts) re-exports every format from one
 * index without declaring itself free of side effects, so esbuild would keep all of them (and the IDN tables of
 * idn-hostname, ~80 KB packed) for the one used. Its modules only define functions: marked so, the rest is shaken.
 */
const formatsWithoutSideEffects = {
  name: 'formats-without-side-effects',
  setup(build) {
    const pkg = /[\\/]@hyperjump[\\/]json-schema-formats[\\/]/
    const again = Symbol('resolved by formats-without-side-effects')
    // Resolved by esbuild itself (the paths it would write, relative to the build's folder), then marked.
    const mark = async (args) => {
      if (args.pluginData === again) return undefined
      const found = await build.resolve(args.path, {importer: args.importer, kind: args.kind, pluginData: again, resolveDir: args.resolveDir})
      return found.errors.length > 0 ? undefined : {path: found.path, sideEffects: false}
    }
    build.onResolve({filter: /^@hyperjump\/json-schema-formats$/}, mark)
    build.onResolve({filter: /^(\.\/[\w.-]+\.js|idn-hostname)$/}, (args) => (pkg.test(args.importer) ? mark(args) : undefined))
  },
}

/** The help class's module: bundled on its own, so that help needs no app.js (its alias parts come from app.js, lazily). */
const HELP_CLASS = 'hooks/help-class'

/**
 * The help class's build (hooks/): @oclif/core is `../core.js`; the lazy `import('./help-aliases.js')` is the module of app.js
 * (required when first asked for, as a command file requires its command); io/wrap.js, pure functions, is its own.
 */
const helpClassPlugin = {
  name: 'help-class',
  setup(build) {
    build.onResolve({filter: /^@oclif\/core$/}, () => ({external: true, path: '../core.js'}))
    build.onResolve({filter: /\/help-aliases\.js$/}, (args) =>
      args.kind === 'dynamic-import' ? {namespace: 'app-module', path: 'hooks/help-aliases'} : undefined,
    )
    build.onLoad({filter: /.*/, namespace: 'app-module'}, (args) => ({
      contents: `module.exports = require('../app.js').load(${JSON.stringify(args.path)})\n`,
      loader: 'js',
    }))
    build.onResolve({filter: /^\.\.\/app\.js$/}, (args) => ({external: true, path: args.path}))
  },
}

/** The .js files under a folder. */
function jsFiles(dir) {
  return readdirSync(dir, {recursive: true, withFileTypes: true})
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
}

/** Merges esbuild metafiles, with output paths relative to dist/bundle. */
function mergeMeta(metas) {
  const merged = {inputs: {}, outputs: {}}
  for (const meta of metas) {
    Object.assign(merged.inputs, meta.inputs)
    for (const [path, output] of Object.entries(meta.outputs)) merged.outputs[relative(temp, join(root, path))] = output
  }
  return merged
}

try {
  // index: the plugin API (the package's main entry), on the same module instances as the commands.
  const modules = {...entries(join(root, 'src', 'commands')), ...entries(join(root, 'src', 'hooks')), index: join(root, 'src', 'index.ts')}
  // The help class, a file of its own (HELP_CLASS): a command's --help reads it and core.js, never app.js.
  delete modules[HELP_CLASS]
  const [core, app, help] = await Promise.all([
    // Reached only by oclif's development-mode TypeScript support (bin/dev.js), never by the shipped CLI.
    build({
      ...common,
      entryPoints: {core: require.resolve('@oclif/core')},
      external: ['typescript', 'ts-node', 'tsx'],
      plugins: [fastHelpRender, corePluginMatch, commandIdSort, ...lazyRequires, platformViaIsWsl, debugWhenAsked, pluginRootFirstLook, viaImporter],
    }),
    build({...common, entryPoints: {app: 'app:entry'}, plugins: [formatsWithoutSideEffects, appPlugin(modules)]}),
    build({...common, entryPoints: {[HELP_CLASS]: join(root, 'src', `${HELP_CLASS}.ts`)}, plugins: [helpClassPlugin]}),
  ])
  const entryPoints = Object.fromEntries([...vendors].sort().map((name) => [`vendor/${name}`, `vendor:${name}`]))
  const vendored = await build({...common, entryPoints, plugins: [vendor, lazyUndiciClient]})
  for (const name of Object.keys(modules)) {
    const file = join(temp, `${name}.js`)
    mkdirSync(dirname(file), {recursive: true})
    const app = relative(dirname(file), join(temp, 'app.js'))
      .split(sep)
      .join('/')
      .replace(/^(?!\.)/, './')
    writeFileSync(file, `'use strict'\nmodule.exports = require('${app}').load(${JSON.stringify(name)})\n`, {flag: 'wx'})
  }
  for (const file of jsFiles(temp)) {
    const text = readFileSync(file, 'utf8')
    if (/[^\x00-\x7f]/.test(text)) writeFileSync(file, asciiOnly(text))
  }
  writeFileSync(join(temp, 'package.json'), JSON.stringify({private: true, type: 'commonjs'}, null, 2) + '\n')
  writeFileSync(join(dist, 'metafile.json'), JSON.stringify(mergeMeta([core.metafile, app.metafile, help.metafile, vendored.metafile])) + '\n')
  await writeLeanStart(root, temp)
  rmSync(join(dist, '.bundle-old'), {force: true, recursive: true})
  try {
    renameSync(out, join(dist, '.bundle-old'))
  } catch (error) {
    if (error.code !== 'ENOENT') throw error
  }
  renameSync(temp, out)
  rmSync(join(dist, '.bundle-old'), {force: true, recursive: true})
} catch (error) {
  rmSync(temp, {force: true, recursive: true})
  throw error
}
