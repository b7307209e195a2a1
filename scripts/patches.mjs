/**
 * What the build (scripts/bundle.mjs, scripts/undici-lite.cjs) relies on inside packages we do not own, in one
 * place: test/build/bundle.test.ts checks each of these against the installed packages and fails with a plain
 * message naming what to review when an upgrade changes one. The packages are pinned to exact versions in
 * package.json (@oclif/core, undici) so that such a change comes only with a deliberate upgrade.
 */

/** @oclif/core's help: render a text through ejs only when it holds a template tag. */
export const HELP_RENDER = {
  file: /[/\\]@oclif[/\\]core[/\\]lib[/\\]help[/\\]util\.js$/,
  package: '@oclif/core',
  module: 'lib/help/util.js',
  original: 'return ejs_1.default.render(t, context);',
  patched: "return t.includes('<%') ? ejs_1.default.render(t, context) : t;",
}

/**
 * @oclif/core finds its core plugins (package.json `oclif.plugins`) by matching each name against every dependency
 * with minimatch, which compiles a pattern each time: 3 ms of every command's Config.load (17.9 vs 21.0 ms, medians
 * of 7). A name without glob characters (after its `@scope/`) matches itself only, as minimatch would decide; a
 * glob still goes to minimatch. `LITERAL_OR_GLOB` is the expression put in place of the call;
 * test/build/bundle.test.ts checks that it decides as minimatch does.
 */
export const LITERAL_OR_GLOB = "(/[*?[\\]{}!()+@]/.test(w.replace(/^@[^/]*\\//, '')) ? (0, minimatch_1.minimatch)(p, w) : p === w)"
export const CORE_PLUGIN_MATCH = {
  file: /[/\\]@oclif[/\\]core[/\\]lib[/\\]config[/\\]plugin-loader\.js$/,
  package: '@oclif/core',
  module: 'lib/config/plugin-loader.js',
  original: 'return Object.keys(dependencies).filter((p) => patterns.some((w) => (0, minimatch_1.minimatch)(p, w)));',
  patched: `return Object.keys(dependencies).filter((p) => patterns.some((w) => ${LITERAL_OR_GLOB}));`,
}

/**
 * @oclif/core finds a plugin's root with `require.resolve(name, {paths: [root]})`, which reads package.json files
 * and their export maps along the way: 3.4 ms of Config.load for the three core plugins (19.7 vs 16.2 ms, medians
 * of 15). The bundle looks first where that resolution looks first, `<root>/node_modules/<name>`, and takes it
 * when its package.json names the plugin, as its real path (require.resolve's result is one); otherwise oclif's
 * own search runs as before. test/build/bundle.test.ts checks the line and that each core plugin's root is the
 * one require.resolve gives.
 */
export const PLUGIN_ROOT_FIRST_LOOK = {
  file: /[/\\]@oclif[/\\]core[/\\]lib[/\\]util[/\\]find-root\.js$/,
  package: '@oclif/core',
  module: 'lib/util/find-root.js',
  original: '        debug(name)(`Finding root using ${root}`);\n        let pkgPath;\n',
  patched: [
    '        debug(name)(`Finding root using ${root}`);',
    "        const direct = (0, node_path_1.join)(root, 'node_modules', name);",
    "        if ((await (0, fs_1.safeReadJson)((0, node_path_1.join)(direct, 'package.json')))?.name === name)",
    "            return require('node:fs').promises.realpath(direct);",
    '        let pkgPath;',
    '',
  ].join('\n'),
}

/**
 * @oclif/core sorts each plugin's commands by id with `localeCompare`, whose first call loads ICU's collation data:
 * 6 ms of every command, help and `--json` alike. `ID_ORDER` orders ids made of a-z, 0-9, `-` and `:` (every
 * command id of ours and of oclif's plugins) as `localeCompare` does, by ICU's root collation (`-` < `:` < digits
 * < letters, a prefix first), without ICU; an id with any other character goes to `localeCompare`.
 * test/build/bundle.test.ts checks that it orders as `localeCompare` does.
 */
