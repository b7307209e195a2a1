#!/usr/bin/env node
// The shipped entry: runs the bundle in dist/bundle (scripts/bundle.mjs), not the tsc output in dist/.
// CommonJS (bin/package.json): an ES module entry point takes a few ms more to start.
'use strict'
const {readFileSync} = require('node:fs')
const {join} = require('node:path')

const root = join(__dirname, '..')
const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

// `commerce --version` / `-v` alone: printed here, without loading oclif (half of the start-up of a command).
// The same line as oclif's config.userAgent, which the `version` command prints; test/build/version-fast-path.test.ts compares them.
const argv = process.argv.slice(2)
// `commerce WORDS --help` whose text was kept (help-cache.js): printed as it was, without loading oclif.
const helpCache = argv.length >= 2 ? require('./help-cache.js') : undefined
const compileCache = helpCache ? require('./compile-cache.js') : undefined
const helpAt = helpCache?.helpFile({
  argv,
  bin: pjson.oclif.bin,
  cacheDir: compileCache.cacheDir(process.env),
  env: process.env,
  root,
  stdout: process.stdout,
  version: pjson.version,
})
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const wsl = process.platform === 'linux' && (Boolean(process.env.WSL_DISTRO_NAME) || /microsoft/i.test(require('node:os').release()))
  process.stdout.write(`${pjson.name}/${pjson.version} ${wsl ? 'wsl' : process.platform}-${process.arch} node-${process.version}\n`)
} else if (helpAt && helpCache.printKept(helpAt, process.stdout)) {
  // Printed.
} else {
  if (helpAt) helpCache.keepWhatIsShown(helpAt)
  const {enableCompileCache} = compileCache ?? require('./compile-cache.js')

  // oclif checks its own package.json's engines with semver when it loads; npm checks ours at install.
  process.env.OCLIF_DISABLE_ENGINE_WARNING ??= '1'

  const bundle = join(root, 'dist', 'bundle')
  // --debug: source maps, so that stack traces name the .ts files (Node applies them only to what it compiles).
  if (process.argv.includes('--debug')) process.setSourceMapsEnabled(true)
  else {
    // What this run does, for the code cache to add its functions on its first run: the command's words and
    // whether it shows help. Only words shaped like command names (short, lower-case letters and hyphens) are
    // taken, so that no argument's value (an id, a header with a token) is ever written to the cache directory.
    const words = argv.filter((arg) => /^[a-z][a-z-]{0,29}$/.test(arg)).slice(0, 2)
    const help = argv.some((arg) => arg === '--help' || arg === '-h') ? ' --help' : ''
    enableCompileCache(bundle, pjson.version, (words.join(' ') || 'commerce') + help)
  }

  // Node prints each warning as a block (name, message, oclif's details, "Use node --trace-warnings"). The one a user
  // meets is a linked plugin whose folder was moved or deleted, which oclif reports on every command: say that in one
  // line with its fix instead. Other warnings keep one line each; all stay on stderr, never on stdout.
  const said = new Set()
  process.removeAllListeners('warning')
  process.on('warning', (warning) => {
    const gone = /^ENOENT\b.*'(.+)[\\/]package\.json'$/.exec(warning.message)
    const line =
      gone && / Plugin: /.test(warning.name)
        ? `Warning: a linked plugin is missing: ${gone[1]} holds no package.json. Link it again from where it is now, or remove it with \`commerce plugins unlink ${gone[1]}\`.`
        : process.noProcessWarnings || process.env.NODE_NO_WARNINGS === '1'
          ? undefined
          : `Warning: ${warning.name === 'Warning' ? '' : `${warning.name}: `}${warning.message}`
    if (line === undefined || said.has(line)) return
    said.add(line)
    process.stderr.write(`${line.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, '?')}\n`)
  })

  // A linked plugin makes oclif look for TypeScript to run its sources (settings.enableAutoTranspile, oclif's public
  // setting); where there is none to find (the standalone builds, an npm install), it warned on every command. Without
  // TypeScript nothing can be transpiled anyway: the plugin's compiled JavaScript runs, as oclif then does, quietly.
  // Looked for only when a plugin is linked: finding TypeScript takes a few ms that other commands need not pay.
  if ((helpCache ?? require('./help-cache.js')).anyLinked(process.env, pjson.oclif.bin))
    try {
      require.resolve('typescript', {paths: [root]})
    } catch {
      globalThis.oclif = {...globalThis.oclif, enableAutoTranspile: globalThis.oclif?.enableAutoTranspile ?? false}
    }

  // One of our own commands, with nothing else that could take part, runs with its own manifest entry (lean.js).
  const lean = require('./lean.js')
  const manifest = lean.leanManifest({
    argv,
    dataDir: (helpCache ?? require('./help-cache.js')).dataDir(process.env, pjson.oclif.bin),
    env: process.env,
    pjson,
    root,
  })

  // The root and its package.json are known: oclif need not look for them.
  const core = require(join(bundle, 'core.js'))
  if (manifest === undefined) core.execute({loadOptions: {pjson, root}})
  else
    lean.rootOnly(core.Plugin, {manifest, pjson, root}).then(
      (plugins) => core.execute({loadOptions: {pjson, plugins, root}}),
      () => core.execute({loadOptions: {pjson, root}}),
    )
}
