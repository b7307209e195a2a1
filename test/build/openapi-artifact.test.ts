/**
 * The OpenAPI document as a release artifact: the committed `openapi.json` (shipped in the npm package and beside
 * the standalone builds) is the document `commerce api --spec` prints, byte for byte, and the one the sandbox serves
 * but for its `servers`; and a change of what it describes comes with a new `info.version` (the generator refuses
 * the same version for other content).
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, expect, it} from 'vitest'

import {artifactText} from '../../scripts/openapi-artifact.js'
import {BIN, ROOT} from '../helpers/cli.js'
import {startTestSandbox, type TestSandbox} from '../helpers/sandbox.js'

const committed = readFileSync(join(ROOT, 'openapi.json'), 'utf8')
let sb: TestSandbox
beforeAll(async () => {
  sb = await startTestSandbox()
})
afterAll(() => sb.close())

it('openapi.json is the document, byte for byte (npm run generate writes it)', () => {
  expect(committed, 'openapi.json is stale: run `npm run generate` and commit it').toBe(artifactText())
  const printed = execFileSync(process.execPath, [BIN, 'api', '--spec'], {encoding: 'utf8', env: {HOME: tmpdir(), PATH: process.env.PATH}})
  expect(JSON.parse(printed)).toEqual(JSON.parse(committed))
})

it('the sandbox serves the same document, its own URL as the server', async () => {
  const served = (await (await fetch(`${sb.baseUrl}/openapi.json`)).json()) as {servers: unknown}
  expect({...served, servers: undefined}).toEqual({...(JSON.parse(committed) as object), servers: undefined})
})

it('npm run generate refuses a document whose content changed under the same version, and writes it under a new one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-openapi-'))
  try {
    const file = join(dir, 'openapi.json')
    const doc = JSON.parse(committed) as {info: {title: string; version: string}}
    const generate = () =>
      spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'openapi-artifact.ts')], {
        cwd: ROOT,
        encoding: 'utf8',
        env: {...process.env, OPENAPI_ARTIFACT: file},
      })
    // The released document said something else under the version the code still has: refused, file untouched.
    const released = JSON.stringify({...doc, info: {...doc.info, title: 'Another title'}})
    writeFileSync(file, released)
    const refused = generate()
    expect(refused.status).toBe(1)
    expect(refused.stderr).toContain(`its version is still ${doc.info.version}: raise SANDBOX_API_VERSION`)
    expect(readFileSync(file, 'utf8')).toBe(released)
    // Released under another version: the new document is written.
    writeFileSync(file, JSON.stringify({...doc, info: {...doc.info, title: 'Another title', version: '0.9.0'}}))
    expect(generate().status).toBe(0)
    expect(readFileSync(file, 'utf8')).toBe(committed)
  } finally {
    rmSync(dir, {force: true, recursive: true})
  }
})
