/**
 * `bin/dev.js` runs the CLI from src/ without a build, as docs/development.md says: in a copy of the sources with no
 * dist/ at all (node_modules hard-linked there), `--help`, a command's help and a mistyped command all work.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

const copy = mkdtempSync(join(tmpdir(), 'commerce-dev-'))
afterAll(() => rmSync(copy, {force: true, recursive: true}))

it('bin/dev.js runs --help, a command and its help from src/ with no build', () => {
  for (const entry of ['bin', 'src', 'package.json', 'tsconfig.json', 'oclif.manifest.json'])
    execFileSync('cp', ['-r', join(ROOT, entry), join(copy, entry)])
  execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(copy, 'node_modules')])
  const env = {HOME: copy, LANG: 'C.UTF-8', PATH: process.env.PATH ?? '', COMMERCE_CONFIG_DIR: join(copy, 'config')}
  const dev = (args: string[]) => spawnSync(join(copy, 'bin', 'dev.js'), args, {cwd: copy, encoding: 'utf8', env, timeout: 60_000})
  const help = dev(['--help'])
  expect(help.status, help.stderr).toBe(0)
  expect(help.stdout).toContain('customers')
  const listHelp = dev(['customers', 'list', '--help'])
  expect(listHelp.status, listHelp.stderr).toBe(0)
  expect(listHelp.stdout).toContain('--per-page')
  const typo = dev(['customers', 'lsit'])
  expect(typo.status).toBe(2)
  expect(typo.stderr).toContain('Did you mean `commerce customers list`?')
  // `node bin/dev.js`, as Windows runs it (no shebang): tsx is registered by the file itself.
  const byNode = spawnSync(process.execPath, [join(copy, 'bin', 'dev.js'), 'customers', 'list', '--help'], {
    cwd: copy,
    encoding: 'utf8',
    env,
    timeout: 60_000,
  })
  expect(byNode.status, byNode.stderr).toBe(0)
  expect(byNode.stdout).toContain('--per-page')
  expect(byNode.stderr).toBe('')
}, 120_000)
