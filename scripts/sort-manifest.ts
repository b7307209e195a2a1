/**
 * Makes oclif.manifest.json deterministic (part of `npm run generate`, after `oclif manifest`), and gives it what
 * oclif's manifest leaves out of a flag: what its value is (base/flags.ts ValueShape, and an integer flag's bounds),
 * which `commands --json` reads without loading a command.
 *
 * `oclif manifest` lists the commands in the order their files finished loading, which varies from run to run
 * and machine to machine (1,358 lines moved between two runs): a release left the tree dirty. This sorts the
 * commands by id and leaves each command's own content as oclif wrote it (the order of args is meaningful, and
 * the order of flags and examples is the one the source gives). Formatting is oclif's (2 spaces, no final
 * newline), so that running `oclif manifest` and this again gives the same bytes.
 *
 *   node --import tsx scripts/sort-manifest.ts [FILE]   (default: oclif.manifest.json)
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

import {writeLeanStart} from './lean-start.mjs'

type Manifest = {commands?: Record<string, {flags?: Record<string, Record<string, unknown>>}>}

/** The properties of a loaded flag that say what its value is (ValueShape; `min` and `max` of oclif's integer flags). */
export const SHAPE_KEYS = ['valueType', 'min', 'max', 'maxLength', 'envVar', 'prompted'] as const

/** The manifest's text with its commands sorted by id. */
export function sortManifest(text: string): string {
  const manifest = JSON.parse(text) as Manifest
  const commands = Object.fromEntries(
    Object.keys(manifest.commands ?? {})
      .sort()
      .map((id) => [id, manifest.commands![id]]),
  )
  return JSON.stringify({...manifest, commands}, null, 2)
}

/** The manifest's text with each flag's value shape copied from the commands oclif loads from `root`. */
export async function withValueShapes(text: string, root: string): Promise<string> {
  const {Config} = await import('@oclif/core')
  const manifest = JSON.parse(text) as Manifest
  const config = await Config.load(root)
  for (const [id, cached] of Object.entries(manifest.commands ?? {})) {
    const command = await config.findCommand(id)?.load()
    if (!command) continue
    const flags = {...command.baseFlags, ...command.flags} as Record<string, Record<string, unknown>>
    for (const [name, flag] of Object.entries(cached.flags ?? {}))
      for (const key of SHAPE_KEYS) if (flags[name]?.[key] !== undefined) flag[key] = flags[name][key]
  }
  return JSON.stringify(manifest, null, 2)
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const file = resolve(process.argv[2] ?? 'oclif.manifest.json')
  const sorted = sortManifest(await withValueShapes(readFileSync(file, 'utf8'), dirname(file)))
  if (sorted !== readFileSync(file, 'utf8')) writeFileSync(file, sorted)
  // The built bundle's lean/ is made from the manifest: made again from this one.
  const bundle = resolve(dirname(file), 'dist', 'bundle')
  if (existsSync(join(bundle, 'core.js'))) await writeLeanStart(dirname(file), bundle)
}
