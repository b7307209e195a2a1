/**
 * oclif.manifest.json and the command reference (docs/commands/, indexed in the README) are generated from the code
 * (`npm run generate`).
 * These tests regenerate both from the built commands and fail when the committed files have drifted.
 */
import {execFileSync} from 'node:child_process'
import {copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {generatedFiles, readManifest, withGenerated} from '../../scripts/generated-docs.js'
import {sortManifest, withValueShapes} from '../../scripts/sort-manifest.js'
import {ROOT} from '../helpers/cli.js'

const OCLIF = join(ROOT, 'node_modules', 'oclif', 'bin', 'run.js')
const env = {...process.env, OCLIF_SKIP_UPDATE_CHECK: '1', COMMERCE_SKIP_UPDATE_CHECK: '1'}
const scratches: string[] = []
afterAll(() => {
  for (const dir of scratches) rmSync(dir, {force: true, recursive: true})
})

function withoutPaths(manifest: {commands: Record<string, object>}): unknown {
  return {...manifest, commands: Object.fromEntries(Object.entries(manifest.commands).map(([id, c]) => [id, {...c, relativePath: undefined}]))}
}

/**
 * A scratch plugin root with package.json, dist and node_modules: oclif writes (and `oclif readme` deletes)
 * files in the plugin root, and the committed ones must stay untouched.
 */
function scratchRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-generated-'))
  scratches.push(dir)
  // package.json is copied, not linked: oclif resolves the plugin root from its real path.
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'))
  for (const name of ['dist', 'node_modules']) symlinkSync(join(ROOT, name), join(dir, name))
  return dir
}

describe('generated files', () => {
  it('oclif.manifest.json matches the commands', async () => {
    const scratch = scratchRoot()
    // cwd too: `oclif manifest` first deletes ./oclif.manifest.json.
    execFileSync(process.execPath, [OCLIF, 'manifest', scratch], {cwd: scratch, env, stdio: 'pipe'})
    // As `npm run manifest` makes it: with each flag's value shape, which oclif's manifest leaves out.
    const fresh = JSON.parse(await withValueShapes(readFileSync(join(scratch, 'oclif.manifest.json'), 'utf8'), scratch))
    const committed = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8'))
    expect(Object.keys(committed.commands).sort(), 'run `npm run generate`').toEqual(Object.keys(fresh.commands).sort())
    // Where each command's file is differs between the scratch root and the real one; the rest must match,
    // and every committed path must name a built file.
    for (const command of Object.values<{relativePath: string[]}>(committed.commands))
      expect(existsSync(join(ROOT, ...command.relativePath)), command.relativePath.join('/')).toBe(true)
    expect(withoutPaths(committed), 'oclif.manifest.json is stale: run `npm run generate` and commit it').toEqual(withoutPaths(fresh))
  }, 60_000)

  it('generating the manifest twice gives the same bytes as the committed file (commands sorted by id)', async () => {
    const texts: string[] = []
    for (const _ of [0, 1]) {
      const scratch = scratchRoot()
      execFileSync(process.execPath, [OCLIF, 'manifest', scratch], {cwd: scratch, env, stdio: 'pipe'})
      // The scratch root reaches dist/ through a link, which oclif resolves: keep each path from `dist` on.
      const fresh = JSON.parse(readFileSync(join(scratch, 'oclif.manifest.json'), 'utf8'))
      for (const command of Object.values<{relativePath: string[]}>(fresh.commands))
        command.relativePath = command.relativePath.slice(command.relativePath.lastIndexOf('dist'))
      texts.push(sortManifest(await withValueShapes(JSON.stringify(fresh), scratch)))
    }
    expect(texts[1] === texts[0], 'two runs of `npm run manifest` differ').toBe(true)
    const committed = readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')
    expect(committed === texts[0], 'oclif.manifest.json is not as `npm run generate` writes it: run it and commit').toBe(true)
  }, 60_000)

  it('the command reference (docs/commands/, and its index in the README) matches the commands', () => {
    const scratch = scratchRoot()
    copyFileSync(join(ROOT, 'README.md'), join(scratch, 'README.md'))
    execFileSync(process.execPath, [OCLIF, 'readme', '--multi', '--output-dir', 'docs/commands', '--no-aliases', '--no-source-links'], {
      cwd: scratch,
      env,
      stdio: 'pipe',
    })
    const stale = 'the command reference is stale: run `npm run generate` and commit it'
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8') === readFileSync(join(scratch, 'README.md'), 'utf8'), `README.md: ${stale}`).toBe(true)
    const pages = (dir: string) => readdirSync(dir).sort()
    const fresh = join(scratch, 'docs', 'commands')
    const committed = join(ROOT, 'docs', 'commands')
    expect(pages(committed), stale).toEqual(pages(fresh))
    for (const page of pages(fresh))
      expect(readFileSync(join(committed, page), 'utf8') === readFileSync(join(fresh, page), 'utf8'), `docs/commands/${page}: ${stale}`).toBe(true)
  }, 60_000)

  it('the generated sections of the README and docs/ (decisions, picks, operations) match their sources', () => {
    const manifest = readManifest()
    const stale = generatedFiles().filter((file) => {
      const committed = readFileSync(join(ROOT, file), 'utf8')
      return committed !== withGenerated(committed, manifest)
    })
    expect(stale, 'stale generated sections: run `npm run generate`').toEqual([])
    // Each section is somewhere, so that what the code declares is said to a reader.
    const all = generatedFiles()
      .map((file) => readFileSync(join(ROOT, file), 'utf8'))
      .join('\n')
    for (const name of ['decisions', 'picks', 'operations']) expect(all, name).toContain(`<!-- ${name} -->`)
  })
})
