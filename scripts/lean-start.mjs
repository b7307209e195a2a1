/**
 * What bin/lean.js needs to run one of the CLI's own commands without oclif's whole command table (issue 62): oclif
 * reads the 300 KB manifest and each core plugin's on every command, which is most of its Config.load. Written into
 * a bundle directory's `lean/` by scripts/bundle.mjs, and again by scripts/sort-manifest.ts after the manifest
 * changes:
 *
 * - routes.json: `ids`, every command id and alias oclif knows with no user plugin (ours and the core plugins');
 *   `takesArgs`, each name oclif resolves to a command that takes positional arguments (which stops oclif from
 *   reading further words as the id: ids, aliases and the permutations a plugin's manifest lists); `lean`, the ids
 *   of our commands that may run alone (not `readsAllCommands`, and ours in the full table).
 * - <id>.json: a manifest holding that one command's entry, as oclif wrote it in oclif.manifest.json.
 *
 * The table comes from oclif's own Config (its public API) loaded as the CLI loads it, with an empty data directory
 * so that the builder's plugins stay out. Without a manifest nothing is written, and every command takes the full path.
 */
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

// The names are bin/lean.js's, which reads these files.
const {LEAN_DIR, leanFile} = createRequire(import.meta.url)('../bin/lean.js')
export {leanFile}

/** routes.json and the files of the lean commands, as {name: text}. */
export async function leanStartFiles(root) {
  const manifestFile = join(root, 'oclif.manifest.json')
  if (!existsSync(manifestFile)) return {}
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'))
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const {Config} = await import('@oclif/core')
  const variable = `${pjson.oclif.bin.toUpperCase()}_DATA_DIR`
  const before = process.env[variable]
  const empty = mkdtempSync(join(tmpdir(), 'lean-start-'))
  process.env[variable] = empty
  let config
  try {
    config = await Config.load({pjson, root})
  } finally {
    if (before === undefined) delete process.env[variable]
    else process.env[variable] = before
    rmSync(empty, {force: true, recursive: true})
  }
  const ids = [...config.commandIDs].sort()
  // Every name oclif's findCommand resolves: ids, aliases and the permutations plugins' manifests list.
  const names = new Set([...ids, ...config.commands.flatMap((c) => [...(c.permutations ?? []), ...(c.aliasPermutations ?? [])])])
  const takesArgs = [...names]
    .filter((name) => {
      const command = config.findCommand(name)
      return Boolean(command && (command.strict === false || Object.keys(command.args ?? {}).length > 0))
    })
    .sort()
  const lean = Object.keys(manifest.commands)
    .filter((id) => manifest.commands[id].readsAllCommands !== true && config.findCommand(id)?.pluginName === pjson.name)
    .sort()
  const files = {'routes.json': JSON.stringify({ids, lean, takesArgs}) + '\n'}
  for (const id of lean) files[leanFile(id)] = JSON.stringify({commands: {[id]: manifest.commands[id]}, version: manifest.version}) + '\n'
  return files
}

/** Writes them into `<bundleDir>/lean`, replacing what was there. */
export async function writeLeanStart(root, bundleDir) {
  const files = await leanStartFiles(root)
  const dir = join(bundleDir, LEAN_DIR)
  rmSync(dir, {force: true, recursive: true})
  if (Object.keys(files).length === 0) return
  mkdirSync(dir, {recursive: true})
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
}
