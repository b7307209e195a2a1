/**
 * `npm run lint` runs knip (knip.json): an export nothing imports fails lint. Shown on a copy of the sources with
 * one export added that nothing uses, and on the tree as it is, which has none.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {appendFileSync, mkdtempSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

const copy = mkdtempSync(join(tmpdir(), 'commerce-knip-'))
afterAll(() => rmSync(copy, {force: true, recursive: true}))
const knip = (cwd: string) =>
  spawnSync(process.execPath, [join(ROOT, 'node_modules', 'knip', 'bin', 'knip.js'), '--no-progress'], {cwd, encoding: 'utf8', timeout: 120_000})

it('knip finds no unused export in the tree, and fails naming one that is added', () => {
  const clean = knip(ROOT)
  expect(clean.status, clean.stdout + clean.stderr).toBe(0)
  for (const entry of ['src', 'test', 'bin', 'scripts', 'examples', 'package.json', 'tsconfig.json', 'knip.json'])
    execFileSync('cp', ['-r', join(ROOT, entry), join(copy, entry)])
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'))
  appendFileSync(join(copy, 'src', 'domain', 'text.ts'), '\nexport const UNUSED_PROBE = 1\n')
  const dirty = knip(copy)
  expect(dirty.status).not.toBe(0)
  expect(dirty.stdout).toMatch(/Unused exports[\s\S]*UNUSED_PROBE\s+src\/domain\/text\.ts/)
}, 180_000)
