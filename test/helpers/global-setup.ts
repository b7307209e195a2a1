/**
 * Before any test file (vitest's globalSetup): a single test file runs as it is on a fresh clone
 * (`npm ci && npx vitest run test/commands/orders.test.ts`). The bundle the CLI runs (dist/bundle) is built when it is
 * missing or older than what it is built from; a manifest that names other commands than src/commands has fails at
 * once, naming the command that fixes it. `npm test` builds first, so this finds nothing to do there.
 */
import {execFileSync} from 'node:child_process'
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'

const ROOT = join(import.meta.dirname, '..', '..')

/** The newest modification time among `paths` (files, or every file below a folder). */
function newest(paths: string[]): number {
  let max = 0
  for (const path of paths) {
    if (!existsSync(path)) continue
    const stat = statSync(path)
    if (stat.isDirectory())
      for (const entry of readdirSync(path, {recursive: true, withFileTypes: true}))
        if (entry.isFile()) max = Math.max(max, statSync(join(entry.parentPath, entry.name)).mtimeMs)
    max = Math.max(max, stat.mtimeMs)
  }
  return max
}

function commandIds(): string[] {
  const dir = join(ROOT, 'src', 'commands')
  return (readdirSync(dir, {recursive: true}) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => relative(dir, join(dir, f)).replace(/\.ts$/, '').split(/[\\/]/).join(':'))
    .sort()
}

export default function setup(): void {
  const bundle = join(ROOT, 'dist', 'bundle', 'core.js')
  const built = existsSync(bundle) ? statSync(bundle).mtimeMs : 0
  const sources = newest([join(ROOT, 'src'), join(ROOT, 'scripts', 'bundle.mjs'), join(ROOT, 'scripts', 'patches.mjs'), join(ROOT, 'package.json')])
  if (built < sources) {
    process.stdout.write(`test set-up: ${built === 0 ? 'no dist/bundle yet' : 'src/ is newer than dist/bundle'}: bundling (scripts/bundle.mjs)…\n`)
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle.mjs')], {cwd: ROOT, stdio: 'inherit'})
  }
  const manifest = Object.keys((JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: object}).commands).sort()
  const ids = commandIds()
  if (JSON.stringify(manifest) !== JSON.stringify(ids)) {
    const added = ids.filter((id) => !manifest.includes(id))
    const gone = manifest.filter((id) => !ids.includes(id))
    throw new Error(
      `oclif.manifest.json is stale (${[...added.map((id) => `no entry for ${id}`), ...gone.map((id) => `${id} has no file`)].join('; ')}): run \`npm run generate\` and commit what it writes.`,
    )
  }
}