export const ID_ORDER = [
  '((x, y) => {',
  '  const rank = (c) => (c === 45 ? 0 : c === 58 ? 1 : c >= 48 && c <= 57 ? c - 46 : c >= 97 && c <= 122 ? c - 85 : -1)',
  '  for (let i = 0; ; i++) {',
  '    if (i === x.length || i === y.length) return x.length === y.length ? 0 : i === x.length ? -1 : 1',
  '    const p = rank(x.charCodeAt(i)), q = rank(y.charCodeAt(i))',
  '    if (p < 0 || q < 0) return x.localeCompare(y)',
  '    if (p !== q) return p - q',
  '  }',
  '})',
].join('\n')
export const COMMAND_ID_SORT = {
  file: /[/\\]@oclif[/\\]core[/\\]lib[/\\]config[/\\]plugin\.js$/,
  package: '@oclif/core',
  module: 'lib/config/plugin.js',
  original: '.sort((a, b) => a.id.localeCompare(b.id));',
  patched: `.sort((a, b) => ${ID_ORDER}(a.id, b.id));`,
}

/**
 * Modules of @oclif/core that require, at their top, what only some commands use: node:child_process (with
 * node:net and node:dgram; for a shell's name on Windows), node:readline (flags read from stdin), tinyglobby
 * (finding command files where there is no manifest) and node:perf_hooks (OCLIF_PERFORMANCE). Each binding is
 * replaced by an object whose getters require the module when one of its `uses` is first read.
 * test/build/bundle.test.ts checks that each line is still there and that the module reads nothing else of it.
 */
const lazyRequire = (binding, specifier, uses) => ({
  binding,
  original: `const ${binding} = require("${specifier}");`,
  patched: `const ${binding} = {${uses.map((use) => `get ${use}() { return require("${specifier}").${use} }`).join(', ')}};`,
  uses,
})
export const LAZY_REQUIRES = [
  {
    file: /[/\\]@oclif[/\\]core[/\\]lib[/\\]util[/\\]os\.js$/,
    module: 'lib/util/os.js',
    ...lazyRequire('node_child_process_1', 'node:child_process', ['execSync']),
  },
  {
    file: /[/\\]@oclif[/\\]core[/\\]lib[/\\]parser[/\\]parse\.js$/,
    module: 'lib/parser/parse.js',
    ...lazyRequire('node_readline_1', 'node:readline', ['createInterface']),
  },
  {file: COMMAND_ID_SORT.file, module: 'lib/config/plugin.js', ...lazyRequire('tinyglobby_1', 'tinyglobby', ['glob'])},
  {
    file: /[/\\]@oclif[/\\]core[/\\]lib[/\\]performance\.js$/,
    module: 'lib/performance.js',
    ...lazyRequire('node_perf_hooks_1', 'node:perf_hooks', ['performance', 'PerformanceObserver']),
  },
].map((patch) => ({package: '@oclif/core', ...patch}))

/**
 * @oclif/core tells WSL apart with `(await import('wsl-utils')).isWsl`, whose module requires node:child_process
 * (with node:net and node:dgram) at its top for its PowerShell helpers: 2 to 3 ms of every command. `isWsl` is
 * wsl-utils' re-export of is-wsl's default (`WSL_IS_WSL_REEXPORT`, checked by test/build/bundle.test.ts), so the
 * bundle imports is-wsl itself.
 */
export const PLATFORM_VIA_IS_WSL = {
  file: LAZY_REQUIRES[0].file,
  package: '@oclif/core',
  module: 'lib/util/os.js',
  original: "return (await import('wsl-utils')).isWsl ? 'wsl' : (0, node_os_1.platform)();",
  patched: "return (await import('is-wsl')).default ? 'wsl' : (0, node_os_1.platform)();",
}
export const WSL_IS_WSL_REEXPORT = {module: 'wsl-utils/index.js', line: "export {default as isWsl} from 'is-wsl';"}

/**
 * @oclif/core's logger requires `debug` at its top; `debug` loads supports-color, reads the environment and
 * sets up its formatters, about 2 ms of every command, for loggers that stay silent unless DEBUG is set. The
 * logger calls the package only to make a namespace's function; where DEBUG is unset (read once, as `debug`
 * itself reads it once when it loads), the bundle makes silent ones instead. test/build/bundle.test.ts checks
 * the line, and that the logger calls nothing else of the package.
 */
