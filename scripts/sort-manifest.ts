/**
 * Makes oclif.manifest.json deterministic (part of `npm run generate`, after `oclif manifest`).
 *
 * `oclif manifest` lists the commands in the order their files finished loading, which varies from run to run
 * and machine to machine (1,358 lines moved between two runs): a release left the tree dirty. This sorts the
 * commands by id and leaves each command's own content as oclif wrote it (the order of args is meaningful, and
 * the order of flags and examples is the one the source gives). Formatting is oclif's (2 spaces, no final
 * newline), so that running `oclif manifest` and this again gives the same bytes.
 *
 *   node --import tsx scripts/sort-manifest.ts [FILE]   (default: oclif.manifest.json)
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

/** The manifest's text with its commands sorted by id. */
export function sortManifest(text: string): string {
  const manifest = JSON.parse(text) as {commands?: Record<string, unknown>}
  const commands = Object.fromEntries(
    Object.keys(manifest.commands ?? {})
      .sort()
      .map((id) => [id, manifest.commands![id]]),
  )
  return JSON.stringify({...manifest, commands}, null, 2)
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const file = resolve(process.argv[2] ?? 'oclif.manifest.json')
  const sorted = sortManifest(readFileSync(file, 'utf8'))
  if (sorted !== readFileSync(file, 'utf8')) writeFileSync(file, sorted)
}
