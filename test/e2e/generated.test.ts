/**
 * oclif.manifest.json and the README's command reference are generated from the code (`npm run generate`).
 * These tests regenerate both from the built commands and fail when the committed files have drifted.
 */
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {withDecisions} from '../../scripts/readme-decisions.js'
import {ROOT} from '../helpers/cli.js'

const OCLIF = join(ROOT, 'node_modules', 'oclif', 'bin', 'run.js')
const env = {...process.env, OCLIF_SKIP_UPDATE_CHECK: '1', COMMERCE_SKIP_UPDATE_CHECK: '1'}
const scratch = mkdtempSync(join(tmpdir(), 'commerce-generated-'))
afterAll(() => rmSync(scratch, {force: true, recursive: true}))

describe('generated files', () => {
  it('oclif.manifest.json matches the commands', () => {
    // A scratch plugin root that shares package.json, dist and node_modules, so the committed file is untouched.
    for (const name of ['package.json', 'dist', 'node_modules']) symlinkSync(join(ROOT, name), join(scratch, name))
    execFileSync(process.execPath, [OCLIF, 'manifest', scratch], {cwd: ROOT, env, stdio: 'pipe'})
    const fresh = JSON.parse(readFileSync(join(scratch, 'oclif.manifest.json'), 'utf8'))
    const committed = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8'))
    expect(Object.keys(committed.commands).sort(), 'run `npm run generate`').toEqual(Object.keys(fresh.commands).sort())
    expect(committed, 'oclif.manifest.json is stale: run `npm run generate` and commit it').toEqual(fresh)
  }, 60_000)

  it('the README command reference matches the commands', () => {
    const fresh = execFileSync(process.execPath, [OCLIF, 'readme', '--dry-run', '--no-aliases', '--no-source-links'], {cwd: ROOT, encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe']})
    // --dry-run prints the README after a few "replacing <!-- x --> in ..." lines.
    const generated = fresh.replace(/^replacing <!-- [\w-]+ --> in .*\n/gm, '')
    const committed = readFileSync(join(ROOT, 'README.md'), 'utf8')
    expect(committed.trim() === generated.trim(), 'README.md command reference is stale: run `npm run generate` and commit it').toBe(true)
  }, 60_000)

  it('the README table of sandbox decisions matches src/sandbox/decisions.ts', () => {
    const committed = readFileSync(join(ROOT, 'README.md'), 'utf8')
    expect(committed === withDecisions(committed), 'README.md decisions table is stale: run `npm run generate`').toBe(true)
  })
})
