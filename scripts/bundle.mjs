#!/usr/bin/env node
/**
 * Builds the shipped CLI into dist/bundle with esbuild (part of `npm run build`); bin/run.js runs it.
 *
 * - core.js: @oclif/core and its dependencies in one file, so that start-up does not walk hundreds of files.
 * - commands/**: one file per command (package.json `oclif.commands`, and the manifest generated from it), so
 *   that oclif still loads only the command that runs. Our code is inside; @oclif/core is `#core`.
 * - vendor/<package>.js: each package our code imports lazily (`await import('conf')`: undici, conf,
 *   @inquirer/prompts, cli-table3, cli-progress...), required only when that line runs. undici is cut down to
 *   what loads fast (scripts/undici-lite.cjs), the rest of it loading on first use.
 * - package.json: CommonJS, and the `#core` and `#vendor/*` imports of the command files, at any depth.
 * - *.map: source maps, used only under --debug (bin/run.js), so that stack traces name the .ts files.
 *
 * CommonJS rather than ES modules with splitting: Node 20 caches the compiled code of CommonJS only (V8's code
 * cache through node:vm, bin/compile-cache.js), and that halves the time spent loading the bundle.
 * Built beside dist/bundle and swapped in by rename, so that a CLI started meanwhile sees the old or the new one.
 * Plugins (@oclif/plugin-*) stay in node_modules and load their own @oclif/core when they run.
 */
import {build} from 'esbuild'
import {readdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

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
  logOverride: {'require-resolve-not-external': 'silent', 'unsupported-require-call': 'silent'},
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
 * The build fails if @oclif/core changes here, so that the patch is looked at again.
 */
const fastHelpRender = {
  name: 'fast-help-render',
  setup(build) {
    build.onLoad({filter: /[/\\]@oclif[/\\]core[/\\]lib[/\\]help[/\\]util\.js$/}, (args) => {
      const source = readFileSync(args.path, 'utf8')
      const original = 'return ejs_1.default.render(t, context);'
      if (!source.includes(original)) throw new Error(`${args.path} changed: review the fast-help-render patch`)
      return {contents: source.replace(original, "return t.includes('<%') ? ejs_1.default.render(t, context) : t;"), loader: 'js'}
    })
  },
}

/**
 * The bundle's files are compiled through node:vm (bin/compile-cache.js), where a script loaded from the code
 * cache cannot import(): their dynamic imports (oclif loading an ES module plugin, say) go through the importer
 * that bin/compile-cache.js provides, or import() itself where there is none.
 */
const IMPORTER = "(globalThis[Symbol.for('commerce-cli.import')] ?? ((url) => import(url)))("
const dynamicImport = /(?<![\w$.'"`])import\((?!\s*['"`])/
const viaImporter = {
  name: 'via-importer',
  setup(build) {
    build.onLoad({filter: /\.[cm]?js$/}, (args) => {
      const source = readFileSync(args.path, 'utf8')
      if (!dynamicImport.test(source)) return
      return {contents: source.replaceAll(new RegExp(dynamicImport, 'g'), IMPORTER), loader: 'js'}
    })
  },
}

/** src/commands/**\/*.ts and src/hooks/*.ts, keyed by output name (commands/products/list). */
function commandEntries(dir = join(root, 'src', 'commands')) {
  const entries = {}
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) Object.assign(entries, commandEntries(path))
    else if (/(?<!\.d|\.test)\.ts$/.test(entry.name))
      entries[relative(join(root, 'src'), path).replace(/\.ts$/, '')] = path
  }
  return entries
}

/** Packages our code imports lazily (`await import('x')`), found while bundling the commands. */
const vendors = new Set()

/**
 * The command files reach the shared files through package.json `imports`, at any depth: `@oclif/core` is
 * `#core`, and `await import('x')` of a package is `require('#vendor/x')`, a file that gives what Node's
 * import() would (named exports and `default`), loaded only when that line runs.
 */
const commands = {
  name: 'commands',
  setup(build) {
    build.onResolve({filter: /^@oclif\/core$/}, () => ({external: true, path: '#core'}))
    build.onResolve({filter: /^#vendor\//}, (args) => ({external: true, path: args.path}))
    build.onLoad({filter: /\.ts$/}, (args) => {
      const source = readFileSync(args.path, 'utf8')
      if (!source.includes('import(')) return
      const packageImport = /(?<!typeof\s+)\bimport\(\s*(['"])([@a-z][^'"]*)\1\s*\)/g
      const contents = source
        .replaceAll(packageImport, (_, _quote, name) => {
          vendors.add(name)
          return `Promise.resolve().then(() => require('#vendor/${name}'))`
        })
        .replaceAll(new RegExp(`(?<!typeof\\s+)${dynamicImport.source}`, 'g'), IMPORTER)
      return {contents, loader: 'ts'}
    })
  },
}

/** vendor/<package>.js: the package as an import() namespace (undici: scripts/undici-lite.cjs, and the rest of it on first use). */
const vendor = {
  name: 'vendor',
  setup(build) {
    build.onResolve({filter: /^vendor:/}, (args) => ({namespace: 'vendor', path: args.path.slice('vendor:'.length)}))
    build.onLoad({filter: /.*/, namespace: 'vendor'}, async (args) => {
      const name = JSON.stringify(args.path)
      const hasDefault = 'default' in (await import(args.path))
      return {contents: `export * from ${name}\n${hasDefault ? `export {default} from ${name}\n` : ''}`, resolveDir: root}
    })
    const full = require.resolve('undici')
    build.onResolve({filter: /^undici$/}, (args) => (args.namespace === 'vendor' ? {namespace: 'undici-lite', path: full} : undefined))
    build.onLoad({filter: /.*/, namespace: 'undici-lite'}, () => ({
      contents: [
        "module.exports = require('./scripts/undici-lite.cjs')",
        'let full',
        `for (const name of ${JSON.stringify(Object.keys(require('undici')))})`,
        '  if (!(name in module.exports))',
        `    Object.defineProperty(module.exports, name, {enumerable: true, get: () => (full ??= require(${JSON.stringify(full)}))[name]})`,
      ].join('\n'),
      resolveDir: root,
    }))
  },
}

try {
  await Promise.all([
    // Reached only by oclif's development-mode TypeScript support (bin/dev.js), never by the shipped CLI.
    build({...common, entryPoints: {core: require.resolve('@oclif/core')}, external: ['typescript', 'ts-node', 'tsx'], plugins: [fastHelpRender, viaImporter]}),
    build({...common, entryPoints: {...commandEntries(), ...commandEntries(join(root, 'src', 'hooks'))}, plugins: [commands, viaImporter]}),
  ])
  const entryPoints = Object.fromEntries([...vendors].map((name) => [`vendor/${name}`, `vendor:${name}`]))
  await build({...common, entryPoints, plugins: [vendor, viaImporter]})
  const imports = {'#core': './core.js', '#vendor/*': './vendor/*.js'}
  writeFileSync(join(temp, 'package.json'), JSON.stringify({private: true, type: 'commonjs', imports}, null, 2) + '\n')
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