export const DEBUG_WHEN_ASKED = {
  file: /[/\\]@oclif[/\\]core[/\\]lib[/\\]logger\.js$/,
  package: '@oclif/core',
  module: 'lib/logger.js',
  original: 'const debug_1 = __importDefault(require("debug"));',
  patched:
    'const debug_1 = process.env.DEBUG ? __importDefault(require("debug")) : {default: (namespace) => Object.assign(() => {}, {enabled: false, namespace})};',
}

/**
 * undici's HTTP/1.1 client requires its HTTP/2 client at its top, which loads node:http2 and node:tls (4 to 5 ms
 * of every API command, over plain HTTP/1.1 as the service speaks it): the bundle requires it when a connection
 * first negotiates h2 instead.
 */
export const UNDICI_LAZY_H2 = {
  file: /[/\\]undici[/\\]lib[/\\]dispatcher[/\\]client\.js$/,
  package: 'undici',
  module: 'lib/dispatcher/client.js',
  original: "const connectH2 = require('./client-h2.js')",
  patched: "let lazyConnectH2\nconst connectH2 = (client, socket) => (lazyConnectH2 ??= require('./client-h2.js'))(client, socket)",
}

/**
 * undici's index wraps its request API with `makeDispatcher`, which scripts/undici-lite.cjs copies (undici does
 * not export it). The SHA-256 of the function's text in undici/index.js as of the pinned version: when it
 * changes, compare the copy with the new text and update both.
 */
export const UNDICI_MAKE_DISPATCHER = {
  module: 'undici/index.js',
  sha256: '1dc8ed6aa6ee3c8f3c44c58c62189118c74e1a706ec7414b6b7b1c7852b49350',
}

/**
 * jq-web keeps jq's output in a private buffer until jq ends; the --jq worker streams it by loading jq.js with one
 * line changed. The line is JQ_OUTPUT_HOOK in src/io/jq.ts (the shipped code needs it at run time, and this file
 * does not ship); test/build/bundle.test.ts checks it against the installed jq-web.
 */
export const JQ_OUTPUT_HOOK_IN = 'src/io/jq.ts'

/**
 * conf imports ajv (and ajv-formats) at its top for JSON Schema validation, which the CLI does not use: its fields
 * are declared in src/config/config-schema.ts and checked by its deserializer. The bundle gives conf stand-ins that throw
 * if ever constructed, which saves loading ajv on every command that reads config.json. These are the lines of
 * conf's dist/source/index.js that make the stand-ins safe: the two imports, and the early return of its validator
 * set-up when no schema is given.
 */
export const CONF_WITHOUT_AJV = {
  module: 'conf/dist/source/index.js',
  imports: {'ajv/dist/2020.js': "import { Ajv2020 as Ajv } from 'ajv/dist/2020.js';", 'ajv-formats': "import ajvFormatsModule from 'ajv-formats';"},
  guard: 'if (!(options.schema ?? options.ajvOptions ?? options.rootSchema)) {\n            return;\n        }',
}

/**
 * bin/compile-cache.js runs core.js from V8's code cache, where a script cannot import() on Node 20, so
 * scripts/bundle.mjs rewrites third-party `import(x)` (any `import(` not followed by a string literal) into a call
 * of the importer bin/compile-cache.js provides. A textual rewrite is only safe where it meets real calls: these
 * are the lines of the bundled packages where it fires today. test/build/bundle.test.ts rescans every third-party
 * module the bundle holds and fails when an upgrade adds, moves or removes one, so that each is looked at
 * (a call that must stay native, or a match inside a string or comment).
 */
export const DYNAMIC_IMPORT_REWRITE = {
  pattern: /(?<![\w$.'"`])import\((?!\s*['"`])/g,
  sites: {
    'node_modules/@oclif/core/lib/config/ts-path.js': ['const { register } = await import(href);'],
    'node_modules/@oclif/core/lib/module-loader.js': [
      'return (isESM ? await import((0, node_url_1.pathToFileURL)(filePath).href) : require(filePath));',
      'const module = isESM ? await import((0, node_url_1.pathToFileURL)(filePath).href) : require(filePath);',
      'const module = isESM ? await import((0, node_url_1.pathToFileURL)(filePath).href) : require(filePath);',
    ],
    'node_modules/lilconfig/src/index.js': ['const mod = await import(/* webpackIgnore: true */ fileUrl);'],
  },
}

/** The packages whose internals the build or the CLI touches: pinned to exact versions in package.json. */
export const PINNED = ['@oclif/core', 'undici', 'jq-web', 'conf']
