/**
 * The config store (src/config/config-store.ts) without a process: file modes, updates that never lose each other
 * (the lock), a profile selected from what the store read, and the read-only fallback (a directory the user
 * cannot write: changes kept in memory, the file untouched), including for a file an older release wrote.
 */
import {spawnSync} from 'node:child_process'
import {chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {ConfigStore, selectProfileName} from '../../src/config/config-store.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) {
    chmodSync(dir, 0o755)
    rmSync(dir, {force: true, recursive: true})
  }
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-store-'))
  dirs.push(dir)
  return dir
}

describe('config store', () => {
  it('creates the directory 0700 and the file 0600', async () => {
    const dir = join(tempDir(), 'nested')
    await new ConfigStore(dir).update((data) => void (data.current_profile = 'p'))
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600)
  })

  it('parallel updates from two stores (two commands) all land', async () => {
    const dir = tempDir()
    const a = new ConfigStore(dir)
    const b = new ConfigStore(dir)
    await Promise.all(
      Array.from({length: 20}, (_, i) =>
        (i % 2 ? a : b).update((data) => {
          data.profiles ??= {}
          data.profiles[`p${i}`] = {base_url: `http://127.0.0.1:${1000 + i}`}
        }),
      ),
    )
    const names = Object.keys((await new ConfigStore(dir).read()).profiles ?? {})
    expect(names.sort()).toEqual(Array.from({length: 20}, (_, i) => `p${i}`).sort())
  })

  it('a profile is selected from what the store read: a named one must exist, with the nearest suggested', async () => {
    const dir = tempDir()
    const store = new ConfigStore(dir)
    await store.update((data) => void (data.profiles = {staging: {base_url: 'http://127.0.0.1:1'}}))
    const data = await store.read()
    expect(selectProfileName(data, 'staging', {})).toBe('staging')
    expect(() => selectProfileName(data, 'stagign', {})).toThrow(/stagign/)
    expect(selectProfileName(data, undefined, {})).toBe('default')
  })

  it('in a directory it cannot write, reads the file, keeps changes in memory, and says so once', async () => {
    const dir = tempDir()
    // As an older release wrote it (no recorded version): reading it would migrate it, which cannot be written.
    writeFileSync(join(dir, 'config.json'), JSON.stringify({profiles: {default: {access_token: 'old', base_url: 'http://127.0.0.1:1'}}}))
    const before = readFileSync(join(dir, 'config.json'), 'utf8')
    chmodSync(join(dir, 'config.json'), 0o444)
    chmodSync(dir, 0o555)
    // As root every file is writable: the store is run as nobody there, so that the directory's mode counts. nobody
    // may not reach this checkout (a project in root's home, any \`mktemp -d\`): the store is bundled, with what it
    // imports, into a file of its own in a directory everyone can read.
    const asNobody = process.getuid?.() === 0 ? {gid: 65534, uid: 65534} : {}
    const bundleDir = tempDir()
    chmodSync(bundleDir, 0o755)
    const store = join(bundleDir, 'store.mjs')
    const {build} = await import('esbuild')
    await build({
      banner: {js: "import {createRequire as __cr} from 'node:module'; const require = __cr(import.meta.url);"},
      bundle: true,
      entryPoints: [resolve(import.meta.dirname, '../../src/config/config-store.ts')],
      format: 'esm',
      logLevel: 'silent',
      outfile: store,
      platform: 'node',
      target: 'node20',
    })
    chmodSync(store, 0o644)
    const script = `const {ConfigStore} = await import(${JSON.stringify(store)})
      const warnings = []
      const s = new ConfigStore(${JSON.stringify(dir)}, (m) => warnings.push(m))
      const first = await s.read()
      await s.update((d) => { d.current_profile = 'x' })
      const after = await s.read()
      console.log(JSON.stringify({after, first, reason: s.readOnlyReason ?? null, warnings}))`
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      ...asNobody,
      cwd: bundleDir,
      encoding: 'utf8',
      env: {...process.env, HOME: dir},
      timeout: 20_000,
    })
    expect(child.status, child.stderr).toBe(0)
    const out = JSON.parse(child.stdout) as {first: any; after: any; reason: string | null; warnings: string[]}
    expect(out.first.profiles.default.base_url).toBe('http://127.0.0.1:1')
    // The migration ran in memory (the old token, unusable since 1.0.0, is gone), then the change.
    expect(out.first.profiles.default.access_token).toBeUndefined()
    expect(out.after.current_profile).toBe('x')
    expect(out.reason).toMatch(/cannot write .*config\.json \(EACCES\); keeping changes in memory/)
    expect(out.warnings).toHaveLength(1)
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before)
  })
})

describe('the store under a directory that appears later', () => {
  it('reads nothing from a directory that does not exist, and creates it on the first write', async () => {
    const dir = join(tempDir(), 'later')
    const store = new ConfigStore(dir)
    expect(await store.read()).toEqual({})
    mkdirSync(dir, {recursive: true})
    await store.update((data) => void (data.current_profile = 'y'))
    expect((await new ConfigStore(dir).read()).current_profile).toBe('y')
  })
})
