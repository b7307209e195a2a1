/**
 * A command's help, kept once oclif has rendered it: `commerce customers list --help` is printed again from a file,
 * byte for byte, without loading oclif at all (its config, its plugins and its Help class are nearly all of help's
 * start-up). Only the help of a command or a topic is kept (the help class says so: hooks/help-class.ts), never the
 * root's (it lists the user's aliases), and only when nothing was said on stderr (a warning is said every time).
 *
 * The file's name is a hash of everything the text depends on: the CLI's version and build (the manifest's size and
 * time), the words, the width and colour of the output (the terminal's columns, COLUMNS, OCLIF_COLUMNS, whether
 * stdout is a terminal, the colour variables), and the plugins (the data directory's package.json, and the
 * package.json and manifest times of each linked plugin). Anything else is no key: it is read by oclif, and a
 * change there is a new build. COMMERCE_NO_HELP_CACHE=1 turns it off. Failing to read or write the cache is ignored.
 */
'use strict'
const {mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync} = require('node:fs')
const {homedir} = require('node:os')
const {join} = require('node:path')

/** Set by the help class when what it shows may be kept. */
const CACHEABLE = Symbol.for('commerce-cli.help-cacheable')

/** The words of `commerce WORD... --help` (or -h), when the command line is that and nothing else. */
function helpWords(argv) {
  if (argv.length < 2 || argv.length > 4) return undefined
  const last = argv.at(-1)
  if (last !== '--help' && last !== '-h') return undefined
  const words = argv.slice(0, -1)
  return words.every((w) => /^[a-z][a-z-]{0,29}$/.test(w)) ? words : undefined
}

/** 64-bit FNV-1a of a string, in hex: a file name, not a secret (no crypto to load). */
function fnv(text) {
  let hash = 0xcbf29ce484222325n
  for (let i = 0; i < text.length; i++) hash = BigInt.asUintN(64, (hash ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n)
  return hash.toString(16).padStart(16, '0')
}

const stamp = (path) => {
  try {
    const {mtimeMs, size} = statSync(path)
    return `${size}:${Math.trunc(mtimeMs)}`
  } catch {
    return '-'
  }
}

/** oclif's data directory (where `plugins install` and `plugins link` record plugins), as oclif finds it. */
function dataDir(env, bin) {
  return (
    env[`${bin.toUpperCase()}_DATA_DIR`] ||
    (process.platform === 'win32'
      ? join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), bin)
      : join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), bin))
  )
}

/** Whether a plugin is linked (`plugins link`): only then may oclif look for TypeScript (bin/run.js). */
function anyLinked(env, bin) {
  try {
    return (JSON.parse(readFileSync(join(dataDir(env, bin), 'package.json'), 'utf8'))?.oclif?.plugins ?? []).some((p) => p?.type === 'link')
  } catch {
    return false
  }
}

/** The plugins oclif will load: the data directory's package.json, and what each linked plugin's files are now. */
function pluginsKey(env, bin) {
  const data = dataDir(env, bin)
  let text
  try {
    text = readFileSync(join(data, 'package.json'), 'utf8')
  } catch {
    return 'none'
  }
  const plugins = JSON.parse(text)?.oclif?.plugins ?? []
  const linked = plugins
    .filter((p) => p && typeof p.root === 'string')
    .map((p) => `${p.root}:${stamp(join(p.root, 'package.json'))}:${stamp(join(p.root, 'oclif.manifest.json'))}`)
  return `${text}\n${linked.join('\n')}`
}

/** The cache file for this command line, or undefined when its help is not one to keep. */
function helpFile(o) {
  const {argv, cacheDir, env, root, version, bin, stdout} = o
  if (env.COMMERCE_NO_HELP_CACHE) return undefined
  const words = helpWords(argv)
  if (!words) return undefined
  try {
    const key = [
      version,
      stamp(join(root, 'oclif.manifest.json')),
      stamp(join(root, 'dist', 'bundle')),
      words.join(' '),
      stdout.isTTY ? `tty:${stdout.columns}` : 'pipe',
      ...['COLUMNS', 'OCLIF_COLUMNS', 'NO_COLOR', 'FORCE_COLOR', 'TERM', 'COLORTERM', 'CI'].map((name) => `${name}=${env[name] ?? ''}`),
      pluginsKey(env, bin),
    ].join('\n')
    return join(cacheDir, `help-${version}`, `${fnv(key)}.txt`)
  } catch {
    return undefined
  }
}

/** The kept help, printed: true when it was there. */
function printKept(file, stdout) {
  let text
  try {
    text = readFileSync(file)
  } catch {
    return false
  }
  stdout.write(text)
  return true
}

/** Keeps what this run's help writes on stdout, when the help class says it may and stderr stayed silent. */
function keepWhatIsShown(file) {
  const chunks = []
  let spoke = false
  const write = process.stdout.write.bind(process.stdout)
  process.stdout.write = (chunk, ...rest) => {
    chunks.push(Buffer.from(chunk))
    return write(chunk, ...rest)
  }
  const writeErr = process.stderr.write.bind(process.stderr)
  process.stderr.write = (chunk, ...rest) => {
    spoke = true
    return writeErr(chunk, ...rest)
  }
  process.once('exit', (code) => {
    if (code !== 0 || spoke || globalThis[CACHEABLE] !== true || chunks.length === 0) return
    try {
      const dir = join(file, '..')
      mkdirSync(dir, {mode: 0o700, recursive: true})
      // Another version's kept help is of no further use.
      for (const name of readdirSync(join(dir, '..')))
        if (name.startsWith('help-') && join(dir, '..', name) !== dir) rmSync(join(dir, '..', name), {force: true, recursive: true})
      const temp = `${file}.${process.pid}`
      writeFileSync(temp, Buffer.concat(chunks), {mode: 0o600})
      renameSync(temp, file)
    } catch {}
  })
}

module.exports = {anyLinked, dataDir, helpFile, keepWhatIsShown, printKept}
