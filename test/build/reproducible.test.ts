/**
 * The bundle depends on the commit, not on the folder it was built in: the same sources built in another folder
 * (node_modules hard-linked there, so that every package resolves inside it) give the same bytes in dist/bundle,
 * source maps included. The standalone tarball and the deb carry that bundle.
 */
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, relative} from 'node:path'

import {afterAll, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

const elsewhere = mkdtempSync(join(tmpdir(), 'commerce-rebuild-'))
afterAll(() => rmSync(elsewhere, {force: true, recursive: true}))

function files(dir: string): string[] {
  return readdirSync(dir, {recursive: true, withFileTypes: true})
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort()
}

it('the same commit built in two folders gives identical bundles', () => {
  // bin/: the build takes the lean start's file names from bin/lean.js, which reads them.
  for (const entry of ['bin', 'src', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'oclif.manifest.json'])
    execFileSync('cp', ['-r', join(ROOT, entry), join(elsewhere, entry)])
  execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(elsewhere, 'node_modules')])
  execFileSync(process.execPath, [join(elsewhere, 'scripts', 'bundle.mjs')], {cwd: elsewhere, stdio: 'pipe'})
  const here = join(ROOT, 'dist', 'bundle')
  const there = join(elsewhere, 'dist', 'bundle')
  expect(files(there)).toEqual(files(here))
  const differ = files(here).filter((f) => !readFileSync(join(here, f)).equals(readFileSync(join(there, f))))
  expect(differ, 'files that name the folder they were built in').toEqual([])
  for (const f of files(there)) expect(readFileSync(join(there, f), 'utf8'), f).not.toContain(elsewhere)
}, 120_000)
